// Synchronous bun:sqlite reads of workspaces for callers not on the store yet (the
// service's `*Sync` twins name each caller); they go when the last of them moves (issue 39).
import { eq, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/db'
import { workspaces } from './workspaces.tables'

type WorkspaceRow = typeof workspaces.$inferSelect

/** The twins' SQL, SQLite only. */
export class WorkspacesTwins {
  private readonly byId

  constructor(db: Db) {
    this.byId = db
      .select()
      .from(workspaces)
      .where(eq(workspaces.id, sql.placeholder('id')))
      .prepare()
  }

  /** One workspace by id, or undefined. */
  find(id: string): WorkspaceRow | undefined {
    return this.byId.get({ id })
  }
}
