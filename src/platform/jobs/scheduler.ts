import type { Clock } from '../clock/clock'
import type { Logger } from '../log/log'
import type { ClaimPolicy } from './fair-claim'
import {
  JobCanceledError,
  type JobContext,
  type JobHandler,
  JobOverBudgetError,
  type KindOptions,
  type SettledHook,
  TransientError,
} from './handler'
import { JobKinds } from './kinds'
import type { OwnerLocks } from './owner-locks'
import type { Job, JobQueue } from './queue'
import { type Slot, Stops, slotFor } from './stops'

export {
  type JobBudget,
  JobCanceledError,
  type JobContext,
  type JobHandler,
  type JobLane,
  JobOverBudgetError,
  type KindOptions,
  type SettledHook,
  TransientError,
} from './handler'

export interface SchedulerOptions {
  queue: JobQueue
  clock: Clock
  log: Logger
  /** Worker slots: how many jobs run at once. */
  workers: number
  /** Most slots one workspace's jobs may hold at once (clamped to 1..workers); all by default. */
  workspaceSlots?: number
  /** Slots bulk jobs never take (at most workers - 1 are kept); none by default. */
  interactiveSlots?: number
  /** How long a claim lasts without a heartbeat. */
  leaseMs: number
  /** Poll interval of the production loop. */
  pollMs: number
  /** This process's lease owner name. */
  owner: string
  /** Delay before retry number `attempt` (1-based). */
  backoff?: (attempt: number) => number
  /** Tells owners whose process has ended, so their jobs resume without waiting for the lease. */
  owners?: OwnerLocks
}

/** Exponential backoff: 1 s, 2 s, 4 s, ... capped at 5 minutes. */
export const defaultBackoff = (attempt: number): number =>
  Math.min(300_000, 1000 * 2 ** Math.max(0, attempt - 1))

/**
 * The in-process scheduler. `tick()` recovers expired leases, renews the leases of running jobs
 * (and stops those asked to stop), and claims due jobs for free worker slots, fairly between
 * workspaces (fair-claim.ts); `start()` calls it on a timer. Tests call `tick()` and `idle()`
 * themselves with a manual clock, so the queue advances step by step with no sleeps.
 */
export class Scheduler {
  private readonly kinds = new JobKinds()
  private readonly stops: Stops
  private readonly running = new Map<string, Slot>()
  private timer: ReturnType<typeof setInterval> | null = null
  private poked = false
  private lastOwnerCheck = Number.NEGATIVE_INFINITY
  private readonly backoff: (attempt: number) => number

  constructor(private readonly o: SchedulerOptions) {
    this.backoff = o.backoff ?? defaultBackoff
    this.stops = new Stops(o.queue, this.kinds, o.clock)
  }

  /**
   * Registers the handler of a job kind, optionally with a hook run when such a job settles, its
   * lane (interactive by default) and its time budget.
   */
  register(kind: string, handler: JobHandler, o: KindOptions | SettledHook = {}): void {
    this.kinds.register(kind, handler, typeof o === 'function' ? { onSettled: o } : o)
  }

  /** How free slots are filled: this scheduler's caps over the registered lanes. */
  get policy(): ClaimPolicy {
    const { workers, workspaceSlots, interactiveSlots } = this.o
    return this.kinds.policy(workers, workspaceSlots ?? workers, interactiveSlots ?? 0)
  }

  /** Number of jobs running in this process. */
  get active(): number {
    return this.running.size
  }

  /** One scheduling step; returns the jobs started. */
  tick(): Job[] {
    const q = this.o.queue
    const recovered = q.recoverExpired()
    if (recovered > 0) this.o.log.warn('jobs recovered after an expired lease', { count: recovered })
    this.resumeDeadOwners()
    this.watchRunning()
    const free = this.o.workers - this.running.size
    const claimed = q.claim(this.kinds.names, this.o.owner, this.o.leaseMs, free, this.policy)
    for (const job of claimed) {
      const slot = slotFor(job)
      slot.promise = this.run(slot).finally(() => {
        if (this.running.get(job.id) === slot) this.running.delete(job.id)
        this.poke()
      })
      this.running.set(job.id, slot)
    }
    return claimed
  }

  /** Resolves when every job running now has settled. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()].map((s) => s.promise))
  }

  /** Resolves when the job, if this scheduler runs it, has settled (at once otherwise). */
  async whenSettled(jobId: string): Promise<void> {
    await this.running.get(jobId)?.promise
  }

  /** Ticks and waits until no due job is left; for tests and the CLI. */
  async drain(): Promise<void> {
    for (;;) {
      const started = this.tick()
      if (started.length === 0 && this.running.size === 0) return
      await Promise.race([...this.running.values()].map((s) => s.promise))
    }
  }

  /**
   * Renews the leases of running jobs and stops those that must stop: asked to (a cancel, their
   * subject deleted), past their budget, or taken over by another worker (lease lost). A stopped
   * job's signal is aborted, so its requests end now; one still running a lease after that loses
   * its slot, so a handler that ignores its signal cannot keep a canceled job alive by heartbeat.
   */
  private watchRunning(): void {
    const q = this.o.queue
    const now = this.o.clock.now().getTime()
    for (const slot of [...this.running.values()]) {
      if (slot.stop && now - slot.stoppedAt >= this.o.leaseMs) {
        this.abandon(slot)
        continue
      }
      const held = q.heartbeat(slot.job.id, this.o.owner, this.o.leaseMs, {})
      const reason = held ? this.stops.reasonOf(slot.job) : 'lease_lost'
      if (reason) this.stops.stop(slot, reason)
    }
  }

  /** Takes the slot of a job that did not stop within a lease of being told to, and writes its end. */
  private abandon(slot: Slot): void {
    const { job, stop } = slot
    slot.abandoned = true
    this.running.delete(job.id)
    this.o.log.error('a job did not stop within a lease of being asked to; its slot is taken back', {
      job_id: job.id,
      kind: job.kind,
      reason: stop,
    })
    if (stop === 'lease_lost') return
    if (stop === 'over_budget') {
      this.o.queue.finish(job.id, this.o.owner, 'failed', { error: this.stops.errorOf(job, stop).message })
    } else this.o.queue.finish(job.id, this.o.owner, 'canceled', {})
    this.runHook(job)
  }

  /**
   * Asks the running loop for a tick as soon as the event loop is free (new work was queued, or a
   * slot was freed), instead of waiting for the next poll. Does nothing when the loop is not started,
   * so tests that step the queue by hand stay deterministic.
   */
  poke(): void {
    if (!this.timer || this.poked) return
    this.poked = true
    setImmediate(() => {
      this.poked = false
      if (!this.timer) return
      try {
        this.tick()
      } catch (e) {
        this.o.log.error('scheduler tick failed', { error: (e as Error).message })
      }
    })
  }

  /**
   * Resumes at once the jobs of owners whose process has ended (a crash or kill -9 of this or
   * another server on the same data dir): their leases would otherwise hold the work for a whole
   * lease. Checked on start and then at most four times a lease.
   */
  private resumeDeadOwners(): void {
    const owners = this.o.owners
    const now = this.o.clock.now().getTime()
    if (!owners || now - this.lastOwnerCheck < this.o.leaseMs / 4) return
    this.lastOwnerCheck = now
    for (const owner of this.o.queue.otherOwners(this.o.owner)) {
      if (!owners.isDead(owner)) continue
      const count = this.o.queue.recoverOwner(owner)
      if (count > 0) this.o.log.warn('jobs resumed from a process that stopped', { count, owner })
    }
  }

  /** Starts the production loop. */
  start(): void {
    if (this.timer) return
    this.o.owners?.hold(this.o.owner)
    this.timer = setInterval(() => {
      try {
        this.tick()
      } catch (e) {
        this.o.log.error('scheduler tick failed', { error: (e as Error).message })
      }
    }, this.o.pollMs)
    this.tick()
  }

  /** Stops claiming and waits for running jobs to settle. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    await this.idle()
    this.o.owners?.release(this.o.owner)
  }

  private async run(slot: Slot): Promise<void> {
    const q = this.o.queue
    const { owner, leaseMs } = this.o
    const { job } = slot
    const handler = this.kinds.handler(job.kind)!
    const ctx: JobContext = {
      job,
      signal: slot.controller.signal,
      progress: (p) => {
        q.heartbeat(job.id, owner, leaseMs, p)
      },
      checkpoint: () => {
        const reason = slot.stop ?? this.stops.reasonOf(job)
        if (!reason) return
        this.stops.stop(slot, reason)
        throw this.stops.errorOf(job, reason)
      },
    }
    try {
      ctx.checkpoint()
      const result = await handler(ctx)
      if (slot.abandoned || slot.stop === 'lease_lost') return
      q.finish(job.id, owner, 'succeeded', { result })
    } catch (e) {
      if (slot.abandoned) return
      // A stop wins over whatever error it caused: an aborted request may surface as a network
      // failure, which would otherwise be retried.
      const reason = slot.stop ?? this.stops.reasonOf(job)
      if (reason === 'lease_lost') {
        this.o.log.warn('job stopped: another worker took it over', { job_id: job.id, kind: job.kind })
        return
      }
      const message = e instanceof Error ? e.message : String(e)
      if (reason === 'canceled' || e instanceof JobCanceledError) q.finish(job.id, owner, 'canceled', {})
      else if (reason === 'over_budget' || e instanceof JobOverBudgetError) {
        q.finish(job.id, owner, 'failed', { error: this.stops.errorOf(job, 'over_budget').message })
      } else if (e instanceof TransientError && job.attempts < job.maxAttempts) {
        q.retry(job.id, owner, message, e.retryAfterMs ?? this.backoff(job.attempts))
      } else {
        if (!(e instanceof TransientError))
          this.o.log.error('job failed', { job_id: job.id, kind: job.kind, error: message })
        q.finish(job.id, owner, 'failed', { error: message })
      }
    }
    this.runHook(job)
  }

  private runHook(job: Job): void {
    const hook = this.kinds.hook(job.kind)
    const settled = this.o.queue.get(job.id)
    if (hook && settled) {
      try {
        hook(settled)
      } catch (e) {
        this.o.log.error('job settle hook failed', { job_id: job.id, error: (e as Error).message })
      }
    }
  }
}
