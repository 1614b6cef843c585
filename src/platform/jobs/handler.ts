// What a job handler is given and may throw: its context (progress, checkpoint, stop signal), the
// errors the scheduler understands, and how a kind is run (its lane and time budget).
import type { Job } from './job'

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

/**
 * Throw from a handler that cannot go on until another job's work is done (a document's text
 * extraction): the job is put back to run again after `retryAfterMs`, and the attempt is not
 * counted. The wait is bounded by what it waits for (an extraction ends, extracted or failed, within
 * its own timeout and attempts), not by the job's attempts, which a long queue ahead of that work
 * would use up.
 */
export class JobWaitingError extends Error {
  override name = 'JobWaitingError'
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message)
  }
}

/** Thrown by `ctx.checkpoint()` when the job was asked to stop. */
export class JobCanceledError extends Error {
  override name = 'JobCanceledError'
}

/** Thrown by `ctx.checkpoint()` when the job ran past its kind's time budget; it fails for good. */
export class JobOverBudgetError extends Error {
  override name = 'JobOverBudgetError'
}

/** What a running handler can do besides its work. */
export interface JobContext {
  job: Job
  /** Records progress and extends the lease (a unit of its own; await it to know it is written). */
  progress(p: { unitsDone?: number; unitsTotal?: number; detail?: string }): void | Promise<void>
  /**
   * Throws JobCanceledError when the job was asked to stop (or another worker took it over), and
   * JobOverBudgetError past its time budget. Call between units of work: every page, every request.
   */
  checkpoint(): void
  /**
   * Aborted when the job must stop (canceled, over its budget, lease lost), as soon as the
   * scheduler sees it: pass it to requests, so a stop does not wait for a slow answer.
   */
  signal: AbortSignal
}

/** Runs one job; its return value is stored as the job's result. */
export type JobHandler = (ctx: JobContext) => Promise<unknown>

/**
 * Called after a job settles (succeeded, failed, canceled or queued for a retry); the scheduler
 * awaits a hook that answers a promise (one whose writes are a unit on the store).
 */
export type SettledHook = (job: Job) => unknown

/**
 * `interactive` jobs are short and someone waits for them (extraction, onboarding); `bulk` jobs can
 * run for hours (syncs, imports) and never take the slots kept for interactive work.
 */
export type JobLane = 'interactive' | 'bulk'

/** How long a job of a kind may run, counted from its first start; past it the job fails with `message`. */
export interface JobBudget {
  ms: number
  message: string
}

/** How a kind is run besides its handler. */
export interface KindOptions {
  onSettled?: SettledHook
  lane?: JobLane
  budget?: JobBudget
}
