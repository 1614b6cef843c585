import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { corpora } from '../corpora/corpora.tables'

/**
 * Connections: a workspace's credentials for one kind of source (a bucket account, a Drive
 * account, a SharePoint tenant), shared by the sources of several bases. Secret fields are sealed
 * (AES-256-GCM, key derived from the instance secret, the row id as associated data).
 */
export const connections = sqliteTable(
  'connections',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    kind: text('kind', { enum: ['s3', 'folder', 'gdrive', 'sharepoint'] }).notNull(),
    name: text('name').notNull(),
    /** JSON object of the kind's non-secret fields. */
    settings: text('settings').notNull().default('{}'),
    /** The kind's secret fields as a sealed JSON object. */
    secrets: text('secrets').notNull(),
    /** JSON array of the secret fields that are set (what listings show instead of values). */
    secretsSet: text('secrets_set').notNull().default('[]'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('connections_workspace').on(t.workspaceId, t.createdAt)],
)

/**
 * Sources: a base kept in step with one folder through a connection, on a schedule or on demand.
 * An import is a source with `mode = 'import'`: one copy, no schedule, and it never deletes.
 */
export const sources = sqliteTable(
  'sources',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    corpusId: text('corpus_id')
      .notNull()
      .references(() => corpora.id, { onDelete: 'cascade' }),
    connectionId: text('connection_id')
      .notNull()
      .references(() => connections.id),
    mode: text('mode', { enum: ['sync', 'import'] })
      .notNull()
      .default('sync'),
    name: text('name').notNull(),
    /** The folder at the source, normalized by its kind (key prefix, directory, folder id, library path). */
    folder: text('folder').notNull(),
    /** Where the files land in the base: document paths start with it ('' for the base's root). */
    pathPrefix: text('path_prefix').notNull().default(''),
    /** Minutes between scheduled syncs; null: only on demand. */
    intervalMinutes: integer('interval_minutes'),
    /** Where the next listing starts (Drive's page token, Graph's delta link); null: list everything. */
    cursor: text('cursor'),
    /** The run of the sync listing now, if any. */
    currentRunId: text('current_run_id'),
    /** The job of the next scheduled sync, if one is queued. */
    nextJobId: text('next_job_id'),
    nextSyncAt: integer('next_sync_at'),
    lastRunId: text('last_run_id'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('sources_corpus').on(t.corpusId, t.mode, t.createdAt),
    index('sources_connection').on(t.connectionId),
  ],
)

/** What a source's files became: one row per file seen, with its version and its document. */
export const sourceItems = sqliteTable(
  'source_items',
  {
    sourceId: text('source_id')
      .notNull()
      .references(() => sources.id, { onDelete: 'cascade' }),
    /** The file's stable id at the source. */
    itemId: text('item_id').notNull(),
    path: text('path').notNull(),
    /** The version last registered; '' when the file was seen but never taken (it failed). */
    version: text('version').notNull(),
    documentId: text('document_id'),
    /** The last run that saw the file: a resumed sync skips what its run already did. */
    seenRun: text('seen_run'),
  },
  (t) => [
    primaryKey({ columns: [t.sourceId, t.itemId] }),
    index('source_items_seen').on(t.sourceId, t.seenRun),
  ],
)
