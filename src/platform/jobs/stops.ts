// Why a running job must stop, and telling it to: a cancel (its flag or its parent's), its kind's
// time budget spent, its lease lost to another worker, or its lease not renewed for a whole lease
// (the database not answering: the process fences itself, since another may have taken the job). A stopped job's signal is aborted, so its
// requests end at once, and its checkpoint throws the matching error from then on.
import type { Clock } from '../clock/clock'
import type { Logger } from '../log/log'
import { JobCanceledError, JobOverBudgetError } from './handler'
import type { Job } from './job'
import type { JobKinds } from './kinds'
import type { JobQueue } from './queue'

/** Why a running job is being stopped. */
export type StopReason = 'canceled' | 'over_budget' | 'lease_lost' | 'fenced'

/** Whether a job stopped for `reason` may be another worker's now: nothing of its end is written then. */
export const givenUp = (reason: StopReason | null): boolean => reason === 'lease_lost' || reason === 'fenced'

/** A job this process runs. */
export interface Slot {
  job: Job
  promise: Promise<void>
  controller: AbortController
  stop: StopReason | null
  /** When it was told to stop: a job still running a lease later loses its slot. */
  stoppedAt: number
  /** Its slot was taken back and its outcome written: the handler's late end changes nothing. */
  abandoned: boolean
  /** When its lease was last renewed (claimed, or a step's heartbeat passed): its lease runs a lease from then. */
  renewedAt: number
}

/** A slot for a job just claimed at `now` (ms). */
export function slotFor(job: Job, now: number): Slot {
  return {
    renewedAt: now,
    job,
    promise: Promise.resolve(),
    controller: new AbortController(),
    stop: null,
    stoppedAt: 0,
    abandoned: false,
  }
}

/** Reads and applies the reasons to stop of one scheduler's jobs. */
export class Stops {
  constructor(
    private readonly queue: JobQueue,
    private readonly kinds: JobKinds,
    private readonly clock: Clock,
  ) {}

  /**
   * Why a job must stop now, without reading the database (a handler's checkpoint, synchronous):
   * its cancel flag as its claim read it, or its time budget. A later cancel is seen through the
   * slot: the scheduler stops it when the cancel commits (JobsRepo.onCancel: this process's, or
   * another's told by notice on PostgreSQL), or at its next step (`reasonNow`) if that was missed.
   */
  reasonOf(job: Job): StopReason | null {
    if (job.cancelRequested) return 'canceled'
    return this.budgetSpent(job)
  }

  /** Why a job must stop now, reading the cancel flag on the store (either engine): the scheduler's step. */
  async reasonNow(job: Job): Promise<StopReason | null> {
    if (await this.queue.repo.cancelRequested(job.id)) return 'canceled'
    return this.budgetSpent(job)
  }

  private budgetSpent(job: Job): StopReason | null {
    const budget = this.kinds.budget(job.kind)
    const now = this.clock.now().getTime()
    if (budget && now - (job.startedAt ?? now) > budget.ms) return 'over_budget'
    return null
  }

  /**
   * Self-fencing: running jobs whose leases were last renewed a whole lease ago (their renewals
   * failing: the database does not answer) may be another worker's by now, so they are stopped
   * (`fenced`: their signals aborted, nothing of their ends written); true when any was.
   */
  fence(slots: Iterable<Slot>, leaseMs: number, log: Pick<Logger, 'error'>): boolean {
    const now = this.clock.now().getTime()
    const lapsed = [...slots].filter((s) => !s.stop && now - s.renewedAt >= leaseMs)
    if (lapsed.length === 0) return false
    log.error(
      'job leases could not be renewed for a whole lease (the database does not answer): this process gives those jobs up, and claims none until the database answers again',
      { count: lapsed.length, job_ids: lapsed.map((s) => s.job.id) },
    )
    for (const slot of lapsed) this.stop(slot, 'fenced')
    return true
  }

  /** Tells a job to stop (once): records why and when, and aborts its signal. */
  stop(slot: Slot, reason: StopReason): void {
    if (slot.stop) return
    slot.stop = reason
    slot.stoppedAt = this.clock.now().getTime()
    slot.controller.abort(this.errorOf(slot.job, reason))
  }

  /** The error a stopped job's checkpoint throws. */
  errorOf(job: Job, reason: StopReason): Error {
    if (reason === 'over_budget') {
      return new JobOverBudgetError(
        this.kinds.budget(job.kind)?.message ?? 'The job ran past its time budget.',
      )
    }
    if (reason === 'fenced')
      return new JobCanceledError('its lease could not be renewed for a whole lease: this process gave it up')
    return new JobCanceledError(reason === 'lease_lost' ? 'another worker took the job over' : 'canceled')
  }
}
