import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { workspaces } from '../workspaces/workspaces.tables'

/** Tenant API keys. The secret itself is never stored: only its SHA-256 and a display prefix. */
export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The first 12 characters of the secret (`ek_` + 9), for telling keys apart. */
    prefix: text('prefix').notNull(),
    secretHash: text('secret_hash').notNull(),
    /** JSON array of scopes: `ingest`, `query`, `admin`. */
    scopes: text('scopes').notNull(),
    /** JSON array of the base ids the key is bound to; null: every base of its workspace. */
    corpusIds: text('corpus_ids'),
    createdBy: text('created_by'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at'),
    revokedAt: integer('revoked_at'),
    /** Written at most once a minute per key to spare the database. */
    lastUsedAt: integer('last_used_at'),
  },
  (t) => [
    uniqueIndex('api_keys_secret_hash').on(t.secretHash),
    index('api_keys_workspace').on(t.workspaceId, t.createdAt, t.id),
  ],
)
