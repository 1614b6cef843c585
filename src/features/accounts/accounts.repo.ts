import { and, asc, count, eq, gt, isNull, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/db'
import { accessRequests, emailTokens, users } from './accounts.tables'

/** A user row (times in ms). */
export type UserRow = typeof users.$inferSelect
/** An emailed single-use token row. */
export type EmailTokenRow = typeof emailTokens.$inferSelect
/** Kinds of emailed token. */
export type EmailTokenKind = EmailTokenRow['kind']

/** Inserts a user; a duplicate address throws the unique-constraint error. */
export function insertUser(db: Db, row: typeof users.$inferInsert): void {
  db.insert(users).values(row).run()
}

/** The user holding an address (already normalised), or undefined. */
export function findUserByEmail(db: Db, email: string): UserRow | undefined {
  return db.select().from(users).where(eq(users.email, email)).get()
}

/** A user by id, or undefined. */
export function findUser(db: Db, id: string): UserRow | undefined {
  return db.select().from(users).where(eq(users.id, id)).get()
}

/** A user of a workspace by id; another workspace's user is undefined (answers 404). */
export function findWorkspaceUser(db: Db, workspaceId: string, id: string): UserRow | undefined {
  return db
    .select()
    .from(users)
    .where(and(eq(users.id, id), eq(users.workspaceId, workspaceId)))
    .get()
}

/** Every user of a workspace, oldest first. */
export function listWorkspaceUsers(db: Db, workspaceId: string): UserRow[] {
  return db
    .select()
    .from(users)
    .where(eq(users.workspaceId, workspaceId))
    .orderBy(asc(users.createdAt), asc(users.id))
    .all()
}

/** Active admins of a workspace. */
export function countActiveAdmins(db: Db, workspaceId: string): number {
  const row = db
    .select({ n: count() })
    .from(users)
    .where(and(eq(users.workspaceId, workspaceId), eq(users.role, 'admin'), eq(users.status, 'active')))
    .get()
  return row?.n ?? 0
}

/** Applies a partial update to a user and stamps `updated_at`. */
export function updateUser(db: Db, id: string, set: Partial<typeof users.$inferInsert>, at: number): void {
  db.update(users)
    .set({ ...set, updatedAt: at })
    .where(eq(users.id, id))
    .run()
}

/** Sets a new password and bumps the token version, which ends every older session. */
export function replacePassword(db: Db, id: string, hash: string, at: number): void {
  db.update(users)
    .set({ passwordHash: hash, tokenVersion: sql`${users.tokenVersion} + 1`, updatedAt: at })
    .where(eq(users.id, id))
    .run()
}

/** Deletes a user (their emailed tokens go with them). */
export function deleteUser(db: Db, id: string): void {
  db.delete(users).where(eq(users.id, id)).run()
}

/** Stores an emailed token. */
export function insertEmailToken(db: Db, row: EmailTokenRow): void {
  db.insert(emailTokens).values(row).run()
}

/** Marks every unused token of a kind for a user as used: a newer link supersedes older ones. */
export function spendEmailTokens(db: Db, userId: string, kind: EmailTokenKind, at: number): void {
  db.update(emailTokens)
    .set({ usedAt: at })
    .where(and(eq(emailTokens.userId, userId), eq(emailTokens.kind, kind), isNull(emailTokens.usedAt)))
    .run()
}

/** The newest send time of a kind of token for a user (for the resend cooldown), or null. */
export function lastSentAt(db: Db, userId: string, kind: EmailTokenKind): number | null {
  const row = db
    .select({ at: sql<number | null>`max(${emailTokens.sentAt})` })
    .from(emailTokens)
    .where(and(eq(emailTokens.userId, userId), eq(emailTokens.kind, kind)))
    .get()
  return row?.at ?? null
}

/**
 * Spends a live token of `kind` with this hash, once: the conditional UPDATE lets exactly one of two
 * concurrent uses win. Returns the user id, or null when the token is unknown, spent or expired.
 */
export function consumeEmailToken(db: Db, hash: string, kind: EmailTokenKind, at: number): string | null {
  const row = db
    .update(emailTokens)
    .set({ usedAt: at })
    .where(
      and(
        eq(emailTokens.tokenHash, hash),
        eq(emailTokens.kind, kind),
        isNull(emailTokens.usedAt),
        gt(emailTokens.expiresAt, at),
      ),
    )
    .returning({ userId: emailTokens.userId })
    .get()
  return row?.userId ?? null
}

/** Records an access request unless one is already pending for the address (no stacking). */
export function insertAccessRequest(db: Db, id: string, email: string, at: number): void {
  // The conflict target names the partial unique index (pending requests only).
  db.run(
    sql`INSERT INTO ${accessRequests} (id, email, status, created_at) VALUES (${id}, ${email}, 'pending', ${at})
        ON CONFLICT (email) WHERE status = 'pending' DO NOTHING`,
  )
}

/** What a session check needs of its user (its workspace's status is the workspaces feature's). */
export type SessionRow = Pick<
  typeof users.$inferSelect,
  'workspaceId' | 'role' | 'status' | 'emailVerifiedAt' | 'tokenVersion'
>

/** The session check's lookup, prepared once (the hot path of every signed-in request). */
export function sessionUserLookup(db: Db): (userId: string) => SessionRow | undefined {
  // Columns aliased to the table's JS keys, so the inferred type is what the statement returns.
  const lookup = db.$client.prepare<SessionRow, [string]>(
    `SELECT workspace_id AS workspaceId, role, status, email_verified_at AS emailVerifiedAt,
       token_version AS tokenVersion
     FROM users WHERE id = ?`,
  )
  return (userId) => lookup.get(userId) ?? undefined
}
