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

  /** Links an identity; a second link of the same (issuer, subject) throws the unique-constraint error. */
  insert(row: IdentityRow): void {
    this.db.insert(userIdentities).values(row).run()
  }
}
