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
