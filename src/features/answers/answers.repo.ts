import { and, eq, gte, lt, sql } from 'drizzle-orm'
import type { Principal } from '../../platform/auth/principal'
import { type CommitWatch, commitWatch } from '../../platform/db/commit-watch'
import type { Db } from '../../platform/db/db'
import { transaction } from '../../platform/db/transaction'
import type { QuestionOrigin } from '../../platform/events/events'
import type { Outbox } from '../../platform/events/outbox'
import { answerFeedback } from './answers.tables'

/** A rating of an answer, as stored. */
export type FeedbackRow = typeof answerFeedback.$inferInsert

/** How many ratings of each kind a base had on a UTC day (YYYY-MM-DD). */
export interface FeedbackCount {
  corpusId: string
  day: string
  up: number
  down: number
}

/** The UTC day (YYYY-MM-DD) of a rating, from its time in milliseconds. */
const ratedDay = sql<string>`strftime('%Y-%m-%d', ${answerFeedback.createdAt} / 1000, 'unixepoch')`

/** Rows of the answers feature: the ratings given to answers, and the record that a question was answered. */
export class AnswersRepo {
  private readonly commits: CommitWatch

  constructor(
    private readonly db: Db,
    private readonly events: Outbox,
  ) {
    this.commits = commitWatch(db.$client)
  }

  /** Tells `question.answered` (usage counts it, by who asked), in its own one-row transaction. */
  answered(
    principal: Principal,
    corpusId: string,
    found: { strategy: 'cart' | 'rag'; answered: boolean },
    origin: QuestionOrigin,
  ): void {
    const { strategy, answered } = found
    // The event and its inline subscriber's count (usage) are no rows the commit-watch memos keep
    // (keys, allowlists, bases): they keep theirs across this commit (commit-watch.ts, `quietly`).
    this.commits.quietly(() => {
      transaction(this.db, () =>
        this.events.emit(this.db, {
          type: 'question.answered',
          workspaceId: principal.workspaceId,
          payload: { corpusId, strategy, answered, keyId: principal.keyId ?? null, origin },
        }),
      )
      return true
    })
  }

  /** Stores one rating. */
  insertFeedback(row: FeedbackRow): void {
    this.db.insert(answerFeedback).values(row).run()
  }

  /** Ratings given in a workspace from `fromMs` (inclusive) to `toMs` (exclusive), by base and UTC day. */
  feedbackCounts(workspaceId: string, fromMs: number, toMs: number): FeedbackCount[] {
    const f = answerFeedback
    return this.db
      .select({
        corpusId: f.corpusId,
        day: ratedDay,
        up: sql<number>`count(*) filter (where ${f.rating} = 'up')`.mapWith(Number),
        down: sql<number>`count(*) filter (where ${f.rating} = 'down')`.mapWith(Number),
      })
      .from(f)
      .where(and(eq(f.workspaceId, workspaceId), gte(f.createdAt, fromMs), lt(f.createdAt, toMs)))
      .groupBy(f.corpusId, ratedDay)
      .all()
  }
}
