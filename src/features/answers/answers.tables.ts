import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { corpora } from '../corpora/corpora.tables'

/** Ratings of answers given through `POST /corpora/{id}/feedback`. */
export const answerFeedback = sqliteTable(
  'answer_feedback',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    corpusId: text('corpus_id')
      .notNull()
      .references(() => corpora.id, { onDelete: 'cascade' }),
    userId: text('user_id'),
    keyId: text('key_id'),
    rating: text('rating', { enum: ['up', 'down'] }).notNull(),
    question: text('question'),
    answer: text('answer'),
    comment: text('comment'),
    sourceIds: text('source_ids').notNull().default('[]'),
    strategy: text('strategy'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('answer_feedback_corpus').on(t.corpusId, t.createdAt)],
)
