import { and, eq, gt, sql } from 'drizzle-orm'
import { type CommitWatch, commitWatch } from '../../platform/db/commit-watch'
import type { Db } from '../../platform/db/db'
import { planQueries } from './plans.tables'

const q = planQueries
const ws = sql.placeholder('workspaceId')
const month = sql.placeholder('month')

/**
 * The month's question counter as synchronous bun:sqlite (SQLite only): the same statements as
 * PlansRepo's, kept for the synchronous twins of `takeQuery` / `releaseQuery` / `queriesUsed` while
 * answers and usage call them synchronously (issue 39). Its take is a quiet commit, which the
 * store's units have no counterpart of yet.
 */
export class PlansSyncCounter {
  private readonly takeCapped
  private readonly takeUncapped
  private readonly giveBack
  private readonly read
  private readonly commits: CommitWatch

  constructor(db: Db) {
    this.commits = commitWatch(db.$client)
    const insert = () => db.insert(q).values({ workspaceId: ws, month, taken: 1 })
    const target = [q.workspaceId, q.month]
    const set = { taken: sql`${q.taken} + 1` }
    this.takeCapped = insert()
      .onConflictDoUpdate({ target, set, setWhere: sql`${q.taken} < ${sql.placeholder('limit')}` })
      .returning({ taken: q.taken })
      .prepare()
    this.takeUncapped = insert().onConflictDoUpdate({ target, set }).returning({ taken: q.taken }).prepare()
    this.giveBack = db
      .update(q)
      .set({ taken: sql`${q.taken} - 1` })
      .where(and(eq(q.workspaceId, ws), eq(q.month, month), gt(q.taken, 0)))
      .prepare()
    this.read = db
      .select({ taken: q.taken })
      .from(q)
      .where(and(eq(q.workspaceId, ws), eq(q.month, month)))
      .prepare()
  }

  /**
   * Takes one question of the month while fewer than `limit` are taken (any number when `limit` is
   * null; a limit of 0 must be refused by the caller, as the first row is inserted with one).
   * Answers whether it was taken.
   */
  take(workspaceId: string, m: string, limit: number | null): boolean {
    // A question's own commit: the count is no row the commit-watch memos keep (keys, allowlists,
    // bases), so they keep theirs across it. A row comes back only when one was written.
    return this.commits.quietly(() => {
      const row =
        limit === null
          ? this.takeUncapped.get({ workspaceId, month: m })
          : this.takeCapped.get({ workspaceId, month: m, limit })
      return row !== undefined
    })
  }

  /** Gives one question of the month back (never below zero). */
  release(workspaceId: string, m: string): void {
    this.giveBack.run({ workspaceId, month: m })
  }

  /** Questions taken in the month. */
  taken(workspaceId: string, m: string): number {
    return this.read.get({ workspaceId, month: m })?.taken ?? 0
  }
}
