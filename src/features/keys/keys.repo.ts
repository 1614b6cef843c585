import { and, count, desc, eq, gt, isNull, lt, lte, or, type SQLWrapper, sql } from 'drizzle-orm'
import { Prepared } from '../../platform/db/prepared'
import type { Store } from '../../platform/db/store'
import type { WorkspaceAccess, WorkspaceAccessColumns } from '../workspaces/workspaces.service'
import { apiKeys } from './keys.tables'

/** An API key row (times in ms). */
export type ApiKeyRow = typeof apiKeys.$inferSelect

/**
 * What authentication reads of a key, with its workspace's status and security revision (the
 * workspaces feature's columns, read in the same statement: docs/scale-out.md).
 */
export type KeyAuthRow = Pick<
  ApiKeyRow,
  'id' | 'workspaceId' | 'scopes' | 'expiresAt' | 'revokedAt' | 'lastUsedAt' | 'corpusIds'
> &
  WorkspaceAccess

/** The workspaces feature's columns of a workspace by its id column (WorkspacesService.accessColumns). */
export type AccessColumnsOf = (workspaceId: SQLWrapper) => WorkspaceAccessColumns

/** SQL of the keys feature, on either engine (docs/data-layer.md). */
export class KeysRepo {
  /** The key with a secret hash and its workspace's state: read on every keyed request, built once per handle. */
  private readonly bySecret: Prepared<KeyAuthRow[]>

  constructor(
    private readonly store: Store,
    accessColumns: AccessColumnsOf,
  ) {
    this.bySecret = new Prepared(store, (db) => {
      const k = store.table(apiKeys)
      return db
        .select({
          id: k.id,
          workspaceId: k.workspaceId,
          scopes: k.scopes,
          expiresAt: k.expiresAt,
          revokedAt: k.revokedAt,
          lastUsedAt: k.lastUsedAt,
          corpusIds: k.corpusIds,
          ...accessColumns(k.workspaceId),
        })
        .from(k)
        .where(eq(k.secretHash, sql.placeholder('hash')))
        .limit(1)
        .prepare()
    })
  }

  /** Inserts a key. */
  async insert(row: ApiKeyRow): Promise<void> {
    await this.store.db.insert(this.store.table(apiKeys)).values(row)
  }

  /** A key of a workspace; another workspace's key is undefined (answers 404). */
  async find(workspaceId: string, id: string): Promise<ApiKeyRow | undefined> {
    const k = this.store.table(apiKeys)
    const rows = await this.store.db
      .select()
      .from(k)
      .where(and(eq(k.id, id), eq(k.workspaceId, workspaceId)))
      .limit(1)
    return rows[0]
  }

  /** The key with this secret hash and its workspace's status and security revision, or undefined. */
  async bySecretHash(hash: string): Promise<KeyAuthRow | undefined> {
    return (await this.bySecret.execute({ hash }))[0]
  }

  /** Sets `revoked_at` on a key that is not revoked yet; true when this call revoked it. */
  async markRevoked(id: string, at: number): Promise<boolean> {
    const k = this.store.table(apiKeys)
    const rows = await this.store.db
      .update(k)
      .set({ revokedAt: at })
      .where(and(eq(k.id, id), isNull(k.revokedAt)))
      .returning({ id: k.id })
    return rows.length > 0
  }

  /** Sets `last_used_at` to `now` unless it is already after `staleBefore`. */
  async touch(id: string, now: number, staleBefore: number): Promise<void> {
    const k = this.store.table(apiKeys)
    await this.store.db
      .update(k)
      .set({ lastUsedAt: now })
      .where(and(eq(k.id, id), or(isNull(k.lastUsedAt), lte(k.lastUsedAt, staleBefore))))
  }

  /** Keys of a workspace newest first, continuing strictly after `after` = [created_at, id]. */
  list(
    workspaceId: string,
    after: readonly (string | number)[] | null,
    limit: number | null,
  ): Promise<ApiKeyRow[]> {
    const k = this.store.table(apiKeys)
    const [at, id] = after ?? []
    const where =
      typeof at === 'number' && typeof id === 'string'
        ? and(eq(k.workspaceId, workspaceId), or(lt(k.createdAt, at), and(eq(k.createdAt, at), lt(k.id, id))))
        : eq(k.workspaceId, workspaceId)
    const q = this.store.db.select().from(k).where(where).orderBy(desc(k.createdAt), desc(k.id))
    return limit === null ? q : q.limit(limit)
  }

  /** Number of keys of a workspace, revoked included. */
  async count(workspaceId: string): Promise<number> {
    const k = this.store.table(apiKeys)
    const rows = await this.store.db.select({ n: count() }).from(k).where(eq(k.workspaceId, workspaceId))
    return Number(rows[0]?.n ?? 0)
  }

  /** Number of keys of a workspace that are neither revoked nor expired at `now`. */
  async countActive(workspaceId: string, now: number): Promise<number> {
    const k = this.store.table(apiKeys)
    const rows = await this.store.db
      .select({ n: count() })
      .from(k)
      .where(
        and(
          eq(k.workspaceId, workspaceId),
          isNull(k.revokedAt),
          or(isNull(k.expiresAt), gt(k.expiresAt, now)),
        ),
      )
    return Number(rows[0]?.n ?? 0)
  }
}
