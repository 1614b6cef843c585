import type { Clock } from '../clock/clock'
import type { Logger } from '../log/log'
import type { OwnerLocks } from './owner-locks'
import type { Job, JobQueue } from './queue'

/** Throw from a handler for a failure worth retrying (a peer down, a busy database). */
export class TransientError extends Error {
  override name = 'TransientError'
  constructor(
    message: string,
    /** When the peer said how long to wait (a `Retry-After`), the retry waits that long instead of the backoff. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message)
  }
}

/** Thrown by `ctx.checkpoint()` when the job was asked to stop. */
export class JobCanceledError extends Error {
  override name = 'JobCanceledError'
}

/** What a running handler can do besides its work. */
export interface JobContext {
  job: Job
  /** Records progress and extends the lease. */
  progress(p: { unitsDone?: number; unitsTotal?: number; detail?: string }): void
  /** Reads the cooperative cancel flag; throws JobCanceledError when set. Call between units of work. */
  checkpoint(): void
}

/** Runs one job; its return value is stored as the job's result. */
export type JobHandler = (ctx: JobContext) => Promise<unknown>

/** Called after a job settles (succeeded, failed, canceled or queued for a retry). */
export type SettledHook = (job: Job) => void

export interface SchedulerOptions {
  queue: JobQueue
  clock: Clock
  log: Logger
  /** Worker slots: how many jobs run at once. */
  workers: number
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
 * and claims due jobs for free worker slots; `start()` calls it on a timer. Tests call `tick()` and
 * `idle()` themselves with a manual clock, so the queue advances step by step with no sleeps.
 */
export class Scheduler {
  private readonly handlers = new Map<string, JobHandler>()
  private readonly hooks = new Map<string, SettledHook>()
  private readonly running = new Map<string, Promise<void>>()
  private timer: ReturnType<typeof setInterval> | null = null
  private poked = false
  private lastOwnerCheck = Number.NEGATIVE_INFINITY
  private readonly backoff: (attempt: number) => number

  constructor(private readonly o: SchedulerOptions) {
    this.backoff = o.backoff ?? defaultBackoff
  }

  /** Registers the handler of a job kind (and optionally a hook run when such a job settles). */
  register(kind: string, handler: JobHandler, onSettled?: SettledHook): void {
    this.handlers.set(kind, handler)
    if (onSettled) this.hooks.set(kind, onSettled)
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
    for (const id of this.running.keys()) q.heartbeat(id, this.o.owner, this.o.leaseMs, {})
    const free = this.o.workers - this.running.size
    const claimed = q.claim([...this.handlers.keys()], this.o.owner, this.o.leaseMs, free)
    for (const job of claimed) {
      const p = this.run(job).finally(() => {
        this.running.delete(job.id)
        this.poke()
      })
      this.running.set(job.id, p)
    }
    return claimed
  }

  /** Resolves when every job running now has settled. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()])
  }

  /** Ticks and waits until no due job is left; for tests and the CLI. */
  async drain(): Promise<void> {
    for (;;) {
      const started = this.tick()
      if (started.length === 0 && this.running.size === 0) return
      await Promise.race([...this.running.values()])
    }
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

  private async run(job: Job): Promise<void> {
    const q = this.o.queue
    const { owner, leaseMs } = this.o
    const handler = this.handlers.get(job.kind)!
    const ctx: JobContext = {
      job,
      progress: (p) => {
        q.heartbeat(job.id, owner, leaseMs, p)
      },
      checkpoint: () => {
        if (q.cancelRequested(job.id)) throw new JobCanceledError('canceled')
      },
    }
    try {
      if (q.cancelRequested(job.id)) throw new JobCanceledError('canceled')
      const result = await handler(ctx)
      q.finish(job.id, owner, 'succeeded', { result })
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e)
      if (e instanceof JobCanceledError) q.finish(job.id, owner, 'canceled', {})
      else if (e instanceof TransientError && job.attempts < job.maxAttempts) {
        q.retry(job.id, owner, message, e.retryAfterMs ?? this.backoff(job.attempts))
      } else {
        if (!(e instanceof TransientError))
          this.o.log.error('job failed', { job_id: job.id, kind: job.kind, error: message })
        q.finish(job.id, owner, 'failed', { error: message })
      }
    }
    const hook = this.hooks.get(job.kind)
    const settled = q.get(job.id)
    if (hook && settled) {
      try {
        hook(settled)
      } catch (e) {
        this.o.log.error('job settle hook failed', { job_id: job.id, error: (e as Error).message })
      }
    }
  }
}
