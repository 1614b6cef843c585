import type { Clock } from '../clock/clock'
import type { Random } from '../crypto/random'
import type { Db } from '../db/db'
import { type Store, sqliteStore } from '../db/store'
import type { Job, NewJob } from './job'
import { JobsRepo } from './jobs.repo'
import { LeasesRepo } from './leases.repo'
import { hearJobs, tellEnqueued } from './wake'

export { type ClaimPolicy, OPEN_POLICY } from './fair-claim'
export { isTerminal, type Job, type JobStatus, type NewJob, type ReadableJobs } from './job'

/**
 * The durable job queue, on the store (either engine): `add` in the caller's unit, `repo`
 * (jobs.repo.ts: reads, cancels, aggregates) and `leaseRepo` (leases.repo.ts: claims and leases,
 * which the scheduler runs on). Every state change is one statement guarded by the expected state
 * and lease owner, so two workers can never both own a job.
 */
export class JobQueue {
  private listeners: (() => void)[] = []
  /** The queue on the store, on either engine: enqueue, reads, cancels, aggregates. */
  readonly repo: JobsRepo
  /** The worker side on the store: claims, leases, outcomes (the scheduler's). */
  readonly leaseRepo: LeasesRepo

  /** On `store`, or without one on the store of the SQLite file `db`. */
  constructor(db: Db, clock: Clock, random: Random, store?: Store) {
    this.repo = new JobsRepo(store ?? sqliteStore(db), clock, random)
    this.leaseRepo = new LeasesRepo(this.repo.store, clock)
    // Another process's enqueue or cancel, told on PostgreSQL (wake.ts), as if made here.
    hearJobs(this.store, { enqueued: () => this.notify(), canceled: (ids) => this.repo.heardCancel(ids) })
  }

  /** The store the queue runs on. */
  get store(): Store {
    return this.repo.store
  }

  /**
   * Calls `fn` after every enqueue committed, by this process or (on PostgreSQL, told by notice) by
   * another: the scheduler uses it to start new work without waiting a poll.
   */
  onEnqueue(fn: () => void): void {
    this.listeners.push(fn)
  }

  /**
   * Adds a job in the caller's unit (store.unit; throws outside one), so it commits or rolls back
   * with the change that asked for it; `onEnqueue` listeners hear of it once that unit has committed,
   * in every process on PostgreSQL.
   */
  async add(j: NewJob): Promise<Job> {
    const job = await this.repo.insert(j)
    await tellEnqueued(this.store)
    if (this.listeners.length > 0) this.store.afterCommit(() => this.notify())
    return job
  }

  private notify(): void {
    for (const fn of this.listeners) fn()
  }
}
