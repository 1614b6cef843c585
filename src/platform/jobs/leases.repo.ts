// The worker side of the job queue on the store, on either engine: claims, heartbeats, outcomes
// and lease recovery. Every change is one guarded statement (the expected status and lease owner)
// in a unit, so two workers, in one process or in several sharing the database, can never both own
// a job.
import { and, eq, gte, isNotNull, lt, ne, SQL, sql } from 'drizzle-orm'
import type { Clock } from '../clock/clock'
import { Prepared, PreparedVariants } from '../db/prepared'
import type { Store } from '../db/store'
import { ClaimReads, take } from './claim'
import { type ClaimPolicy, OPEN_POLICY, pickFairly } from './fair-claim'
import type { Job, JobRow } from './job'
import { decodeRow } from './jobs.repo'
import { jobs } from './jobs.tables'

type Progress = { unitsDone?: number; unitsTotal?: number; detail?: string }

/** Claims, heartbeats, outcomes and lease recovery of the jobs table, on the store. */
export class LeasesRepo {
  private readonly reads: ClaimReads
  /** `held`'s updates by the shape of what they set (a handful: progress, outcomes, retries). */
  private readonly guarded = new PreparedVariants<string, Prepared<Pick<JobRow, 'id'>[]>>()
  private readonly recovering = new PreparedVariants<
    string,
    Record<'failed' | 'back', Prepared<Pick<JobRow, 'id'>[]>>
  >()

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {
    this.reads = new ClaimReads(store)
  }

  private get j() {
    return this.store.table(jobs)
  }

  private now(): number {
    return this.clock.now().getTime()
  }

  /**
   * Claims up to `limit` due pending jobs of `kinds` for `owner`, chosen by `policy`
   * (fair-claim.ts), in one unit: read what the owner runs and the candidates, choose, take the
   * chosen ones guarded by their status (claim.ts locks them on PostgreSQL). Returns them in the
   * order chosen.
   */
  async claim(
    kinds: readonly string[],
    owner: string,
    leaseMs: number,
    limit: number,
    policy: ClaimPolicy = OPEN_POLICY,
  ): Promise<Job[]> {
    if (kinds.length === 0 || limit <= 0) return []
    const now = this.now()
    const j = this.j
    return this.store.unit(async () => {
      const running = await this.reads.runningOf(owner, policy)
      const candidates = await this.reads.candidatesOf(kinds, now, Math.min(limit, policy.perWorkspace))
      const ids = pickFairly(candidates, running, policy, limit)
      if (ids.length === 0) return []
      const rows = await take(this.store, ids, {
        status: 'running',
        leaseOwner: owner,
        leaseUntil: now + leaseMs,
        attempts: sql`${j.attempts} + 1`,
        startedAt: sql`coalesce(${j.startedAt}, ${now})`,
        updatedAt: now,
      })
      const byId = new Map(rows.map((r) => [r.id, r]))
      return ids.flatMap((id) => {
        const r = byId.get(id)
        return r ? [decodeRow(r)] : []
      })
    })
  }

  /**
   * One guarded update of a running job of `owner`'s, in a unit; false when the lease was lost. Its
   * statement is prepared once per shape of `set` (the columns it sets); a value that is SQL stays in
   * the statement, so it must be the same SQL at every call (`finish`'s `units_total`).
   */
  private async held(id: string, owner: string, set: Record<string, unknown>): Promise<boolean> {
    const fields = Object.keys(set)
    const shape = fields.map((k) => (set[k] instanceof SQL ? `${k}=sql` : k)).join(',')
    const update = this.guarded.of(shape, () => {
      const j = this.j
      const ph = sql.placeholder
      const values = Object.fromEntries(fields.map((k) => [k, set[k] instanceof SQL ? set[k] : ph(k)]))
      return new Prepared(this.store, (db) =>
        db
          .update(j)
          .set(values)
          .where(and(eq(j.id, ph('id')), eq(j.status, 'running'), eq(j.leaseOwner, ph('owner'))))
          .returning({ id: j.id })
          .prepare(),
      )
    })
    const params: Record<string, unknown> = { id, owner }
    for (const k of fields) if (!(set[k] instanceof SQL)) params[k] = set[k]
    return this.store.unit(async () => (await update.execute(params)).length > 0)
  }

  /** Extends a lease and records progress; false when the lease was lost (the job moved on). */
  heartbeat(id: string, owner: string, leaseMs: number, p: Progress): Promise<boolean> {
    const now = this.now()
    return this.held(id, owner, {
      leaseUntil: now + leaseMs,
      updatedAt: now,
      ...(p.unitsDone === undefined ? {} : { unitsDone: p.unitsDone }),
      ...(p.unitsTotal === undefined ? {} : { unitsTotal: p.unitsTotal }),
      ...(p.detail === undefined ? {} : { detail: p.detail }),
    })
  }

  /** Ends a claimed job; false when the lease was lost meanwhile. */
  finish(
    id: string,
    owner: string,
    status: 'succeeded' | 'failed' | 'canceled',
    out: { result?: unknown; error?: string },
  ): Promise<boolean> {
    const now = this.now()
    return this.held(id, owner, {
      status,
      result: out.result === undefined ? null : JSON.stringify(out.result),
      error: out.error ?? null,
      leaseOwner: null,
      leaseUntil: null,
      finishedAt: now,
      updatedAt: now,
      ...(status === 'succeeded' ? { unitsDone: sql`${this.j.unitsTotal}` } : {}),
    })
  }

  /**
   * Puts a claimed job back in the queue to run again after `delayMs` (a transient failure; with
   * `counted` false, a wait for another job's work, whose attempt is given back).
   */
  retry(id: string, owner: string, error: string, delayMs: number, counted = true): Promise<boolean> {
    const now = this.now()
    return this.held(id, owner, {
      status: 'pending',
      error,
      runAt: now + delayMs,
      ...(counted ? {} : { attempts: sql`${this.j.attempts} - 1` }),
      leaseOwner: null,
      leaseUntil: null,
      updatedAt: now,
    })
  }

  /** Returns jobs whose lease expired to the queue (those out of attempts fail); how many. */
  recoverExpired(): Promise<number> {
    return this.recover('expired', { now: this.now() })
  }

  /** Puts the running jobs of an owner whose process has ended back to pending at once; how many. */
  recoverOwner(owner: string): Promise<number> {
    return this.recover('owner', { now: this.now(), owner })
  }

  /**
   * Fails the running jobs `kind` names that are out of attempts and puts the others back to pending
   * (the scheduler's every step looks for expired leases): two statements prepared once per handle.
   */
  private recover(kind: 'expired' | 'owner', params: { now: number; owner?: string }): Promise<number> {
    const { failed, back } = this.recovering.of(kind, () => {
      const j = this.j
      const ph = (name: string) => sql.placeholder(name) as never
      const which =
        kind === 'expired'
          ? and(isNotNull(j.leaseUntil), lt(j.leaseUntil, ph('now')))
          : eq(j.leaseOwner, ph('owner'))
      const running = and(eq(j.status, 'running'), which)
      const off = { leaseOwner: null, leaseUntil: null, updatedAt: ph('now') }
      return {
        failed: new Prepared(this.store, (db) =>
          db
            .update(j)
            .set({ status: 'failed', error: 'lease expired too many times', finishedAt: ph('now'), ...off })
            .where(and(running, gte(j.attempts, j.maxAttempts)))
            .returning({ id: j.id })
            .prepare(),
        ),
        back: new Prepared(this.store, (db) =>
          db
            .update(j)
            .set({ status: 'pending', runAt: ph('now'), ...off })
            .where(running)
            .returning({ id: j.id })
            .prepare(),
        ),
      }
    })
    return this.store.unit(async () => {
      const ended = await failed.execute(params)
      const again = await back.execute(params)
      return ended.length + again.length
    })
  }

  /** The lease owners of running jobs other than `self`. */
  async otherOwners(self: string): Promise<string[]> {
    const j = this.j
    const rows = await this.store.db
      .selectDistinct({ owner: j.leaseOwner })
      .from(j)
      .where(and(eq(j.status, 'running'), isNotNull(j.leaseOwner), ne(j.leaseOwner, self)))
    return rows.map((r) => r.owner!)
  }
}
