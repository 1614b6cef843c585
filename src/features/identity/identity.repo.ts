import { and, eq } from 'drizzle-orm'
import type { Store } from '../../platform/db/store'
import { userIdentities } from './identity.tables'

/** A linked provider identity (times in ms). */
export type IdentityRow = typeof userIdentities.$inferSelect

/** The only place the `user_identities` table is named; on either engine (docs/data-layer.md). */
export class IdentityRepo {
  constructor(private readonly store: Store) {}

  /** The identity a provider's (issuer, subject) is linked as, or undefined. */
  async find(issuer: string, subject: string): Promise<IdentityRow | undefined> {
    const u = this.store.table(userIdentities)
    const rows = await this.store.db
      .select()
      .from(u)
      .where(and(eq(u.issuer, issuer), eq(u.subject, subject)))
      .limit(1)
    return rows[0]
  }

  /** The identity a user has at an issuer (one per issuer and user), or undefined. */
  async ofUserAt(userId: string, issuer: string): Promise<IdentityRow | undefined> {
    const u = this.store.table(userIdentities)
    const rows = await this.store.db
      .select()
      .from(u)
      .where(and(eq(u.userId, userId), eq(u.issuer, issuer)))
      .limit(1)
    return rows[0]
  }

  /** Removes a linked identity (one a newer identity of the same issuer replaces). */
  async delete(id: string): Promise<void> {
    const u = this.store.table(userIdentities)
    await this.store.db.delete(u).where(eq(u.id, id))
  }

  /**
   * Links an identity; a second link of the same (issuer, subject) is refused by the unique rule
   * (`isUniqueViolation`). On PostgreSQL that error aborts the caller's unit: it must end it, not go on.
   */
  async insert(row: IdentityRow): Promise<void> {
    await this.store.db.insert(this.store.table(userIdentities)).values(row)
  }
}
