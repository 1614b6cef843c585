/**
 * One onboarding run as the panel shows it: its bar, its percentage and the server's estimate while
 * it goes, then how it ended. A run that ran to the end is `succeeded` on the wire however many of
 * its documents failed (`units_failed` of `units_total`): it reads "partly failed", in amber.
 */
import type { Job } from '../api/types'
import { formatSeconds } from '../lib/format'
import { jobStatus, StatusBadge } from './base-status'
import { Progress, Time } from './ui'

/** " in 12 s" for a job that has started and finished, else nothing. */
export function took(job: Job): string {
  if (!job.started_at || !job.finished_at) return ''
  return ` in ${formatSeconds((Date.parse(job.finished_at) - Date.parse(job.started_at)) / 1000)}`
}

/** "1 of 4 failed" for a run some of whose documents failed, else null. */
function failedWords(job: Job): string | null {
  if (!(job.units_failed > 0)) return null
  return `${job.units_failed} of ${Math.max(job.units_total ?? 0, job.units_failed)} failed`
}

/** What the run is doing, or how it ended, in a line. */
function runWords(job: Job, canceling: boolean): string {
  const pct = Math.round(job.progress * 100)
  if (job.status === 'pending') return 'Waiting to start…'
  if (job.status === 'running') {
    if (canceling) return `${pct}% · stopping after the documents in hand…`
    const left =
      job.eta_seconds === null ? 'estimating the time left…' : `about ${formatSeconds(job.eta_seconds)} left`
    return `${pct}% · ${left}`
  }
  if (job.status === 'succeeded') {
    const failed = failedWords(job)
    return `100% · finished${took(job)}${failed ? ` · ${failed}` : ''}`
  }
  if (job.status === 'canceled') return `Canceled at ${pct}%`
  return `Failed at ${pct}%`
}

/** The run's bar, its percentage, the estimate, and how it ended; an automatic run says so. */
export function RunProgress({ job, canceling }: { job: Job; canceling: boolean }) {
  const partly = jobStatus(job) === 'partial'
  return (
    <div class="stack run-progress">
      <div class="run-head">
        <span class="label">Latest run</span>
        <StatusBadge status={jobStatus(job)} />
        <span class="muted">
          {job.auto ? 'started by itself' : 'started'} <Time iso={job.started_at ?? job.created_at} />
        </span>
      </div>
      <Progress value={job.progress} label="Onboarding progress" />
      <p class="run-words" aria-live="polite">
        {runWords(job, canceling)}
      </p>
      {job.detail && <p class="hint">{job.detail}</p>}
      {partly && (
        <p class="run-partial">
          Some documents could not be onboarded and do not answer questions: the documents below say why.
          Upload them again to try once more.
        </p>
      )}
      {job.error && <p class="upload-error">{job.error}</p>}
    </div>
  )
}
