import { and, asc, count, eq, gt, isNull, ne } from 'drizzle-orm'
import type { Store } from '../../platform/db/store'
import { invites } from './members.tables'

/** An invitation row (times in ms). */
export type InviteRow = typeof invites.$inferSelect

/** SQL of the members feature: its one table, invitations, on either engine (docs/data-layer.md). */
export class MembersRepo {
  constructor(private readonly store: Store) {}

  /** Inserts an invitation. */
  async insert(row: InviteRow): Promise<void> {
    await this.store.db.insert(this.store.table(invites)).values(row)
  }

  /** The unaccepted invitation of an address to a workspace, or undefined. */
  async findOpen(workspaceId: string, email: string): Promise<InviteRow | undefined> {
    const i = this.store.table(invites)
    const rows = await this.store.db
      .select()
      .from(i)
      .where(and(eq(i.workspaceId, workspaceId), eq(i.email, email), isNull(i.acceptedAt)))
      .limit(1)
    return rows[0]
  }

  /** Re-issues an invitation: new secret, role and send time (the old link stops working). */
  async reissue(
    id: string,
    set: {
      role: 'admin' | 'member'
      tokenHash: string
      sentAt: number
      expiresAt: number
      invitedBy: string | null
    },
  ): Promise<void> {
    const i = this.store.table(invites)
    await this.store.db.update(i).set(set).where(eq(i.id, id))
  }

  /** Unaccepted invitations of a workspace, oldest first. */
  listOpen(workspaceId: string): Promise<InviteRow[]> {
    const i = this.store.table(invites)
    return this.store.db
      .select()
      .from(i)
      .where(and(eq(i.workspaceId, workspaceId), isNull(i.acceptedAt)))
      .orderBy(asc(i.createdAt), asc(i.id))
  }

  /** Deletes an unaccepted invitation of the workspace; false when there is none with that id. */
  async delete(workspaceId: string, id: string): Promise<boolean> {
    const i = this.store.table(invites)
    const gone = await this.store.db
      .delete(i)
      .where(and(eq(i.id, id), eq(i.workspaceId, workspaceId), isNull(i.acceptedAt)))
      .returning({ id: i.id })
    return gone.length > 0
  }

  /** A live (unaccepted, unexpired) invitation by the hash of its secret. */
  async findLive(tokenHash: string, now: number): Promise<InviteRow | undefined> {
    const i = this.store.table(invites)
    const rows = await this.store.db
      .select()
      .from(i)
      .where(and(eq(i.tokenHash, tokenHash), isNull(i.acceptedAt), gt(i.expiresAt, now)))
      .limit(1)
    return rows[0]
  }

  /**
   * Marks a live invitation accepted, once: a conditional write, so of two acceptances at once
   * exactly one gets the row. Returns it, or undefined when it was not live.
   */
  async accept(tokenHash: string, now: number): Promise<InviteRow | undefined> {
    const i = this.store.table(invites)
    const rows = await this.store.db
      .update(i)
      .set({ acceptedAt: now })
      .where(and(eq(i.tokenHash, tokenHash), isNull(i.acceptedAt), gt(i.expiresAt, now)))
      .returning()
    return rows[0]
  }

  /** Live (unaccepted, unexpired) invitations of a workspace, but the one to `except`: seats they hold. */
  async countLive(workspaceId: string, now: number, except: string): Promise<number> {
    const i = this.store.table(invites)
    const rows = await this.store.db
      .select({ n: count() })
      .from(i)
      .where(
        and(eq(i.workspaceId, workspaceId), isNull(i.acceptedAt), gt(i.expiresAt, now), ne(i.email, except)),
      )
    return Number(rows[0]?.n ?? 0)
  }
}
