import { and, eq, isNull, ne, or, sql } from 'drizzle-orm'
import { Prepared } from '../../platform/db/prepared'
import type { Store } from '../../platform/db/store'
import { workspaceKeys } from './kms.tables'

/** A workspace's key settings as stored (times in ms). */
export type KeyRow = typeof workspaceKeys.$inferSelect

/** Columns a change of settings writes (never the key material, a pass's counts or its state). */
export type KeyChange = Partial<Omit<KeyRow, 'workspaceId'>>

/**
 * SQL of the kms feature: its one table and nothing else, on either engine. Changes of an existing
 * key are conditional writes on the row as it was read (`expect`), so a change that read the row
 * before another one landed writes nothing rather than write back what it read (a rotation's new
 * key version, a pass's end).
 */
export class KmsRepo {
  /** Prepared: every object read and write of every workspace looks its key up (memoised per commit). */
  private readonly lookup: Prepared<KeyRow[]>

  constructor(private readonly store: Store) {
    this.lookup = new Prepared(store, (handle) => {
      const t = store.table(workspaceKeys)
      return handle
        .select()
        .from(t)
        .where(eq(t.workspaceId, sql.placeholder('workspaceId')))
        .prepare()
    })
  }

  /** The workspace's key, or undefined when it has none. */
  async get(workspaceId: string): Promise<KeyRow | undefined> {
    return (await this.lookup.execute({ workspaceId }))[0]
  }

  /** Inserts the workspace's first key; false when it has one already (another request's). */
  async insert(row: KeyRow): Promise<boolean> {
    const t = this.store.table(workspaceKeys)
    const made = await this.store.db
      .insert(t)
      .values(row)
      .onConflictDoNothing()
      .returning({ id: t.workspaceId })
    return made.length > 0
  }

  /**
   * Changes some columns of the workspace's key, only if its provider, key id, local key versions
   * and enabled flag are still those of `expect` and, with `notRotating`, no rotation runs: false
   * when the row changed meanwhile (or is gone).
   */
  async change(
    expect: Pick<KeyRow, 'workspaceId' | 'provider' | 'keyId' | 'localKeys' | 'enabled'>,
    set: KeyChange,
    notRotating = false,
  ): Promise<boolean> {
    const t = this.store.table(workspaceKeys)
    const changed = await this.store.db
      .update(t)
      .set(set)
      .where(
        and(
          eq(t.workspaceId, expect.workspaceId),
          eq(t.provider, expect.provider),
          eq(t.keyId, expect.keyId),
          expect.localKeys === null ? isNull(t.localKeys) : eq(t.localKeys, expect.localKeys),
          eq(t.enabled, expect.enabled),
          notRotating ? or(isNull(t.pass), ne(t.pass, 'rotate')) : undefined,
        ),
      )
      .returning({ id: t.workspaceId })
    return changed.length > 0
  }

  /** Changes a pass's columns of the workspace's key (its state and counts), whatever else changed. */
  async update(
    workspaceId: string,
    set: Pick<KeyChange, 'pass' | 'encryptedObjects' | 'plaintextObjects' | 'countedAt' | 'rotatedAt'>,
  ): Promise<void> {
    const t = this.store.table(workspaceKeys)
    await this.store.db.update(t).set(set).where(eq(t.workspaceId, workspaceId))
  }
}
