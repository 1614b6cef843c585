import { and, eq, gt, sql } from 'drizzle-orm'
import { Prepared } from '../../platform/db/prepared'
import type { Store } from '../../platform/db/store'
import { planQueries } from './plans.tables'

/** A month's row of questions taken, as stored. */
export type PlanQueriesRow = typeof planQueries.$inferSelect

const ws = sql.placeholder('workspaceId')
const month = sql.placeholder('month')

/**
 * The questions each workspace has taken per month, on either engine (docs/data-layer.md). Taking
 * is one conditional upsert, prepared (it runs on every question): it adds one only while the count
 * is under the cap, so concurrent questions cannot pass it, on SQLite (one writer) as on PostgreSQL
 * (ON CONFLICT DO UPDATE locks the row and checks its condition against the row's latest version).
 */
export class PlansRepo {
  private readonly takeCapped: Prepared<{ taken: number }[]>
  private readonly takeUncapped: Prepared<{ taken: number }[]>
  private readonly giveBack: Prepared<{ taken: number }[]>
  private readonly read: Prepared<{ taken: number }[]>

  constructor(private readonly store: Store) {
    const q = () => store.table(planQueries)
    const upsert = (db: Store['db'], capped: boolean) => {
      const t = q()
      const set = { taken: sql`${t.taken} + 1` }
      const target = [t.workspaceId, t.month]
      return db
        .insert(t)
        .values({ workspaceId: ws, month, taken: 1 })
        .onConflictDoUpdate(
          capped ? { target, set, setWhere: sql`${t.taken} < ${sql.placeholder('limit')}` } : { target, set },
        )
        .returning({ taken: t.taken })
        .prepare()
    }
    this.takeCapped = new Prepared(store, (db) => upsert(db, true))
    this.takeUncapped = new Prepared(store, (db) => upsert(db, false))
    this.giveBack = new Prepared(store, (db) => {
      const t = q()
      return db
        .update(t)
        .set({ taken: sql`${t.taken} - 1` })
        .where(and(eq(t.workspaceId, ws), eq(t.month, month), gt(t.taken, 0)))
        .returning({ taken: t.taken })
        .prepare()
    })
    this.read = new Prepared(store, (db) => {
      const t = q()
      return db
        .select({ taken: t.taken })
        .from(t)
        .where(and(eq(t.workspaceId, ws), eq(t.month, month)))
        .prepare()
    })
  }

  /**
   * Takes one question of the month while fewer than `limit` are taken (any number when `limit` is
   * null; a limit of 0 must be refused by the caller, as the first row is inserted with one), in a
   * unit of its own (or the caller's). Answers whether it was taken: a row comes back only when one
   * was written.
   */
  async take(workspaceId: string, m: string, limit: number | null): Promise<boolean> {
    // Quiet: the count is no row a memo keeps (keys, allowlists, bases), so they keep theirs across it.
    const rows = await this.store.unit(
      () =>
        limit === null
          ? this.takeUncapped.execute({ workspaceId, month: m })
          : this.takeCapped.execute({ workspaceId, month: m, limit }),
      { quiet: true },
    )
    return rows.length > 0
  }

  /** Gives one question of the month back (never below zero). */
  async release(workspaceId: string, m: string): Promise<void> {
    await this.store.unit(() => this.giveBack.execute({ workspaceId, month: m }), { quiet: true })
  }

  /** Questions taken in the month. */
  async taken(workspaceId: string, m: string): Promise<number> {
    const rows = await this.read.execute({ workspaceId, month: m })
    return rows[0]?.taken ?? 0
  }
}
