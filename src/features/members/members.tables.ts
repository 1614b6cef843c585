import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { workspaces } from '../workspaces/workspaces.tables'

/** Invitations to join a workspace; the accept link's secret is stored only as SHA-256. */
export const invites = sqliteTable(
  'invites',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role', { enum: ['admin', 'member'] }).notNull(),
    tokenHash: text('token_hash').notNull(),
    /** The user (or API key) that sent it. */
    invitedBy: text('invited_by'),
    /** When the link was (last) sent: expiry counts from here. */
    sentAt: integer('sent_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    acceptedAt: integer('accepted_at'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('invites_token').on(t.tokenHash),
    index('invites_workspace').on(t.workspaceId, t.email),
  ],
)
