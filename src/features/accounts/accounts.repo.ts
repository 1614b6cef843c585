import { and, asc, count, eq, gt, isNull, max, type SQLWrapper, sql } from 'drizzle-orm'
import { Prepared } from '../../platform/db/prepared'
import type { Store } from '../../platform/db/store'
import type { WorkspaceAccess, WorkspaceAccessColumns } from '../workspaces/workspaces.service'
import { accessRequests, emailTokens, users } from './accounts.tables'

/** A user row (times in ms). */
export type UserRow = typeof users.$inferSelect
/** An emailed single-use token row. */
export type EmailTokenRow = typeof emailTokens.$inferSelect
/** Kinds of emailed token. */
export type EmailTokenKind = EmailTokenRow['kind']

/**
 * What a session check reads of its user, with its workspace's status and security revision (the
 * workspaces feature's columns, read in the same statement: docs/scale-out.md).
 */
export type SessionRow = Pick<
  UserRow,
  'workspaceId' | 'role' | 'status' | 'emailVerifiedAt' | 'tokenVersion'
> &
  WorkspaceAccess

/** The workspaces feature's columns of a workspace by its id column (WorkspacesService.accessColumns). */
export type AccessColumnsOf = (workspaceId: SQLWrapper) => WorkspaceAccessColumns

/** SQL of the accounts feature (users, emailed tokens, access requests), on either engine. */
export class AccountsRepo {
  constructor(private readonly store: Store) {}

  /**
   * The session check's read, the hot path of every signed-in request: a user by id with its
   * workspace's status and security revision (`accessColumns`), one prepared statement built once
   * per handle.
   */
  sessionRead(accessColumns: AccessColumnsOf): (userId: string) => Promise<SessionRow | undefined> {
    const store = this.store
    const sessionOf = new Prepared<SessionRow[]>(store, (db) => {
      const u = store.table(users)
      return db
        .select({
          workspaceId: u.workspaceId,
          role: u.role,
          status: u.status,
          emailVerifiedAt: u.emailVerifiedAt,
          tokenVersion: u.tokenVersion,
          ...accessColumns(u.workspaceId),
        })
        .from(u)
        .where(eq(u.id, sql.placeholder('id')))
        .limit(1)
        .prepare()
    })
    return async (id) => (await sessionOf.execute({ id }))[0]
  }

  /** Inserts a user; a duplicate address throws the unique-constraint error. */
  async insertUser(row: typeof users.$inferInsert): Promise<void> {
    await this.store.db.insert(this.store.table(users)).values(row)
  }

  /** The user holding an address (already normalised), or undefined. */
  async userByEmail(email: string): Promise<UserRow | undefined> {
    const u = this.store.table(users)
    return (await this.store.db.select().from(u).where(eq(u.email, email)).limit(1))[0]
  }

  /** A user by id, or undefined. */
  async user(id: string): Promise<UserRow | undefined> {
    const u = this.store.table(users)
    return (await this.store.db.select().from(u).where(eq(u.id, id)).limit(1))[0]
  }

  /** A user of a workspace by id; another workspace's user is undefined (answers 404). */
  async workspaceUser(workspaceId: string, id: string): Promise<UserRow | undefined> {
    const u = this.store.table(users)
    const rows = await this.store.db
      .select()
      .from(u)
      .where(and(eq(u.id, id), eq(u.workspaceId, workspaceId)))
      .limit(1)
    return rows[0]
  }

  /** Every user of a workspace, oldest first. */
  workspaceUsers(workspaceId: string): Promise<UserRow[]> {
    const u = this.store.table(users)
    return this.store.db
      .select()
      .from(u)
      .where(eq(u.workspaceId, workspaceId))
      .orderBy(asc(u.createdAt), asc(u.id))
  }

  /** Active admins of a workspace. */
  async activeAdmins(workspaceId: string): Promise<number> {
    const u = this.store.table(users)
    const rows = await this.store.db
      .select({ n: count() })
      .from(u)
      .where(and(eq(u.workspaceId, workspaceId), eq(u.role, 'admin'), eq(u.status, 'active')))
    return Number(rows[0]?.n ?? 0)
  }

  /** Applies a partial update to a user and stamps `updated_at`. */
  async updateUser(id: string, set: Partial<typeof users.$inferInsert>, at: number): Promise<void> {
    const u = this.store.table(users)
    await this.store.db
      .update(u)
      .set({ ...set, updatedAt: at })
      .where(eq(u.id, id))
  }

  /**
   * Sets a new password and bumps the token version, which ends every older session; only while
   * the version is still `fromVersion` when one is given (a conditional write: of a reset and a
   * change at once, the later finds the version moved). True when the row was written.
   */
  async replacePassword(id: string, hash: string, at: number, fromVersion?: number): Promise<boolean> {
    const u = this.store.table(users)
    const where =
      fromVersion === undefined ? eq(u.id, id) : and(eq(u.id, id), eq(u.tokenVersion, fromVersion))
    const rows = await this.store.db
      .update(u)
      .set({ passwordHash: hash, tokenVersion: sql`${u.tokenVersion} + 1`, updatedAt: at })
      .where(where)
      .returning({ id: u.id })
    return rows.length > 0
  }

  /** Deletes a user (their emailed tokens go with them). */
  async deleteUser(id: string): Promise<void> {
    const u = this.store.table(users)
    await this.store.db.delete(u).where(eq(u.id, id))
  }

  /** Stores an emailed token. */
  async insertEmailToken(row: EmailTokenRow): Promise<void> {
    await this.store.db.insert(this.store.table(emailTokens)).values(row)
  }

  /** Marks every unused token of a kind for a user as used: a newer link supersedes older ones. */
  async spendEmailTokens(userId: string, kind: EmailTokenKind, at: number): Promise<void> {
    const t = this.store.table(emailTokens)
    await this.store.db
      .update(t)
      .set({ usedAt: at })
      .where(and(eq(t.userId, userId), eq(t.kind, kind), isNull(t.usedAt)))
  }

  /** The newest send time of a kind of token for a user (for the resend cooldown), or null. */
  async lastSentAt(userId: string, kind: EmailTokenKind): Promise<number | null> {
    const t = this.store.table(emailTokens)
    const rows = await this.store.db
      .select({ at: max(t.sentAt) })
      .from(t)
      .where(and(eq(t.userId, userId), eq(t.kind, kind)))
    const at = rows[0]?.at
    return at === null || at === undefined ? null : Number(at)
  }

  /**
   * Spends a live token of `kind` with this hash, once: the conditional UPDATE lets exactly one of two
   * concurrent uses win. Returns the user id, or null when the token is unknown, spent or expired.
   */
  async consumeEmailToken(hash: string, kind: EmailTokenKind, at: number): Promise<string | null> {
    const t = this.store.table(emailTokens)
    const rows = await this.store.db
      .update(t)
      .set({ usedAt: at })
      .where(and(eq(t.tokenHash, hash), eq(t.kind, kind), isNull(t.usedAt), gt(t.expiresAt, at)))
      .returning({ userId: t.userId })
    return rows[0]?.userId ?? null
  }

  /** Records an access request unless one is already pending for the address (no stacking). */
  async insertAccessRequest(id: string, email: string, at: number): Promise<void> {
    // No conflict target: the partial unique index (pending requests only) is the one that can refuse
    // it (ids are random), and an index's condition as a target is written differently on each engine.
    await this.store.db
      .insert(this.store.table(accessRequests))
      .values({ id, email, status: 'pending', createdAt: at })
      .onConflictDoNothing()
  }
}
