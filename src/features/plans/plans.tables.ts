import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { workspaces } from '../workspaces/workspaces.tables'

/**
 * Questions a workspace has taken from its plan's `queries_per_month`, per calendar month (UTC). A
 * question takes one before it is answered and gives it back when it fails before answering; the
 * cap and `/admin/billing` both read this count.
 */
export const planQueries = sqliteTable(
  'plan_queries',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    /** The calendar month, UTC, as YYYY-MM. */
    month: text('month').notNull(),
    taken: integer('taken').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.month] })],
)
