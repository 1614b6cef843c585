import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * A base's published index (docs/scale-out.md, "The passage index across replicas"): the generation
 * every replica answers from, and the last whole snapshot of it (one SQLite file with the base's rows of
 * the engine's index); the generations after that snapshot are changes (`engine_index_changes`). Kept in
 * the features' store, not in the index: it is what replicas share. A base with no row has never been
 * published (a single process keeps its index in its data dir only).
 */
export const enginePublications = sqliteTable('engine_publications', {
  baseId: text('base_id').primaryKey(),
  workspaceId: text('workspace_id').notNull(),
  /** Counts publications; each moves it on by one, guarded by the generation read before. */
  generation: integer('generation').notNull(),
  /** The object store key of the last whole snapshot's file. */
  objectKey: text('object_key').notNull(),
  /** The snapshot file's size in bytes. */
  bytes: integer('bytes').notNull(),
  /** The generation the snapshot is of; the changes after it, up to `generation`, are rows of `engine_index_changes`. */
  snapshotGeneration: integer('snapshot_generation').notNull().default(0),
  /** When it was published (ms). */
  publishedAt: integer('published_at').notNull(),
  /** The process that published it. */
  owner: text('owner').notNull(),
})

/**
 * A generation published as a change: a file with the rows of the sections it wrote and the ids of the
 * sections it removed, applied on top of the generation before. Its rows go once a whole snapshot
 * covers them.
 */
export const engineIndexChanges = sqliteTable(
  'engine_index_changes',
  {
    baseId: text('base_id').notNull(),
    generation: integer('generation').notNull(),
    objectKey: text('object_key').notNull(),
    bytes: integer('bytes').notNull(),
  },
  (t) => [primaryKey({ columns: [t.baseId, t.generation] })],
)
