import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { workspaces } from '../workspaces/workspaces.tables'

/**
 * A workspace's IP allowlist (one row at most). No row, or `enabled` false: requests with the
 * workspace's credentials are taken from any address.
 */
export const ipAllowlists = sqliteTable('ip_allowlists', {
  workspaceId: text('workspace_id')
    .primaryKey()
    .references(() => workspaces.id, { onDelete: 'cascade' }),
  enabled: integer('enabled', { mode: 'boolean' }).notNull(),
  /** JSON array of normalized entries (`203.0.113.7`, `10.0.0.0/8`, `2001:db8::/32`), as saved. */
  cidrs: text('cidrs').notNull(),
  /** The user (or API key) that saved it last. */
  updatedBy: text('updated_by'),
  updatedAt: integer('updated_at').notNull(),
})
