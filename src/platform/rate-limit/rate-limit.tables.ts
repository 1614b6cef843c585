import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * Rate-limit windows, shared by every process on the database (replicas on PostgreSQL): one fixed
 * window a limit and key. The key is a hash of what is counted (an address, an account as typed),
 * so what someone typed is never kept.
 */
export const rateLimitWindows = sqliteTable(
  'rate_limit_windows',
  {
    /** The limit's name (`login`, `register`). */
    name: text('name').notNull(),
    /** sha256 hex of the counted key. */
    key: text('key').notNull(),
    /** Hits counted in the window, at most the limit + 1 (hits refused past it are not added up). */
    count: integer('count').notNull(),
    /** When the window ends (ms); the next hit after it starts a new one. */
    windowEnd: integer('window_end').notNull(),
  },
  (t) => [primaryKey({ columns: [t.name, t.key] }), index('rate_limit_windows_end').on(t.windowEnd)],
)
