import { and, count, desc, eq, lt, or } from 'drizzle-orm'
import type { Store } from '../../platform/db/store'
import { timeIdCursor } from '../../platform/paging/paging'
import { scaleRuns } from './scale.tables'

/** A stored scale run, as its row. */
export type ScaleRunRow = typeof scaleRuns.$inferSelect

/**
 * Data functions of saved scale runs, on either engine (a run is saved or listed by hand, never on a
 * hot path).
 */
export class ScaleRepo {
  constructor(private readonly store: Store) {}

  /** Stores a run. */
  async insert(row: ScaleRunRow): Promise<void> {
    await this.store.db.insert(this.store.table(scaleRuns)).values(row)
  }

  /** Runs of a base newest first after a keyset position; `limit` null means all. */
  async list(
    corpusId: string,
    after: readonly (string | number)[] | null,
    limit: number | null,
  ): Promise<ScaleRunRow[]> {
    const r = this.store.table(scaleRuns)
    // Newest first; the keyset (created_at, id) stays correct while runs are added. Ids are ASCII,
    // so the sentinel sorts after each of them under PostgreSQL's collation as under SQLite's bytes.
    const [at, id] = timeIdCursor(after) ?? [Number.MAX_SAFE_INTEGER, '\uffff']
    const page = this.store.db
      .select()
      .from(r)
      .where(and(eq(r.corpusId, corpusId), or(lt(r.createdAt, at), and(eq(r.createdAt, at), lt(r.id, id)))))
      .orderBy(desc(r.createdAt), desc(r.id))
    return limit === null ? await page : await page.limit(limit + 1)
  }

  /** Number of runs of a base. */
  async countRuns(corpusId: string): Promise<number> {
    const r = this.store.table(scaleRuns)
    const rows = await this.store.db.select({ n: count() }).from(r).where(eq(r.corpusId, corpusId))
    return Number(rows[0]?.n ?? 0)
  }
}
