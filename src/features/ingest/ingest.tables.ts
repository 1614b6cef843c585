import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { corpora } from '../corpora/corpora.tables'

/** One ingestion run: an upload, a push commit or a connector sync, with its counters. */
export const syncRuns = sqliteTable(
  'sync_runs',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    corpusId: text('corpus_id')
      .notNull()
      .references(() => corpora.id, { onDelete: 'cascade' }),
    /** upload, push or import. */
    source: text('source').notNull(),
    status: text('status', { enum: ['running', 'succeeded', 'failed'] }).notNull(),
    created: integer('created').notNull().default(0),
    updated: integer('updated').notNull().default(0),
    unchanged: integer('unchanged').notNull().default(0),
    deleted: integer('deleted').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    /** Documents whose processing has not finished yet. */
    pending: integer('pending').notNull().default(0),
    /** JSON array of {path, error}. */
    errors: text('errors').notNull().default('[]'),
    startedAt: integer('started_at').notNull(),
    finishedAt: integer('finished_at'),
  },
  (t) => [index('sync_runs_corpus').on(t.corpusId, t.startedAt)],
)
