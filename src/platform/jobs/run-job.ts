// Running one claimed job to its end on the store: its context (progress, checkpoint, signal), the
// outcome written through the queue's repo (succeeded, failed, canceled, or back for a retry), and
// its kind's settle hook. The writes are units of their own; the handler runs outside any unit.
import { isConflict, reasonOf } from '../db/failures'
import { ApiError } from '../errors/errors'
import type { Logger } from '../log/log'
import {
  JobCanceledError,
  type JobContext,
  type JobHandler,
  JobOverBudgetError,
  JobWaitingError,
  type SettledHook,
  TransientError,
} from './handler'
import type { Job, JobQueue } from './queue'
import { givenUp, type Slot, type Stops } from './stops'

/** What running a job needs of its scheduler. */
export interface RunDeps {
  queue: JobQueue
  log: Logger
  owner: string
  leaseMs: number
  stops: Stops
  backoff: (attempt: number) => number
  hook: (kind: string) => SettledHook | undefined
}

/** Runs `slot`'s job with `handler` and writes how it ended (nothing when its slot was taken back). */
export async function runJob(slot: Slot, handler: JobHandler, d: RunDeps): Promise<void> {
  const q = d.queue.leaseRepo
  const { owner, leaseMs, stops } = d
  const { job } = slot
  const ctx: JobContext = {
    job,
    signal: slot.controller.signal,
    // A unit of its own; never rejects (a lost lease shows at the next checkpoint).
    progress: (p) =>
      q.heartbeat(job.id, owner, leaseMs, p).then(
        () => undefined,
        (e) => d.log.warn('job progress not recorded', { job_id: job.id, error: (e as Error).message }),
      ),
    checkpoint: () => {
      const reason = slot.stop ?? stops.reasonOf(job)
      if (!reason) return
      stops.stop(slot, reason)
      throw stops.errorOf(job, reason)
    },
  }
  try {
    ctx.checkpoint()
    const result = await handler(ctx)
    if (slot.abandoned || givenUp(slot.stop)) return
    await q.finish(job.id, owner, 'succeeded', { result })
  } catch (e) {
    if (slot.abandoned) return
    // A stop wins over whatever error it caused: an aborted request may surface as a network
    // failure, which would otherwise be retried.
    const reason = slot.stop ?? stops.reasonOf(job)
    if (reason === 'lease_lost') {
      d.log.warn('job stopped: another worker took it over', { job_id: job.id, kind: job.kind })
      return
    }
    // Given up by this process (its lease lapsed unrenewed): its lease's expiry puts it back.
    if (reason === 'fenced') return
    const message = reasonOf(e)
    if (reason === 'canceled' || e instanceof JobCanceledError) await q.finish(job.id, owner, 'canceled', {})
    else if (reason === 'over_budget' || e instanceof JobOverBudgetError) {
      await q.finish(job.id, owner, 'failed', { error: stops.errorOf(job, 'over_budget').message })
    } else if (e instanceof JobWaitingError) await q.retry(job.id, owner, message, e.retryAfterMs, false)
    else if (retryable(e) && job.attempts < job.maxAttempts) {
      const after = e instanceof TransientError ? e.retryAfterMs : undefined
      await q.retry(job.id, owner, message, after ?? d.backoff(job.attempts))
    } else {
      if (!retryable(e)) d.log.error('job failed', { job_id: job.id, kind: job.kind, error: message })
      await q.finish(job.id, owner, 'failed', { error: message })
    }
  }
  await settled(job, d)
}

/**
 * Whether a job's error is worth another attempt: a TransientError, a 503 a service it used gave (a
 * shared index another replica was writing, a database briefly away), which a request would retry too,
 * or a unit the database ended for meeting another at once (a deadlock).
 */
function retryable(e: unknown): boolean {
  return e instanceof TransientError || (e instanceof ApiError && e.status === 503) || isConflict(e)
}

/** Runs the settle hook of a job's kind with the job as it ended. */
export async function settled(job: Job, d: RunDeps): Promise<void> {
  const hook = d.hook(job.kind)
  if (!hook) return
  const ended = await d.queue.repo.get(job.id)
  if (!ended) return
  try {
    await hook(ended)
  } catch (e) {
    d.log.error('job settle hook failed', { job_id: job.id, error: (e as Error).message })
  }
}
