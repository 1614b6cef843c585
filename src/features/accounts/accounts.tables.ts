import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { workspaces } from '../workspaces/workspaces.tables'

/** People who sign in. An address belongs to one workspace at most (unique across the server). */
export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    /** Trimmed and lower-cased; the unique index is the final word on duplicates. */
    email: text('email').notNull(),
    name: text('name').notNull(),
    /** argon2id PHC string; null for an account that has never set a local password. */
    passwordHash: text('password_hash'),
    role: text('role', { enum: ['admin', 'member'] }).notNull(),
    status: text('status', { enum: ['active', 'deactivated'] })
      .notNull()
      .default('active'),
    emailVerifiedAt: integer('email_verified_at'),
    /** Sessions carry this; bumping it (password reset) ends every older session at once. */
    tokenVersion: integer('token_version').notNull().default(0),
    lastLoginAt: integer('last_login_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [uniqueIndex('users_email').on(t.email), index('users_workspace').on(t.workspaceId, t.createdAt)],
)

/** Emailed single-use secrets (verification and password reset), stored only as SHA-256. */
export const emailTokens = sqliteTable(
  'email_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['verify_email', 'reset_password'] }).notNull(),
    tokenHash: text('token_hash').notNull(),
    /** When the link was sent: expiry counts from here. */
    sentAt: integer('sent_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
  },
  (t) => [uniqueIndex('email_tokens_hash').on(t.tokenHash), index('email_tokens_user').on(t.userId, t.kind)],
)

/** Requests for access while registration is invite-only; one pending request per address. */
export const accessRequests = sqliteTable(
  'access_requests',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    status: text('status', { enum: ['pending', 'approved', 'declined'] })
      .notNull()
      .default('pending'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('access_requests_pending').on(t.email).where(sql`status = 'pending'`)],
)
