import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { workspaces } from '../workspaces/workspaces.tables'

/**
 * A workspace's acceptance of one version of a legal document, by one of its admins: the proof a
 * receipt shows. Never updated: a new version accepted is a new row; the same version once only.
 */
export const legalAcceptances = sqliteTable(
  'legal_acceptances',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    /** `terms`, `privacy` or `dpa`. */
    document: text('document').notNull(),
    version: text('version').notNull(),
    title: text('title').notNull(),
    /** SHA-256 (hex) of the exact text accepted. */
    sha256: text('sha256').notNull(),
    /** `user` or `api_key`, and its id: who accepted on the workspace's behalf. */
    actorType: text('actor_type').notNull(),
    actorId: text('actor_id').notNull(),
    /** The client address as the server worked it out (behind trusted proxies only). */
    address: text('address').notNull(),
    acceptedAt: integer('accepted_at').notNull(),
  },
  (t) => [
    uniqueIndex('legal_acceptances_version').on(t.workspaceId, t.document, t.version),
    index('legal_acceptances_latest').on(t.workspaceId, t.document, t.acceptedAt),
  ],
)
