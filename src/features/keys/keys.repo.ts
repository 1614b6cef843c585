import { and, count, desc, eq, gt, isNull, lt, or } from 'drizzle-orm'
import type { Db } from '../../platform/db/db'
import { apiKeys } from './keys.tables'

/** An API key row (times in ms). */
export type ApiKeyRow = typeof apiKeys.$inferSelect

/** Inserts a key. */
export function insertKey(db: Db, row: ApiKeyRow): void {
  db.insert(apiKeys).values(row).run()
}

/** A key of a workspace; another workspace's key is undefined (answers 404). */
export function findKey(db: Db, workspaceId: string, id: string): ApiKeyRow | undefined {
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, id), eq(apiKeys.workspaceId, workspaceId)))
    .get()
}

/** Sets `revoked_at` on a key that is not revoked yet; true when this call revoked it. */
export function markRevoked(db: Db, id: string, at: number): boolean {
  const row = db
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id })
    .get()
  return row !== undefined
}

/** Keys of a workspace newest first, continuing strictly after `after` = [created_at, id]. */
export function listKeys(
  db: Db,
  workspaceId: string,
  after: readonly (string | number)[] | null,
  limit: number | null,
): ApiKeyRow[] {
  const [at, id] = after ?? []
  const where =
    typeof at === 'number' && typeof id === 'string'
      ? and(
          eq(apiKeys.workspaceId, workspaceId),
          or(lt(apiKeys.createdAt, at), and(eq(apiKeys.createdAt, at), lt(apiKeys.id, id))),
        )
      : eq(apiKeys.workspaceId, workspaceId)
  const q = db.select().from(apiKeys).where(where).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
  return limit === null ? q.all() : q.limit(limit).all()
}

/** Number of keys of a workspace, revoked included. */
export function countKeys(db: Db, workspaceId: string): number {
  return db.select({ n: count() }).from(apiKeys).where(eq(apiKeys.workspaceId, workspaceId)).get()?.n ?? 0
}

/** Number of keys of a workspace that are neither revoked nor expired at `now`. */
export function countActiveKeys(db: Db, workspaceId: string, now: number): number {
  return (
    db
      .select({ n: count() })
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.workspaceId, workspaceId),
          isNull(apiKeys.revokedAt),
          or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now)),
        ),
      )
      .get()?.n ?? 0
  )
}

type Key = typeof apiKeys.$inferSelect
/** The key columns authentication reads, in the statement's order: a tuple of the table's own types. */
export type KeyAuthRow = [
  Key['id'],
  Key['workspaceId'],
  Key['scopes'],
  Key['expiresAt'],
  Key['revokedAt'],
  Key['lastUsedAt'],
  Key['corpusIds'],
]

/** The two statements on every keyed request's path, prepared once (bun:sqlite, not drizzle: hot path). */
export interface KeyAuthStatements {
  /** The key with this secret hash, or undefined (its workspace's status is the workspaces service's). */
  lookup(hash: string): KeyAuthRow | undefined
  /** Sets `last_used_at` to `now` unless it is already after `staleBefore`. */
  touch(id: string, now: number, staleBefore: number): void
}

export function keyAuthStatements(db: Db): KeyAuthStatements {
  const lookup = db.$client.prepare<unknown, [string]>(
    `SELECT k.id, k.workspace_id, k.scopes, k.expires_at, k.revoked_at, k.last_used_at, k.corpus_ids
     FROM api_keys k WHERE k.secret_hash = ?`,
  )
  const touch = db.$client.prepare<unknown, [number, string, number]>(
    'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)',
  )
  return {
    // Rows as arrays (`values`): no object with named keys on the hot path.
    lookup: (hash) => (lookup.values(hash) as KeyAuthRow[])[0],
    touch: (id, now, staleBefore) => void touch.run(now, id, staleBefore),
  }
}
