import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * The replicas registry: one row a running process that runs jobs or answers on the shared database
 * (docs/scale-out.md, "Jobs and the outbox dispatcher, shared"). A process writes its row at start,
 * stamps `seen_at` while it runs and deletes it when it stops; an owner with no row is not taken for
 * dead by another build's rules, and the operator reads the fleet from here.
 */
export const replicas = sqliteTable('replicas', {
  /** The process's owner id: the name its leases, jobs and advisory locks carry. */
  owner: text('owner').primaryKey(),
  /** The machine's host name. */
  host: text('host').notNull(),
  pid: integer('pid').notNull(),
  /** The build's version (package.json's `version`). */
  build: text('build').notNull(),
  /** When it started (ms). */
  startedAt: integer('started_at').notNull(),
  /** When it last stamped its row (ms). */
  seenAt: integer('seen_at').notNull(),
})
