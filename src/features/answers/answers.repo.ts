import type { Db } from '../../platform/db/db'
import { answerFeedback } from './answers.tables'

/** A rating of an answer, as stored. */
export type FeedbackRow = typeof answerFeedback.$inferInsert

/** Rows of the answers feature: the ratings given to answers. */
export class AnswersRepo {
  constructor(private readonly db: Db) {}

  /** Stores one rating. */
  insertFeedback(row: FeedbackRow): void {
    this.db.insert(answerFeedback).values(row).run()
  }
}
