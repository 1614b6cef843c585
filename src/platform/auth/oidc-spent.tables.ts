import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * Sign-in flows already taken (their callback came), shared by every process on the database, so a
 * callback replayed to another replica is refused too. A row is kept until its flow's cookie would
 * have expired anyway (past that the cookie is refused as stale), then swept.
 */
export const oidcSpentFlows = sqliteTable(
  'oidc_spent_flows',
  {
    /** The flow: a hash of its state (the state itself is a secret of the browser that began it). */
    key: text('key').primaryKey(),
    /** When the flow's cookie expires (ms): the row is swept after. */
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('oidc_spent_flows_expires').on(t.expiresAt)],
)
