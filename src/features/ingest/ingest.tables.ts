import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { corpora } from '../corpora/corpora.tables'

/** One per-document failure listed on a run (an element of `sync_runs.errors`). */
export interface RunError {
  path: string
  document_id: string | null
  error: string
  /** Why, as an error code, when one applies (`plan_limit_reached`: the plan's cap left the file out). */
  code?: string
}

/** One ingestion run: an upload, a push commit or upsert, or a connector sync, with its counters. */
export const syncRuns = sqliteTable(
  'sync_runs',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    corpusId: text('corpus_id')
      .notNull()
      .references(() => corpora.id, { onDelete: 'cascade' }),
    /** upload, push, sync (a source) or import. */
    source: text('source').notNull(),
    /**
     * running until every document of the run is processed (and, for a source, its listing is
     * done); then succeeded, partial or failed; canceled when its sync was stopped.
     */
    status: text('status', { enum: ['running', 'succeeded', 'partial', 'failed', 'canceled'] }).notNull(),
    /** The source (or import) whose sync this is; null for uploads and pushes. */
    sourceId: text('source_id'),
    /** The sync job that lists the source: its progress, estimate and cancel. */
    jobId: text('job_id'),
    /** 1 while a source's listing is still going: the run cannot end before. */
    listing: integer('listing').notNull().default(0),
    created: integer('created').notNull().default(0),
    updated: integer('updated').notNull().default(0),
    unchanged: integer('unchanged').notNull().default(0),
    deleted: integer('deleted').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    /** Documents whose processing has not finished yet. */
    pending: integer('pending').notNull().default(0),
    /** JSON array of RunError ({path, document_id, error, code?}). */
    errors: text('errors').notNull().default('[]'),
    /** Why the whole run failed (a source unreachable, credentials refused), if it did. */
    error: text('error'),
    startedAt: integer('started_at').notNull(),
    finishedAt: integer('finished_at'),
  },
  (t) => [
    index('sync_runs_corpus').on(t.corpusId, t.startedAt),
    index('sync_runs_source').on(t.sourceId, t.startedAt),
  ],
)

/**
 * Content sent through the push protocol (a presigned PUT or `PUT documents/raw`) that no commit
 * has adopted yet. The object is kept while its row lives; the start-up sweep removes both once
 * `expires_at` has passed, so abandoned pushes leave nothing behind.
 */
export const ingestUploads = sqliteTable(
  'ingest_uploads',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    corpusId: text('corpus_id')
      .notNull()
      .references(() => corpora.id, { onDelete: 'cascade' }),
    sha256: text('sha256').notNull(),
    size: integer('size').notNull(),
    /** Object key the content is (or will be) written to. */
    objectKey: text('object_key').notNull(),
    /** Set once the server itself received and verified the bytes (raw uploads). */
    verified: integer('verified').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [
    index('ingest_uploads_corpus_sha').on(t.corpusId, t.sha256),
    index('ingest_uploads_key').on(t.objectKey),
    index('ingest_uploads_expires').on(t.expiresAt),
  ],
)
