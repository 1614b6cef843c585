import type { Clock } from '../clock/clock'
import { newId, type Random } from '../crypto/random'
import type { Db } from '../db/db'

export type JobStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'canceled'

/** A job as the queue sees it (payload and result decoded). */
export interface Job {
  id: string
  workspaceId: string
  subjectId: string | null
  parentId: string | null
  kind: string
  status: JobStatus
  payload: Record<string, unknown>
  result: unknown
  detail: string | null
  error: string | null
  unitsDone: number
  unitsTotal: number
  attempts: number
  maxAttempts: number
  runAt: number
  leaseOwner: string | null
  leaseUntil: number | null
  cancelRequested: boolean
  createdAt: number
  startedAt: number | null
  finishedAt: number | null
  updatedAt: number
}

/** What a new job needs; aggregates are created `running` and never claimed. */
export interface NewJob {
  workspaceId: string
  kind: string
  subjectId?: string | null
  parentId?: string | null
  payload?: Record<string, unknown>
  maxAttempts?: number
  unitsTotal?: number
  detail?: string | null
  /** `running` for an aggregate that only tracks children. */
  status?: 'pending' | 'running'
}

interface Row {
  id: string
  workspace_id: string
  subject_id: string | null
  parent_id: string | null
  kind: string
  status: JobStatus
  payload: string
  result: string | null
  detail: string | null
  error: string | null
  units_done: number
  units_total: number
  attempts: number
  max_attempts: number
  run_at: number
  lease_owner: string | null
  lease_until: number | null
  cancel_requested: number
  created_at: number
  started_at: number | null
  finished_at: number | null
  updated_at: number
}

const TERMINAL: readonly JobStatus[] = ['succeeded', 'failed', 'canceled']

/** True for a status a job never leaves. */
export function isTerminal(s: JobStatus): boolean {
  return TERMINAL.includes(s)
}

function decode(r: Row): Job {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    subjectId: r.subject_id,
    parentId: r.parent_id,
    kind: r.kind,
    status: r.status,
    payload: JSON.parse(r.payload) as Record<string, unknown>,
    result: r.result === null ? null : JSON.parse(r.result),
    detail: r.detail,
    error: r.error,
    unitsDone: r.units_done,
    unitsTotal: r.units_total,
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    runAt: r.run_at,
    leaseOwner: r.lease_owner,
    leaseUntil: r.lease_until,
    cancelRequested: r.cancel_requested === 1,
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    updatedAt: r.updated_at,
  }
}

/**
 * The data functions of the durable job queue. Every state change is one SQL statement guarded
 * by the expected state (and lease owner), so two workers can never both own a job.
 */
export class JobQueue {
  private listeners: (() => void)[] = []

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly random: Random,
  ) {}

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

  /** Adds a job; returns it. */
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
        now,
        now,
        status === 'running' ? now : null,
        now,
      )
    for (const fn of this.listeners) fn()
    return this.get(id)!
  }

  /** One job by id, or null. */
  get(id: string): Job | null {
    const r = this.c.query<Row, [string]>('SELECT * FROM jobs WHERE id = ?').get(id)
    return r ? decode(r) : null
  }

  /** The children of an aggregate, oldest first. */
  children(parentId: string): Job[] {
    return this.c
      .query<Row, [string]>('SELECT * FROM jobs WHERE parent_id = ? ORDER BY rowid')
      .all(parentId)
      .map(decode)
  }

  /** Jobs of one subject in a workspace, newest first. */
  listBySubject(workspaceId: string, subjectId: string): Job[] {
    return this.c
      .query<Row, [string, string]>(
        'SELECT * FROM jobs WHERE workspace_id = ? AND subject_id = ? ORDER BY rowid DESC',
      )
      .all(workspaceId, subjectId)
      .map(decode)
  }

  /**
   * Claims up to `limit` due pending jobs of the given kinds for `owner`, oldest first, with a lease
   * until now + leaseMs. One UPDATE ... RETURNING, so a job is never claimed twice.
   */
  claim(kinds: readonly string[], owner: string, leaseMs: number, limit: number): Job[] {
    if (kinds.length === 0 || limit <= 0) return []
    const now = this.now()
    const marks = kinds.map(() => '?').join(',')
    return (
      this.c
        .query<Row, (string | number)[]>(
          `UPDATE jobs SET status = 'running', lease_owner = ?, lease_until = ?, attempts = attempts + 1,
           started_at = coalesce(started_at, ?), updated_at = ?
         WHERE id IN (SELECT id FROM jobs WHERE status = 'pending' AND run_at <= ? AND kind IN (${marks})
                      ORDER BY run_at, rowid LIMIT ?)
         RETURNING *, rowid AS seq`,
        )
        .all(owner, now + leaseMs, now, now, now, ...kinds, limit)
        // RETURNING gives no order guarantee; rowid is the insertion order.
        .sort(
          (a, b) =>
            a.run_at - b.run_at || (a as Row & { seq: number }).seq - (b as Row & { seq: number }).seq,
        )
        .map(decode)
    )
  }

  /** Extends a lease and records progress; false when the lease was lost (the job moved on). */
  heartbeat(
    id: string,
    owner: string,
    leaseMs: number,
    p: { unitsDone?: number; unitsTotal?: number; detail?: string },
  ) {
    const now = this.now()
    return (
      this.c
        .query(
          `UPDATE jobs SET lease_until = ?, units_done = coalesce(?, units_done), units_total = coalesce(?, units_total),
             detail = coalesce(?, detail), updated_at = ?
           WHERE id = ? AND status = 'running' AND lease_owner = ?`,
        )
        .run(now + leaseMs, p.unitsDone ?? null, p.unitsTotal ?? null, p.detail ?? null, now, id, owner)
        .changes > 0
    )
  }

  /** Ends a claimed job; false when the lease was lost meanwhile. */
  finish(
    id: string,
    owner: string,
    status: 'succeeded' | 'failed' | 'canceled',
    out: { result?: unknown; error?: string },
  ) {
    const now = this.now()
    return (
      this.c
        .query(
          `UPDATE jobs SET status = ?, result = ?, error = ?, lease_owner = NULL, lease_until = NULL, finished_at = ?,
             updated_at = ?, units_done = CASE WHEN ? = 'succeeded' THEN units_total ELSE units_done END
           WHERE id = ? AND status = 'running' AND lease_owner = ?`,
        )
        .run(
          status,
          out.result === undefined ? null : JSON.stringify(out.result),
          out.error ?? null,
          now,
          now,
          status,
          id,
          owner,
        ).changes > 0
    )
  }

  /** Puts a claimed job back in the queue to run again after `delayMs` (transient failure). */
  retry(id: string, owner: string, error: string, delayMs: number): boolean {
    const now = this.now()
    return (
      this.c
        .query(
          `UPDATE jobs SET status = 'pending', error = ?, run_at = ?, lease_owner = NULL, lease_until = NULL, updated_at = ?
           WHERE id = ? AND status = 'running' AND lease_owner = ?`,
        )
        .run(error, now + delayMs, now, id, owner).changes > 0
    )
  }

  /**
   * Returns jobs whose lease expired (their worker died or the process restarted) to the queue.
   * Jobs that used up their attempts fail instead. Returns how many were recovered.
   */
  recoverExpired(): number {
    const now = this.now()
    return this.recover('lease_until IS NOT NULL AND lease_until < ?', [now])
  }

  /** The lease owners of running jobs other than `self`. */
  otherOwners(self: string): string[] {
    return this.c
      .query<{ lease_owner: string }, [string]>(
        "SELECT DISTINCT lease_owner FROM jobs WHERE status = 'running' AND lease_owner IS NOT NULL AND lease_owner <> ?",
      )
      .all(self)
      .map((r) => r.lease_owner)
  }

  /**
   * Puts the running jobs of an owner whose process has ended back to pending at once (its lease
   * has not expired, but nobody will renew it); a job out of attempts fails instead.
   */
  recoverOwner(owner: string): number {
    return this.recover('lease_owner = ?', [owner])
  }

  private recover(where: string, params: (string | number)[]): number {
    const now = this.now()
    return this.c.transaction(() => {
      const failed = this.c
        .query(
          `UPDATE jobs SET status = 'failed', error = 'lease expired too many times', lease_owner = NULL,
             lease_until = NULL, finished_at = ?, updated_at = ?
           WHERE status = 'running' AND attempts >= max_attempts AND ${where}`,
        )
        .run(now, now, ...params).changes
      const back = this.c
        .query(
          `UPDATE jobs SET status = 'pending', lease_owner = NULL, lease_until = NULL, run_at = ?, updated_at = ?
           WHERE status = 'running' AND ${where}`,
        )
        .run(now, now, ...params).changes
      return failed + back
    })()
  }

  /**
   * Sets the cooperative cancel flag on a job and its children; pending children end `canceled`
   * at once, running ones stop when their worker next reads the flag.
   */
  requestCancel(id: string): void {
    const now = this.now()
    this.c.transaction(() => {
      this.c
        .query(
          "UPDATE jobs SET cancel_requested = 1, updated_at = ? WHERE (id = ? OR parent_id = ?) AND status IN ('pending','running')",
        )
        .run(now, id, id)
      this.c
        .query(
          `UPDATE jobs SET status = 'canceled', finished_at = ?, updated_at = ?
           WHERE parent_id = ? AND status = 'pending'`,
        )
        .run(now, now, id)
    })()
  }

  /** Whether a job or its parent has been asked to stop. */
  cancelRequested(id: string): boolean {
    const r = this.c
      .query<{ c: number }, [string]>(
        `SELECT max(j.cancel_requested, coalesce(p.cancel_requested, 0)) AS c
         FROM jobs j LEFT JOIN jobs p ON p.id = j.parent_id WHERE j.id = ?`,
      )
      .get(id)
    return r?.c === 1
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
