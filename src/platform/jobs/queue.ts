import type { Clock } from '../clock/clock'
import { newId, type Random } from '../crypto/random'
import type { Db } from '../db/db'
import { type Store, sqliteStore } from '../db/store'
import * as cancels from './cancels'
import { type ClaimPolicy, OPEN_POLICY } from './fair-claim'
import { decode, isTerminal, JOB_COLUMNS, type Job, type JobRow, type JobStatus, type NewJob } from './job'
import { JobsRepo } from './jobs.repo'
import { JobLeases } from './leases'
import { LeasesRepo } from './leases.repo'

export { type ClaimPolicy, OPEN_POLICY } from './fair-claim'
export { isTerminal, type Job, type JobStatus, type NewJob, type ReadableJobs } from './job'

/**
 * The data functions of the durable job queue. On the store (either engine): `add`, `repo`
 * (jobs.repo.ts) and `leaseRepo` (leases.repo.ts), which the scheduler runs on. Synchronous, for code not yet on the store (SQLite
 * only, inside the caller's bun:sqlite transaction, as the outbox keeps `emit`): enqueue, reads,
 * cancellation and aggregates here, claims and leases in `JobLeases`. Both write the same rows;
 * every state change is one statement guarded by the expected state and lease owner, so two
 * workers can never both own a job.
 */
export class JobQueue {
  private listeners: (() => void)[] = []
  private readonly leases: JobLeases
  /** The queue on the store, on either engine: enqueue, reads, cancels, aggregates. */
  readonly repo: JobsRepo
  /** The worker side on the store: claims, leases, outcomes (the scheduler's). */
  readonly leaseRepo: LeasesRepo

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly random: Random,
    store?: Store,
  ) {
    this.leases = new JobLeases(db, clock)
    this.repo = new JobsRepo(store ?? sqliteStore(db), clock, random)
    this.leaseRepo = new LeasesRepo(this.repo.store, clock)
  }

  /** The store the queue runs on. */
  get store(): Store {
    return this.repo.store
  }

  private get c() {
    return this.db.$client
  }

  private now(): number {
    return this.clock.now().getTime()
  }

  /** Calls `fn` after every enqueue (the scheduler uses it to start new work without waiting a poll). */
  onEnqueue(fn: () => void): void {
    this.listeners.push(fn)
  }

  /**
   * Adds a job in the caller's unit (store.unit; throws outside one), so it commits or rolls back
   * with the change that asked for it; `onEnqueue` listeners hear of it once that unit has committed.
   */
  async add(j: NewJob): Promise<Job> {
    const job = await this.repo.insert(j)
    if (this.listeners.length > 0) this.store.afterCommit(() => this.notify())
    return job
  }

  private notify(): void {
    for (const fn of this.listeners) fn()
  }

  /** Adds a job on the caller's synchronous SQLite connection (code not yet on the store); returns it. */
  enqueue(j: NewJob): Job {
    const now = this.now()
    const id = newId(this.random, 'job')
    const status = j.status ?? 'pending'
    this.c
      .query(
        `INSERT INTO jobs (id, workspace_id, subject_id, parent_id, kind, status, payload, detail, units_total,
           max_attempts, run_at, created_at, started_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        j.workspaceId,
        j.subjectId ?? null,
        j.parentId ?? null,
        j.kind,
        status,
        JSON.stringify(j.payload ?? {}),
        j.detail ?? null,
        j.unitsTotal ?? 0,
        j.maxAttempts ?? 5,
        j.runAt ?? now,
        now,
        status === 'running' ? now : null,
        now,
      )
    this.notify()
    return this.get(id)!
  }

  /** One job by id, or null. */
  get(id: string): Job | null {
    const r = this.c.query<JobRow, [string]>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = ?`).get(id)
    return r ? decode(r) : null
  }

  /** The children of an aggregate, oldest first. */
  children(parentId: string): Job[] {
    return this.c
      .query<JobRow, [string]>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE parent_id = ? ORDER BY rowid`)
      .all(parentId)
      .map(decode)
  }

  /**
   * Sums over the children of an aggregate, in one query (a run of many batches is polled often):
   * how many there are and have ended, their units, units done (all of a succeeded child's), and
   * with `resultField`, the numbers their results hold there (`resultSum`: none read or decoded).
   */
  childTotals(parentId: string, resultField?: string) {
    const none = { children: 0, ended: 0, unitsTotal: 0, unitsDone: 0, resultSum: 0 }
    const row = this.c
      .query<typeof none, [string | null, string]>(
        `SELECT count(*) AS children, coalesce(sum(status IN ('succeeded','failed','canceled')), 0) AS ended,
                coalesce(sum(units_total), 0) AS unitsTotal, coalesce(sum(json_extract(result, ?)), 0) AS resultSum,
                coalesce(sum(CASE WHEN status = 'succeeded' THEN units_total ELSE units_done END), 0) AS unitsDone
         FROM jobs WHERE parent_id = ?`,
      )
      .get(resultField === undefined ? null : `$.${resultField}`, parentId)
    return row ?? none
  }

  /** Jobs of one subject in a workspace, newest first. */
  listBySubject(workspaceId: string, subjectId: string): Job[] {
    return this.c
      .query<JobRow, [string, string]>(
        `SELECT ${JOB_COLUMNS} FROM jobs WHERE workspace_id = ? AND subject_id = ? ORDER BY rowid DESC`,
      )
      .all(workspaceId, subjectId)
      .map(decode)
  }

  /**
   * Claims up to `limit` due pending jobs of `kinds` for `owner`: oldest first, fairly between
   * workspaces under `policy` (see `JobLeases.claim`).
   */
  claim(
    kinds: readonly string[],
    owner: string,
    leaseMs: number,
    limit: number,
    policy: ClaimPolicy = OPEN_POLICY,
  ): Job[] {
    return this.leases.claim(kinds, owner, leaseMs, limit, policy)
  }

  /** Extends a lease and records progress; false when the lease was lost (the job moved on). */
  heartbeat(
    id: string,
    owner: string,
    leaseMs: number,
    p: { unitsDone?: number; unitsTotal?: number; detail?: string },
  ): boolean {
    return this.leases.heartbeat(id, owner, leaseMs, p)
  }

  /** Ends a claimed job; false when the lease was lost meanwhile. */
  finish(
    id: string,
    owner: string,
    status: 'succeeded' | 'failed' | 'canceled',
    out: { result?: unknown; error?: string },
  ): boolean {
    return this.leases.finish(id, owner, status, out)
  }

  /** Puts a claimed job back in the queue to run again after `delayMs` (transient failure). */
  retry(id: string, owner: string, error: string, delayMs: number): boolean {
    return this.leases.retry(id, owner, error, delayMs)
  }

  /** Returns jobs whose lease expired to the queue (or fails them when out of attempts); how many. */
  recoverExpired(): number {
    return this.leases.recoverExpired()
  }

  /** The lease owners of running jobs other than `self`. */
  otherOwners(self: string): string[] {
    return this.leases.otherOwners(self)
  }

  /** Puts the running jobs of an ended owner back to pending at once (see `JobLeases.recoverOwner`). */
  recoverOwner(owner: string): number {
    return this.leases.recoverOwner(owner)
  }

  /**
   * Sets the cooperative cancel flag on a job and its children; pending children end `canceled`
   * at once, running ones stop when their worker next reads the flag.
   */
  requestCancel(id: string): void {
    cancels.requestCancel(this.c, this.now(), id)
  }

  /**
   * Asks every job of a subject that has not ended to stop (the subject is going away): pending ones
   * end `canceled` at once, running ones at their next checkpoint. Returns how many were asked.
   */
  cancelSubject(workspaceId: string, subjectId: string): number {
    return cancels.cancelSubject(this.c, this.now(), workspaceId, subjectId)
  }

  /** Moves a job that has not started to another due time; false when it is no longer pending. */
  postpone(id: string, runAt: number): boolean {
    return cancels.postpone(this.c, this.now(), id, runAt)
  }

  /** Ends a job that has not started `canceled`; false when it is no longer pending. */
  cancelPending(id: string): boolean {
    return cancels.cancelPending(this.c, this.now(), id)
  }

  /** Whether a job or its parent has been asked to stop (SQLite; `repo.cancelRequested` on the store). */
  cancelRequested(id: string): boolean {
    return cancels.cancelRequested(this.c, id)
  }

  /** Sets an aggregate's state, progress or outcome (aggregates are never claimed). */
  updateAggregate(
    id: string,
    p: {
      status?: JobStatus
      unitsDone?: number
      unitsTotal?: number
      detail?: string | null
      error?: string | null
    },
  ): void {
    const now = this.now()
    const ending = p.status !== undefined && isTerminal(p.status)
    this.c
      .query(
        `UPDATE jobs SET status = coalesce(?, status), units_done = coalesce(?, units_done),
           units_total = coalesce(?, units_total), detail = coalesce(?, detail), error = coalesce(?, error),
           finished_at = CASE WHEN ? THEN ? ELSE finished_at END, updated_at = ?
         WHERE id = ?`,
      )
      .run(
        p.status ?? null,
        p.unitsDone ?? null,
        p.unitsTotal ?? null,
        p.detail ?? null,
        p.error ?? null,
        ending ? 1 : 0,
        now,
        now,
        id,
      )
  }

  /** Stores a result on a job (aggregates record what their children measured). */
  setResult(id: string, result: unknown): void {
    this.c
      .query('UPDATE jobs SET result = ?, updated_at = ? WHERE id = ?')
      .run(JSON.stringify(result), this.now(), id)
  }

  /** Deletes every job of a subject (used when the subject itself is deleted). */
  deleteBySubject(workspaceId: string, subjectId: string): number {
    return this.c
      .query('DELETE FROM jobs WHERE workspace_id = ? AND subject_id = ?')
      .run(workspaceId, subjectId).changes
  }
}
