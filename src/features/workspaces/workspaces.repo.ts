import { asc, eq, type SQL, type SQLWrapper, sql } from 'drizzle-orm'
import { Prepared } from '../../platform/db/prepared'
import type { Store } from '../../platform/db/store'
import { workspaces } from './workspaces.tables'

/** A workspace row as the rest of the code sees it (times in ms). */
export type WorkspaceRow = typeof workspaces.$inferSelect

/**
 * What the request's auth read takes of the workspace a credential belongs to, as columns another
 * feature's statement selects (null when there is no such workspace).
 */
export interface WorkspaceAccessColumns {
  workspaceStatus: SQL<WorkspaceRow['status'] | null>
  securityRev: SQL<WorkspaceRow['securityRev'] | null>
}

/** What those columns read: a workspace's status and security revision (null: no such workspace). */
export type WorkspaceAccess = {
  [K in keyof WorkspaceAccessColumns]: WorkspaceAccessColumns[K] extends SQL<infer T> ? T : never
}

/** SQL of the workspaces feature, on either engine (docs/data-layer.md). */
export class WorkspacesRepo {
  /** Every authenticated request reads its workspace through this (a memo's miss): built once per handle. */
  private readonly byId: Prepared<WorkspaceRow[]>

  constructor(private readonly store: Store) {
    const id = sql.placeholder('id')
    this.byId = new Prepared(store, (db) => {
      const w = store.table(workspaces)
      return db.select().from(w).where(eq(w.id, id)).limit(1).prepare()
    })
  }

  /** Inserts a workspace. */
  async insert(row: typeof workspaces.$inferInsert): Promise<void> {
    await this.store.db.insert(this.store.table(workspaces)).values(row)
  }

  /** One workspace by id, or undefined. */
  async find(id: string): Promise<WorkspaceRow | undefined> {
    return (await this.byId.execute({ id }))[0]
  }

  /**
   * The workspace's status and security revision as scalar subqueries on the row whose id is
   * `workspaceId` (a column of the statement they are put in): a credential's read (keys, sessions)
   * takes them in its own statement, one round trip, while the SQL naming this table stays here.
   */
  accessColumns(workspaceId: SQLWrapper): WorkspaceAccessColumns {
    const w = this.store.table(workspaces)
    const of = (column: SQLWrapper) => sql`(select ${column} from ${w} where ${w.id} = ${workspaceId})`
    return {
      workspaceStatus: of(w.status).mapWith(String) as SQL<WorkspaceRow['status'] | null>,
      // A bigint on PostgreSQL, which a subquery's value does not map by itself.
      securityRev: of(w.securityRev).mapWith(Number) as SQL<number | null>,
    }
  }

  /** Moves the workspace's security revision on by one (in the caller's unit). */
  async bumpSecurityRev(id: string): Promise<void> {
    const w = this.store.table(workspaces)
    await this.store.db
      .update(w)
      .set({ securityRev: sql`${w.securityRev} + 1` })
      .where(eq(w.id, id))
  }

  /** Renames a workspace. */
  async rename(id: string, name: string, at: number): Promise<void> {
    const w = this.store.table(workspaces)
    await this.store.db.update(w).set({ name, updatedAt: at }).where(eq(w.id, id))
  }

  /** Moves a workspace to another plan. */
  async setPlan(id: string, plan: string, at: number): Promise<void> {
    const w = this.store.table(workspaces)
    await this.store.db.update(w).set({ plan, updatedAt: at }).where(eq(w.id, id))
  }

  /** Whether any workspace exists. */
  async any(): Promise<boolean> {
    const w = this.store.table(workspaces)
    return (await this.store.db.select({ id: w.id }).from(w).limit(1)).length > 0
  }

  /** Every workspace, oldest first (the CLI picks one to serve). */
  list(): Promise<Pick<WorkspaceRow, 'id' | 'name'>[]> {
    const w = this.store.table(workspaces)
    return this.store.db.select({ id: w.id, name: w.name }).from(w).orderBy(asc(w.createdAt), asc(w.id))
  }
}
