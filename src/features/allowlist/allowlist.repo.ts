import { eq, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/db'
import { ipAllowlists } from './allowlist.tables'

/** A workspace's saved allowlist (times in ms; `cidrs` a JSON array). */
export type AllowlistRow = typeof ipAllowlists.$inferSelect

/** What the request check reads of a workspace: whether its list is on, and the list. */
export type EnforcedRow = Pick<AllowlistRow, 'enabled' | 'cidrs'>

/** SQL of the allowlist feature: its one table and nothing else. */
export class AllowlistRepo {
  /** Prepared once: it runs on every request with a credential (memoised per commit by the caller). */
  private readonly enforcedLookup

  constructor(private readonly db: Db) {
    this.enforcedLookup = db
      .select({ enabled: ipAllowlists.enabled, cidrs: ipAllowlists.cidrs })
      .from(ipAllowlists)
      .where(eq(ipAllowlists.workspaceId, sql.placeholder('workspaceId')))
      .prepare()
  }

  /** A workspace's allowlist, or undefined when it never saved one. */
  get(workspaceId: string): AllowlistRow | undefined {
    return this.db.select().from(ipAllowlists).where(eq(ipAllowlists.workspaceId, workspaceId)).get()
  }

  /** The enabled flag and list of a workspace, for the request check; undefined when it has none. */
  enforced(workspaceId: string): EnforcedRow | undefined {
    return this.enforcedLookup.get({ workspaceId })
  }

  /** Inserts or replaces a workspace's allowlist. */
  save(row: AllowlistRow): void {
    const { workspaceId: _, ...set } = row
    this.db
      .insert(ipAllowlists)
      .values(row)
      .onConflictDoUpdate({ target: ipAllowlists.workspaceId, set })
      .run()
  }
}
