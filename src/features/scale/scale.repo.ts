import { and, count, desc, eq, lt, or } from 'drizzle-orm'
import type { Db } from '../../platform/db/db'
import { scaleRuns } from './scale.tables'

/** A stored scale run, as its row. */
export type ScaleRunRow = typeof scaleRuns.$inferSelect

/** Data functions of saved scale runs (drizzle: a run is saved or listed by hand, never on a hot path). */
export class ScaleRepo {
  constructor(private readonly db: Db) {}

  /** Stores a run. */
  insert(row: ScaleRunRow): void {
    this.db.insert(scaleRuns).values(row).run()
  }

  /** Runs of a base newest first after a keyset position; `limit` null means all. */
  list(corpusId: string, after: readonly (string | number)[] | null, limit: number | null): ScaleRunRow[] {
    // Newest first; the keyset (created_at, id) stays correct while runs are added.
    const [at, id] = (after ?? [Number.MAX_SAFE_INTEGER, '\uffff']) as [number, string]
    const page = this.db
      .select()
      .from(scaleRuns)
      .where(
        and(
          eq(scaleRuns.corpusId, corpusId),
          or(lt(scaleRuns.createdAt, at), and(eq(scaleRuns.createdAt, at), lt(scaleRuns.id, id))),
        ),
      )
      .orderBy(desc(scaleRuns.createdAt), desc(scaleRuns.id))
    return limit === null ? page.all() : page.limit(limit + 1).all()
  }

  /** Number of runs of a base. */
  countRuns(corpusId: string): number {
    return (
      this.db.select({ n: count() }).from(scaleRuns).where(eq(scaleRuns.corpusId, corpusId)).get()?.n ?? 0
    )
  }
}
