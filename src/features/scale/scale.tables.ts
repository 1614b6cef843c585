import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { corpora } from '../corpora/corpora.tables'

/** Finished scale tests a user chose to keep, per base; the records are stored as sent. */
export const scaleRuns = sqliteTable(
  'scale_runs',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    corpusId: text('corpus_id')
      .notNull()
      .references(() => corpora.id, { onDelete: 'cascade' }),
    /** The user (session) or API key that saved it. */
    createdBy: text('created_by'),
    note: text('note'),
    maxConcurrency: integer('max_concurrency').notNull(),
    /** JSON array of the query strings. */
    queries: text('queries').notNull(),
    /** JSON array of the level records (`{level, cart, rag}`). */
    records: text('records').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('scale_runs_corpus_created').on(t.corpusId, t.createdAt, t.id)],
)
