import { eq, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/db'
import { workspaceKeys } from './kms.tables'

/** A workspace's key settings as stored (times in ms). */
export type KeyRow = typeof workspaceKeys.$inferSelect

/** SQL of the kms feature: its one table and nothing else. */
export class KmsRepo {
  /** Prepared once: every object read and write of every workspace looks its key up (memoised per commit). */
  private readonly lookup

  constructor(private readonly db: Db) {
    this.lookup = db
      .select()
      .from(workspaceKeys)
      .where(eq(workspaceKeys.workspaceId, sql.placeholder('workspaceId')))
      .prepare()
  }

  /** The workspace's key, or undefined when it has none. */
  get(workspaceId: string): KeyRow | undefined {
    return this.lookup.get({ workspaceId })
  }

  /** Inserts or replaces the workspace's key settings. */
  save(row: KeyRow): void {
    const { workspaceId: _, ...set } = row
    this.db
      .insert(workspaceKeys)
      .values(row)
      .onConflictDoUpdate({ target: workspaceKeys.workspaceId, set })
      .run()
  }

  /** Changes some columns of the workspace's key. */
  update(workspaceId: string, set: Partial<Omit<KeyRow, 'workspaceId'>>): void {
    this.db.update(workspaceKeys).set(set).where(eq(workspaceKeys.workspaceId, workspaceId)).run()
  }
}
