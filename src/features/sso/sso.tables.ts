import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { users } from '../accounts/accounts.tables'
import { workspaces } from '../workspaces/workspaces.tables'

/** A workspace's OpenID Connect sign-in (one at most). The client secret is sealed, never kept in the clear. */
export const ssoConfigs = sqliteTable('sso_configs', {
  workspaceId: text('workspace_id')
    .primaryKey()
    .references(() => workspaces.id, { onDelete: 'cascade' }),
  issuer: text('issuer').notNull(),
  clientId: text('client_id').notNull(),
  /** AES-256-GCM under the instance secret, bound to the workspace id (src/platform/crypto/sealed.ts). */
  clientSecret: text('client_secret').notNull(),
  /** 1 when password sign-in is refused for the workspace (`sso_required`). */
  enforce: integer('enforce', { mode: 'boolean' }).notNull(),
  /** The role of a member created on first SSO sign-in. */
  defaultRole: text('default_role', { enum: ['admin', 'member'] }).notNull(),
  /** Active members the workspace may hold before SSO stops adding more; null for no cap. */
  seatCap: integer('seat_cap'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
})

/**
 * Email domains whose addresses sign in through a workspace's SSO. The primary key makes a domain
 * the claim of one workspace on the whole server: a second claim is a 409, not a second row.
 */
export const ssoDomains = sqliteTable(
  'sso_domains',
  {
    /** Lower-cased, without a leading `@` or a trailing dot. */
    domain: text('domain').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => ssoConfigs.workspaceId, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('sso_domains_workspace').on(t.workspaceId)],
)

/**
 * Break-glass codes: each lets one admin of the workspace sign in with a password once while SSO
 * is enforced. Stored only as SHA-256 (they carry about 100 bits, like link tokens); spent by a
 * conditional update so two uses of one code cannot both win.
 */
export const ssoRecoveryCodes = sqliteTable(
  'sso_recovery_codes',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => ssoConfigs.workspaceId, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    createdAt: integer('created_at').notNull(),
    usedAt: integer('used_at'),
    usedBy: text('used_by').references(() => users.id, { onDelete: 'set null' }),
  },
  (t) => [
    uniqueIndex('sso_recovery_codes_hash').on(t.codeHash),
    index('sso_recovery_codes_workspace').on(t.workspaceId),
  ],
)

/**
 * When a workspace last turned enforcement on: password sessions signed in before then stay ended,
 * also after enforcement is turned off or the SSO set-up deleted (so this row outlives the config).
 */
export const ssoSessionCutoffs = sqliteTable('sso_session_cutoffs', {
  workspaceId: text('workspace_id')
    .primaryKey()
    .references(() => workspaces.id, { onDelete: 'cascade' }),
  /** Sessions not made through SSO (or a recovery code) signed in at or before this time (ms) are ended. */
  endedBefore: integer('ended_before').notNull(),
})
