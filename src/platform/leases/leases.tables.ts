import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * Named leases, shared by every process on the database (replicas on PostgreSQL): a name (`ingest.orphan-sweep`,
 * `ingest.push-commit:<run id>`) held by one owner until a time. A row past its `until` is free to take;
 * a released lease has no row.
 */
export const namedLeases = sqliteTable('named_leases', {
  /** What is leased. */
  name: text('name').primaryKey(),
  /** Who holds it: a process's owner id. */
  owner: text('owner').notNull(),
  /** When the lease lapses (ms) unless renewed. */
  until: integer('until').notNull(),
})
