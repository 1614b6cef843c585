import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * A base's published index (docs/scale-out.md, "The passage index across replicas"): the generation
 * every replica answers from, and the object holding it (one SQLite file with the base's rows of the
 * engine's index). Kept in the features' store, not in the index: it is what replicas share. A base
 * with no row has never been published (a single process keeps its index in its data dir only).
 */
export const enginePublications = sqliteTable('engine_publications', {
  baseId: text('base_id').primaryKey(),
  workspaceId: text('workspace_id').notNull(),
  /** Counts publications; each moves it on by one, guarded by the generation read before. */
  generation: integer('generation').notNull(),
  /** The object store key of the generation's file. */
  objectKey: text('object_key').notNull(),
  /** The file's size in bytes. */
  bytes: integer('bytes').notNull(),
  /** When it was published (ms). */
  publishedAt: integer('published_at').notNull(),
  /** The process that published it. */
  owner: text('owner').notNull(),
})
