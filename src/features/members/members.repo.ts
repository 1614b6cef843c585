import { and, asc, count, eq, gt, isNull, ne } from 'drizzle-orm'
import type { Db } from '../../platform/db/db'
import { invites } from './members.tables'

/** An invitation row (times in ms). */
export type InviteRow = typeof invites.$inferSelect

/** Inserts an invitation. */
export function insertInvite(db: Db, row: InviteRow): void {
  db.insert(invites).values(row).run()
}

/** The unaccepted invitation of an address to a workspace, or undefined. */
export function findOpenInvite(db: Db, workspaceId: string, email: string): InviteRow | undefined {
  return db
    .select()
    .from(invites)
    .where(and(eq(invites.workspaceId, workspaceId), eq(invites.email, email), isNull(invites.acceptedAt)))
    .get()
}

/** Re-issues an invitation: new secret, role and send time (the old link stops working). */
export function reissueInvite(
  db: Db,
  id: string,
  set: {
    role: 'admin' | 'member'
    tokenHash: string
    sentAt: number
    expiresAt: number
    invitedBy: string | null
  },
): void {
  db.update(invites).set(set).where(eq(invites.id, id)).run()
}

/** Unaccepted invitations of a workspace, oldest first. */
export function listOpenInvites(db: Db, workspaceId: string): InviteRow[] {
  return db
    .select()
    .from(invites)
    .where(and(eq(invites.workspaceId, workspaceId), isNull(invites.acceptedAt)))
    .orderBy(asc(invites.createdAt), asc(invites.id))
    .all()
}

/** Deletes an unaccepted invitation of the workspace; false when there is none with that id. */
export function deleteInvite(db: Db, workspaceId: string, id: string): boolean {
  const row = db
    .delete(invites)
    .where(and(eq(invites.id, id), eq(invites.workspaceId, workspaceId), isNull(invites.acceptedAt)))
    .returning({ id: invites.id })
    .get()
  return row !== undefined
}

/** A live (unaccepted, unexpired) invitation by the hash of its secret. */
export function findLiveInvite(db: Db, tokenHash: string, now: number): InviteRow | undefined {
  return db
    .select()
    .from(invites)
    .where(and(eq(invites.tokenHash, tokenHash), isNull(invites.acceptedAt), gt(invites.expiresAt, now)))
    .get()
}

/** Marks a live invitation accepted, once; returns it, or undefined when it was not live. */
export function acceptInvite(db: Db, tokenHash: string, now: number): InviteRow | undefined {
  return db
    .update(invites)
    .set({ acceptedAt: now })
    .where(and(eq(invites.tokenHash, tokenHash), isNull(invites.acceptedAt), gt(invites.expiresAt, now)))
    .returning()
    .get()
}

/** Live (unaccepted, unexpired) invitations of a workspace, but the one to `except`: seats they hold. */
export function countLiveInvites(db: Db, workspaceId: string, now: number, except: string): number {
  return (
    db
      .select({ n: count() })
      .from(invites)
      .where(
        and(
          eq(invites.workspaceId, workspaceId),
          isNull(invites.acceptedAt),
          gt(invites.expiresAt, now),
          ne(invites.email, except),
        ),
      )
      .get()?.n ?? 0
  )
}
