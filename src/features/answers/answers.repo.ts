import { and, eq, gte, lt, sql } from 'drizzle-orm'
import type { Principal } from '../../platform/auth/principal'
import { type CommitWatch, commitWatch } from '../../platform/db/commit-watch'
import type { Db } from '../../platform/db/db'
import type { Store } from '../../platform/db/store'
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

const DAY_MS = 86_400_000

/**
 * Tells `question.answered` (usage counts it, by who asked), in its own one-row transaction: still a
 * synchronous SQLite transaction, not a unit on the store. The event and its inline subscriber's
 * count (usage) are no rows the commit-watch memos keep (keys, allowlists, bases), so they keep
 * theirs across this commit (commit-watch.ts, `quietly`); `quietly` needs the commit to have ended
 * when it returns, which an awaited unit has not, and a unit's commit would empty every memo of the
 * process (of every process, on PostgreSQL) on every question. It moves once the store has a quiet unit.
 */
export class QuestionLog {
  private readonly commits: CommitWatch

  constructor(
    private readonly db: Db,
    private readonly events: Outbox,
  ) {
    this.commits = commitWatch(db.$client)
  }

  answered(
    principal: Principal,
    corpusId: string,
    found: { strategy: 'cart' | 'rag'; answered: boolean },
    origin: QuestionOrigin,
  ): void {
    const { strategy, answered } = found
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
