import { lte } from 'drizzle-orm'
import type { Store } from '../db/store'
import { oidcSpentFlows } from './oidc-spent.tables'

/**
 * Spent sign-in flows on either engine, shared by every process on the database: a flow is spent by
 * one insert-if-absent, so of two callbacks of one flow (on one replica or two, at once or not)
 * exactly one spends it. Nothing memoizes these rows, so their units are quiet.
 */
export class SpentFlows {
  constructor(private readonly store: Store) {}

  /**
   * Marks the flow `key` spent until `expiresAt` (ms); true when this call spent it, false when it
   * was spent already. One statement: on PostgreSQL a concurrent insert of the same key waits for
   * the first to commit and then does nothing.
   */
  async spend(key: string, expiresAt: number): Promise<boolean> {
    const t = this.store.table(oidcSpentFlows)
    const rows = await this.store.unit(
      () =>
        this.store.db
          .insert(t)
          .values({ key, expiresAt })
          .onConflictDoNothing({ target: t.key })
          .returning({ key: t.key }),
      { quiet: true },
    )
    return rows.length === 1
  }

  /** Removes the flows whose cookies have expired by `now` (ms): they are refused as stale anyway. */
  async sweep(now: number): Promise<void> {
    const t = this.store.table(oidcSpentFlows)
    await this.store.unit(() => this.store.db.delete(t).where(lte(t.expiresAt, now)), { quiet: true })
  }
}
