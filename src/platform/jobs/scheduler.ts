import type { ClaimPolicy } from './fair-claim'
import type { JobHandler, KindOptions, SettledHook } from './handler'
import { JobKinds } from './kinds'
import { holdOwner } from './owner-locks'
import type { Job } from './queue'
import { type RunDeps, runJob, settled } from './run-job'
import { defaultBackoff, type SchedulerOptions } from './scheduler-options'
import { givenUp, type Slot, Stops, slotFor } from './stops'

export {
  type JobBudget,
  JobCanceledError,
  type JobContext,
  type JobHandler,
  type JobLane,
  JobOverBudgetError,
  JobWaitingError,
  type KindOptions,
  type SettledHook,
  TransientError,
} from './handler'
export { defaultBackoff, type SchedulerOptions } from './scheduler-options'

/**
 * The in-process scheduler. `step()` recovers expired leases, renews the leases of running jobs
 * (stopping those asked to, and giving up those unrenewed for a lease while the database does not
 * answer), and claims due jobs for free worker slots, fairly between workspaces (fair-claim.ts),
 * unless its clock is off from the database's (clock-check.ts) or its owner lock is not held, on the
 * queue's store (either engine), one step at a time; `start()` calls it on a timer. Tests call
 * `step()` and `idle()` with a manual clock, so the queue advances step by step with no sleeps.
 */
export class Scheduler {
  private readonly kinds = new JobKinds()
  private readonly stops: Stops
  private readonly running = new Map<string, Slot>()
  private timer: ReturnType<typeof setInterval> | null = null
  private poked = false
  private lastOwnerCheck = Number.NEGATIVE_INFINITY
  private readonly deps: RunDeps
  /** Until the owner lock asked for at start is held and the step after it asked for (`idle` waits). */
  private held: Promise<void> = Promise.resolve()
  /** The step in progress, if any: steps run one at a time. */
  private stepping: Promise<unknown> = Promise.resolve()
  /** Ends being written of jobs whose slots a step took back (awaited by that step). */
  private readonly abandoning: Promise<void>[] = []
  /** A loop step is under way; another was asked for meanwhile. */
  private looping = false
  private again = false
  /** The last step failed (the database may not answer); jobs were given up for want of renewals. */
  private failing = false
  private fenced = false

  constructor(private readonly o: SchedulerOptions) {
    this.stops = new Stops(o.queue, this.kinds, o.clock)
    // A cancel committed stops its jobs here at once (their next checkpoint throws): this process's,
    // or another's when its notice arrives (PostgreSQL, wake.ts); one missed is read at the next step.
    o.queue.repo.onCancel((ids) => {
      const asked = new Set(ids)
      for (const slot of this.running.values()) {
        const { id, parentId } = slot.job
        if (asked.has(id) || (parentId !== null && asked.has(parentId))) this.stops.stop(slot, 'canceled')
      }
    })
    this.deps = {
      queue: o.queue,
      log: o.log,
      owner: o.owner,
      leaseMs: o.leaseMs,
      stops: this.stops,
      backoff: o.backoff ?? defaultBackoff,
      hook: (kind: string): SettledHook | undefined => this.kinds.hook(kind),
    }
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

  /**
   * One scheduling step on the store (either engine), after any step in progress; returns the jobs
   * started.
   */
  step(): Promise<Job[]> {
    const next = this.stepping.then(() => this.stepNow())
    this.stepping = next.catch(() => undefined)
    return next
  }

  private async stepNow(): Promise<Job[]> {
    // While steps fail (the database does not answer), jobs whose leases lapsed unrenewed are given
    // up first, asking the database nothing. A step that passes asks it whose they are instead.
    if (this.failing) this.fenceUnrenewed()
    try {
      return await this.stepOnce()
    } catch (e) {
      this.failing = true
      this.fenceUnrenewed()
      throw e
    }
  }

  private async stepOnce(): Promise<Job[]> {
    const q = this.o.queue.leaseRepo
    // A clock off from the database's would take live leases for expired and write short ones.
    const clockRight = (await this.o.clockCheck?.ok()) ?? true
    const recovered = clockRight ? await q.recoverExpired() : 0
    if (recovered > 0) this.o.log.warn('jobs recovered after an expired lease', { count: recovered })
    await this.resumeDeadOwners()
    for (const slot of this.watched()) {
      const at = this.o.clock.now().getTime()
      const held = await q.heartbeat(slot.job.id, this.o.owner, this.o.leaseMs, {})
      if (held) slot.renewedAt = at
      const reason = held ? await this.stops.reasonNow(slot.job) : 'lease_lost'
      if (reason) this.stops.stop(slot, reason)
    }
    await Promise.all(this.abandoning.splice(0))
    if (this.fenced) this.o.log.info('the database answers again: this process claims jobs again')
    this.fenced = false
    this.failing = false
    // While its owner lock is not held, another process may take this one for dead: no claims.
    if (!clockRight || !(this.o.owners?.holding?.() ?? true)) return []
    const free = this.o.workers - this.running.size
    return this.started(await q.claim(this.kinds.names, this.o.owner, this.o.leaseMs, free, this.policy))
  }

  /** Starts the claimed jobs in slots of their own. */
  private started(claimed: Job[]): Job[] {
    for (const job of claimed) {
      const slot = slotFor(job, this.o.clock.now().getTime())
      slot.promise = runJob(slot, this.kinds.handler(job.kind)!, this.deps).finally(() => {
        if (this.running.get(job.id) === slot) this.running.delete(job.id)
        this.poke()
      })
      this.running.set(job.id, slot)
    }
    return claimed
  }

  /** Resolves when every job running now has settled. */
  async idle(): Promise<void> {
    await this.held
    await this.stepping
    while (this.running.size > 0) await Promise.all([...this.running.values()].map((s) => s.promise))
  }

  /** Resolves when the job, if this scheduler runs it, has settled (at once otherwise). */
  async whenSettled(jobId: string): Promise<void> {
    await this.running.get(jobId)?.promise
  }

  /** Ticks and waits until no due job is left; for tests and the CLI. */
  async drain(): Promise<void> {
    for (;;) {
      const started = await this.step()
      if (started.length === 0 && this.running.size === 0) return
      await Promise.race([...this.running.values()].map((s) => s.promise))
    }
  }

  /**
   * The running jobs whose leases a step renews, stopping those that must stop: asked to (a cancel,
   * their subject deleted), past their budget, or taken over by another worker (lease lost). A
   * stopped job's signal is aborted, so its requests end now; one still running a lease after that
   * loses its slot here, so a handler that ignores its signal cannot keep a canceled job alive by
   * heartbeat.
   */
  private watched(): Slot[] {
    const now = this.o.clock.now().getTime()
    const out: Slot[] = []
    for (const slot of [...this.running.values()]) {
      if (slot.stop && now - slot.stoppedAt >= this.o.leaseMs) this.abandoning.push(this.abandon(slot))
      // A job given up by fencing is no longer renewed: its lease's expiry puts it back.
      else if (slot.stop !== 'fenced') out.push(slot)
    }
    return out
  }

  /** Self-fencing, while steps fail (stops.ts, `fenced`); no job is claimed until a step passes again. */
  private fenceUnrenewed(): void {
    if (this.stops.fence(this.running.values(), this.o.leaseMs, this.o.log)) this.fenced = true
  }

  /** Takes the slot of a job that did not stop within a lease of being told to; false when lost anyway. */
  private takeBack(slot: Slot): boolean {
    const { job, stop } = slot
    slot.abandoned = true
    this.running.delete(job.id)
    this.o.log.error('a job did not stop within a lease of being asked to; its slot is taken back', {
      job_id: job.id,
      kind: job.kind,
      reason: stop,
    })
    return !givenUp(stop)
  }

  /** Takes the slot of a job that did not stop within a lease of being told to, and writes its end. */
  private async abandon(slot: Slot): Promise<void> {
    const { job, stop } = slot
    if (!this.takeBack(slot)) return
    const q = this.o.queue.leaseRepo
    try {
      if (stop === 'over_budget') {
        await q.finish(job.id, this.o.owner, 'failed', { error: this.stops.errorOf(job, stop).message })
      } else await q.finish(job.id, this.o.owner, 'canceled', {})
      await settled(job, this.deps)
    } catch (e) {
      this.o.log.error('an abandoned job could not be ended', { job_id: job.id, error: (e as Error).message })
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
      if (this.timer) this.loopStep()
    })
  }

  /**
   * Resumes at once the jobs of owners whose process has ended (a crash or kill -9 of this or
   * another server on the same data dir): their leases would otherwise hold the work for a whole
   * lease. Checked on start and then at most four times a lease.
   */
  private async resumeDeadOwners(): Promise<void> {
    const owners = this.o.owners
    const now = this.o.clock.now().getTime()
    if (!owners || now - this.lastOwnerCheck < this.o.leaseMs / 4) return
    this.lastOwnerCheck = now
    for (const owner of await this.o.queue.leaseRepo.otherOwners(this.o.owner)) {
      if (!(await owners.isDead(owner))) continue
      const count = await this.o.queue.leaseRepo.recoverOwner(owner)
      if (count > 0) this.o.log.warn('jobs resumed from a process that stopped', { count, owner })
    }
  }

  /** Starts the production loop. */
  start(): void {
    if (this.timer) return
    // Once the owner lock is held (a round trip on PostgreSQL), a step claims what the first could not.
    this.held = holdOwner(this.o, () => {
      if (this.timer) void this.step().catch(() => undefined)
    })
    this.timer = setInterval(() => this.loopStep(), this.o.pollMs)
    this.loopStep()
  }

  /**
   * A step of the production loop; a failed one is logged and the loop goes on. Asked for while one
   * is under way (a poll, a poke), it runs once more after it, so slow steps never pile up.
   */
  private loopStep(): void {
    if (this.looping) {
      this.again = true
      return
    }
    this.looping = true
    this.step()
      .catch((e) => this.o.log.error('scheduler tick failed', { error: (e as Error).message }))
      .finally(() => {
        this.looping = false
        if (this.again && this.timer) {
          this.again = false
          this.loopStep()
        }
      })
  }

  /** Stops claiming and waits for running jobs to settle. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    await this.idle()
    await this.o.owners?.release(this.o.owner)
  }
}
