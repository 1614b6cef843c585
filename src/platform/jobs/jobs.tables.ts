import { index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { insertionOrder } from '../db/insertion-order'

/**
 * The durable job queue. A row is either a unit of work that workers claim (a handler is
 * registered for its kind) or an aggregate that only tracks its children (a train run).
 */
export const jobs = sqliteTable(
  'jobs',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    /** What the job works on, e.g. a corpus id; features decide. */
    subjectId: text('subject_id'),
    parentId: text('parent_id'),
    kind: text('kind').notNull(),
    status: text('status', { enum: ['pending', 'running', 'succeeded', 'failed', 'canceled'] }).notNull(),
    payload: text('payload').notNull().default('{}'),
    result: text('result'),
    detail: text('detail'),
    error: text('error'),
    /** Units of work done and in all, for progress and the throughput-based estimate. */
    unitsDone: real('units_done').notNull().default(0),
    unitsTotal: real('units_total').notNull().default(0),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(5),
    /** Not claimable before this time (ms); backoff after a transient failure. */
    runAt: integer('run_at').notNull(),
    leaseOwner: text('lease_owner'),
    leaseUntil: integer('lease_until'),
    cancelRequested: integer('cancel_requested', { mode: 'boolean' }).notNull().default(false),
    createdAt: integer('created_at').notNull(),
    startedAt: integer('started_at'),
    finishedAt: integer('finished_at'),
    updatedAt: integer('updated_at').notNull(),
    /**
     * Insertion order, the same on both engines: the tie-break between jobs due, or made, in the
     * same millisecond (ids are random). Left out by inserts (pg-tables.ts, `insertionOrder`).
     */
    seq: insertionOrder('jobs', 'seq'),
  },
  (t) => [
    index('jobs_claim').on(t.status, t.runAt),
    // The fair claim walks the workspaces with pending jobs, then each one's due jobs of one kind
    // in age order (fair-claim.ts): kind before run_at, so a workspace's 50,000 waiting
    // extractions are not read through to find its one sync; seq last, so the range is already in
    // the claim's order (run_at, then insertion).
    index('jobs_fair').on(t.status, t.workspaceId, t.kind, t.runAt, t.seq),
    uniqueIndex('jobs_seq').on(t.seq),
    index('jobs_parent').on(t.parentId),
    index('jobs_subject').on(t.workspaceId, t.subjectId, t.createdAt),
  ],
)
