// The worker side of the job queue: claiming due jobs, holding them by lease, ending them, and
// recovering those whose worker died. Every change is one SQL statement guarded by the expected
// state and lease owner, so two workers can never both own a job.
import type { Clock } from '../clock/clock'
import type { Db } from '../db/db'
import { type ClaimPolicy, OPEN_POLICY, pickFairly, readCandidates, readRunning } from './fair-claim'
import { decode, JOB_COLUMNS, type Job, type JobRow } from './job'

/** Claims, heartbeats, outcomes and lease recovery of the jobs table. */
export class JobLeases {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  private get c() {
    return this.db.$client
  }

  private now(): number {
    return this.clock.now().getTime()
  }

  /**
   * Claims up to `limit` due pending jobs of the given kinds for `owner`, with a lease until
   * now + leaseMs, chosen by `policy` (fair-claim.ts: a cap a workspace, slots long-running kinds
   * cannot take, round robin between workspaces, oldest first within one). The candidates are read
   * and claimed in one transaction, and the UPDATE is guarded by the pending status, so a job is
   * never claimed twice even by another process that read the same candidates.
   */
  claim(
    kinds: readonly string[],
    owner: string,
    leaseMs: number,
    limit: number,
    policy: ClaimPolicy = OPEN_POLICY,
  ): Job[] {
    if (kinds.length === 0 || limit <= 0) return []
    const now = this.now()
    return this.c
      .transaction(() => {
        const running = readRunning(this.c, owner, policy)
        const candidates = readCandidates(this.c, kinds, now, Math.min(limit, policy.perWorkspace))
        const ids = pickFairly(candidates, running, policy, limit)
        if (ids.length === 0) return []
        const marks = ids.map(() => '?').join(',')
        const rows = this.c
          .query<JobRow, (string | number)[]>(
            `UPDATE jobs SET status = 'running', lease_owner = ?, lease_until = ?, attempts = attempts + 1,
             started_at = coalesce(started_at, ?), updated_at = ?
           WHERE id IN (${marks}) AND status = 'pending'
           RETURNING ${JOB_COLUMNS}`,
          )
          .all(owner, now + leaseMs, now, now, ...ids)
        // RETURNING gives no order guarantee: the jobs start in the order they were chosen.
        const byId = new Map(rows.map((r) => [r.id, r]))
        return ids.flatMap((id) => {
          const r = byId.get(id)
          return r ? [decode(r)] : []
        })
        // Immediate: the write lock is taken before the reads, so another process cannot claim in
        // between and turn the UPDATE into a busy error on a stale snapshot.
      })
      .immediate()
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
}
