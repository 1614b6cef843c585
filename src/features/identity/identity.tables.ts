import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { users } from '../accounts/accounts.tables'

/**
 * Provider identities linked to users (Google sign-in, single sign-on): who the provider says someone
 * is (issuer and subject, unique together) and the user that identity signs in as; a user has one
 * identity at an issuer (user and issuer unique together, docs/accounts.md). The address is the one
 * the provider vouched for when the identity was linked, kept for the record; sign-in goes by subject.
 */
export const userIdentities = sqliteTable(
  'user_identities',
  {
    id: text('id').primaryKey(),
    /** Which way of signing in this is (`google`). */
    provider: text('provider').notNull(),
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The user's workspace, so the user is found through accounts' service by workspace and id. */
    workspaceId: text('workspace_id').notNull(),
    email: text('email').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('user_identities_subject').on(t.issuer, t.subject),
    // Also the index of a user's identities (a user's removal cascades through it).
    uniqueIndex('user_identities_user_issuer').on(t.userId, t.issuer),
  ],
)
