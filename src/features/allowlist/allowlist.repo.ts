import { eq, sql } from 'drizzle-orm'
import { Prepared } from '../../platform/db/prepared'
import type { Store } from '../../platform/db/store'
import { ipAllowlists } from './allowlist.tables'

/** A workspace's saved allowlist (times in ms; `cidrs` a JSON array). */
export type AllowlistRow = typeof ipAllowlists.$inferSelect

/** What the request check reads of a workspace: whether its list is on, and the list. */
export type EnforcedRow = Pick<AllowlistRow, 'enabled' | 'cidrs'>

/** SQL of the allowlist feature: its one table and nothing else, on either engine. */
export class AllowlistRepo {
  /** Prepared: it runs on every request with a credential (memoised per commit by the caller). */
  private readonly enforcedLookup: Prepared<EnforcedRow[]>

  constructor(private readonly store: Store) {
    this.enforcedLookup = new Prepared(store, (db) => {
      const t = store.table(ipAllowlists)
      return db
        .select({ enabled: t.enabled, cidrs: t.cidrs })
        .from(t)
        .where(eq(t.workspaceId, sql.placeholder('workspaceId')))
        .prepare()
    })
  }

  /** A workspace's allowlist, or undefined when it never saved one. */
  async get(workspaceId: string): Promise<AllowlistRow | undefined> {
    const t = this.store.table(ipAllowlists)
    const rows = await this.store.db.select().from(t).where(eq(t.workspaceId, workspaceId))
    return rows[0]
  }

  /** The enabled flag and list of a workspace, for the request check; undefined when it has none. */
  async enforced(workspaceId: string): Promise<EnforcedRow | undefined> {
    return (await this.enforcedLookup.execute({ workspaceId }))[0]
  }

  /** Inserts or replaces a workspace's allowlist. */
  async save(row: AllowlistRow): Promise<void> {
    const t = this.store.table(ipAllowlists)
    const { workspaceId: _, ...set } = row
    await this.store.db.insert(t).values(row).onConflictDoUpdate({ target: t.workspaceId, set })
  }
}
