import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * Daily usage counters per workspace and base (`corpus_id` is '' for workspace-wide counts).
 * Features that serve queries add to them through the usage service; reports read them.
 */
export const usageDaily = sqliteTable(
  'usage_daily',
  {
    workspaceId: text('workspace_id').notNull(),
    corpusId: text('corpus_id').notNull().default(''),
    /** UTC calendar day, YYYY-MM-DD. */
    day: text('day').notNull(),
    /** Questions people and their applications asked (the console, the API, MCP). */
    queries: integer('queries').notNull().default(0),
    /** Questions the scale test sent as load. */
    loadTestQueries: integer('load_test_queries').notNull().default(0),
    /** Questions the compare and economics pages asked to measure the strategies. */
    compareQueries: integer('compare_queries').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.corpusId, t.day] })],
)
