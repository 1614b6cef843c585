import { and, eq } from 'drizzle-orm'
import type { Db } from '../../platform/db/db'
import { userIdentities } from './identity.tables'

/** A linked provider identity (times in ms). */
export type IdentityRow = typeof userIdentities.$inferSelect

/** The only place the `user_identities` table is named. */
export class IdentityRepo {
  constructor(private readonly db: Db) {}

  /** The identity a provider's (issuer, subject) is linked as, or undefined. */
  find(issuer: string, subject: string): IdentityRow | undefined {
    return this.db
      .select()
      .from(userIdentities)
      .where(and(eq(userIdentities.issuer, issuer), eq(userIdentities.subject, subject)))
      .get()
  }

  /** The identity a user has at an issuer (one per issuer and user), or undefined. */
  ofUserAt(userId: string, issuer: string): IdentityRow | undefined {
    return this.db
      .select()
      .from(userIdentities)
      .where(and(eq(userIdentities.userId, userId), eq(userIdentities.issuer, issuer)))
      .get()
  }

  /** Removes a linked identity (one a newer identity of the same issuer replaces). */
  delete(id: string): void {
    this.db.delete(userIdentities).where(eq(userIdentities.id, id)).run()
  }

  /** Links an identity; a second link of the same (issuer, subject) throws the unique-constraint error. */
  insert(row: IdentityRow): void {
    this.db.insert(userIdentities).values(row).run()
  }
}
