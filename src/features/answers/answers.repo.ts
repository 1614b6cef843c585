import { and, eq, gte, lt, sql } from 'drizzle-orm'
import type { Principal } from '../../platform/auth/principal'
import type { Store } from '../../platform/db/store'
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

const DAY_MS = 86_400_000

/**
 * Tells `question.answered` (usage counts it, by who asked) once the answer is sent (Outbox.later):
 * in a quiet unit shared with the other questions answered in the same turn. The event and its
 * inline subscriber's count (usage) are no rows any memo keeps (keys, sessions, allowlists, bases),
 * so that commit, made for every turn that answers, leaves the memos of this process as they are and
 * is told to no other (store.ts, `UnitOptions.quiet`); the answer does not wait for it.
 */
export class QuestionLog {
  constructor(private readonly events: Outbox) {}

  answered(
    principal: Principal,
    corpusId: string,
    found: { strategy: 'cart' | 'rag'; answered: boolean },
    origin: QuestionOrigin,
  ): void {
    const { strategy, answered } = found
    this.events.later({
      type: 'question.answered',
      workspaceId: principal.workspaceId,
      payload: { corpusId, strategy, answered, keyId: principal.keyId ?? null, origin },
    })
  }
}

/** The ratings given to answers, on the store (either engine). */
export class AnswersRepo {
  constructor(private readonly store: Store) {}

  /** Stores one rating (in the caller's unit). */
  async insertFeedback(row: FeedbackRow): Promise<void> {
    await this.store.db.insert(this.store.table(answerFeedback)).values(row)
  }

  /** Ratings given in a workspace from `fromMs` (inclusive) to `toMs` (exclusive), by base and UTC day. */
  async feedbackCounts(workspaceId: string, fromMs: number, toMs: number): Promise<FeedbackCount[]> {
    const f = this.store.table(answerFeedback)
    // The UTC day as a number of days since 1970 (integer division on both engines; the constant is
    // written into the SQL so that PostgreSQL sees the same expression in the select and the group).
    const dayNumber = sql<number>`${f.createdAt} / ${sql.raw(String(DAY_MS))}`.mapWith(Number)
    const rows = await this.store.db
      .select({
        corpusId: f.corpusId,
        dayNumber,
        up: sql<number>`count(*) filter (where ${f.rating} = 'up')`.mapWith(Number),
        down: sql<number>`count(*) filter (where ${f.rating} = 'down')`.mapWith(Number),
      })
      .from(f)
      .where(and(eq(f.workspaceId, workspaceId), gte(f.createdAt, fromMs), lt(f.createdAt, toMs)))
      .groupBy(f.corpusId, dayNumber)
    return rows.map((r) => ({
      corpusId: r.corpusId,
      day: new Date(r.dayNumber * DAY_MS).toISOString().slice(0, 10),
      up: r.up,
      down: r.down,
    }))
  }
}
