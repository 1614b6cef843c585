import { isTerminal, type Job, type JobQueue } from '../../platform/jobs/queue'
import { RUN_KIND } from './onboarding.jobs'

/**
 * Progress (0..1) of an onboarding job and an estimate of the seconds left, from its measured
 * throughput so far, and the units it works on (`total`); a run counts the units of its batches.
 */
export async function progressOf(
  queue: JobQueue,
  job: Job,
  now: number,
): Promise<{ progress: number; eta: number | null; total: number }> {
  let done = job.unitsDone
  let total = job.unitsTotal
  if (job.kind === RUN_KIND) {
    const sums = await queue.repo.childTotals(job.id)
    done = sums.unitsDone
    total = Math.max(total, sums.unitsTotal)
  }
  if (job.status === 'succeeded') return { progress: 1, eta: 0, total }
  const progress = total > 0 ? Math.min(1, done / total) : 0
  if (isTerminal(job.status) || !job.startedAt || done <= 0)
    return { progress, eta: isTerminal(job.status) ? 0 : null, total }
  const elapsed = (now - job.startedAt) / 1000
  const rate = done / Math.max(elapsed, 1e-3)
  return { progress, eta: Math.round(((total - done) / rate) * 10) / 10, total }
}
