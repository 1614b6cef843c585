import type { Principal } from '../../platform/auth/principal'
import type { Db } from '../../platform/db/db'
import { transaction } from '../../platform/db/transaction'
import type { QuestionOrigin } from '../../platform/events/events'
import type { Outbox } from '../../platform/events/outbox'
import { answerFeedback } from './answers.tables'

/** A rating of an answer, as stored. */
export type FeedbackRow = typeof answerFeedback.$inferInsert

/** Rows of the answers feature: the ratings given to answers, and the record that a question was answered. */
export class AnswersRepo {
  constructor(
    private readonly db: Db,
    private readonly events: Outbox,
  ) {}

  /** Tells `question.answered` (usage counts it, by who asked), in its own one-row transaction. */
  answered(
    principal: Principal,
    corpusId: string,
    found: { strategy: 'cart' | 'rag'; answered: boolean },
    origin: QuestionOrigin,
  ): void {
    const { strategy, answered } = found
    transaction(this.db, () =>
      this.events.emit(this.db, {
        type: 'question.answered',
        workspaceId: principal.workspaceId,
        payload: { corpusId, strategy, answered, keyId: principal.keyId ?? null, origin },
      }),
    )
  }

  /** Stores one rating. */
  insertFeedback(row: FeedbackRow): void {
    this.db.insert(answerFeedback).values(row).run()
  }
}
