/**
 * Onboarding of a base: start a run (new and changed documents, or all of them), follow it with a
 * live progress bar and the server's estimate of the time left, cancel it, and read the history.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { cancelOnboarding, isFinished, listJobs, startOnboarding } from '../api/bases'
import type { Corpus, Job } from '../api/types'
import { useAction } from '../lib/action'
import { formatSeconds } from '../lib/format'
import { useJob } from '../lib/use-job'
import { useLoad } from '../lib/use-load'
import { StatusBadge } from './base-status'
import { Async, Button, ErrorBox, Progress, Time } from './ui'

/** How often the base's counters are refreshed while a run goes (the job itself is polled faster). */
const COUNTERS_MS = 2000

const KIND_WORDS: Record<string, string> = {
  train: 'Onboarding',
  embed: 'Embedding passages',
  train_batch: 'Batch',
}

/**
 * The onboarding panel of `base`. `onCounters` reloads the base's counters (during a run);
 * `onFinished` reloads the base and its documents (when a run ends).
 */
export function OnboardingPanel(props: { base: Corpus; onCounters: () => void; onFinished: () => void }) {
  const { base } = props
  const jobs = useLoad((signal) => listJobs(base.id, signal), [base.id])
  const [started, setStarted] = useState<Job | null>(null)
  const listed = jobs.data?.find((j) => j.kind === 'train' && j.parent_id === null) ?? null
  // The run just started is shown until the history lists it.
  const run = started && !jobs.data?.some((j) => j.id === started.id) ? started : listed
  const [canceling, setCanceling] = useState(false)
  const followed = useJob(run, () => {
    setCanceling(false)
    jobs.reload()
    props.onFinished()
  })
  const current = followed.job
  const [force, setForce] = useState(false)
  const inFlight = current !== null && !isFinished(current)

  // The base's counters move with the run; refresh them now and then, not at every poll.
  const counters = useRef(props.onCounters)
  counters.current = props.onCounters
  useEffect(() => {
    if (!inFlight) return
    const timer = setInterval(() => counters.current(), COUNTERS_MS)
    return () => clearInterval(timer)
  }, [inFlight])

  // Starting and canceling share one busy state and one error: only one of them is offered at a time.
  const action = useAction(async (what: 'start' | 'cancel') => {
    if (what === 'start') {
      setStarted(await startOnboarding(base.id, force))
      props.onCounters()
    } else {
      await cancelOnboarding(base.id)
      setCanceling(true)
    }
  })
  const { busy, error } = action

  return (
    <div class="card stack onboarding">
      {current ? (
        <RunProgress job={current} canceling={canceling} />
      ) : (
        !jobs.loading && (
          <p class="muted">
            Onboarding reads every document and prepares it for questions. The base is ready when it ends.
          </p>
        )
      )}
      <ErrorBox error={followed.error} />
      <ErrorBox error={error} />
      <div class="row">
        {inFlight ? (
          <Button variant="danger" busy={busy || canceling} onClick={() => action.run('cancel')}>
            {canceling ? 'Canceling…' : 'Cancel onboarding'}
          </Button>
        ) : (
          <>
            <Button
              variant="primary"
              busy={busy}
              disabled={base.n_documents === 0}
              onClick={() => action.run('start')}
            >
              Start onboarding
            </Button>
            <label class="check">
              <input
                type="checkbox"
                checked={force}
                onChange={(e) => setForce((e.currentTarget as HTMLInputElement).checked)}
              />
              Redo every document, not only new and changed ones
            </label>
          </>
        )}
      </div>
      {base.n_documents === 0 && !inFlight && <p class="hint">Upload documents first, then onboard them.</p>}
      <h3>History</h3>
      <Async load={jobs}>{(items) => <JobHistory items={items.filter((j) => j.parent_id === null)} />}</Async>
    </div>
  )
}

/** The run's bar, its percentage, the estimate, and how it ended. */
function RunProgress({ job, canceling }: { job: Job; canceling: boolean }) {
  const pct = Math.round(job.progress * 100)
  let words: string
  if (job.status === 'pending') words = 'Waiting to start…'
  else if (job.status === 'running')
    words = canceling
      ? `${pct}% · stopping after the documents in hand…`
      : `${pct}% · ${job.eta_seconds === null ? 'estimating the time left…' : `about ${formatSeconds(job.eta_seconds)} left`}`
  else if (job.status === 'succeeded') words = `100% · finished${took(job)}`
  else if (job.status === 'canceled') words = `Canceled at ${pct}%`
  else words = `Failed at ${pct}%`
  return (
    <div class="stack run-progress">
      <div class="run-head">
        <span class="label">Latest run</span>
        <StatusBadge status={job.status} />
        <span class="muted">
          started <Time iso={job.started_at ?? job.created_at} />
        </span>
      </div>
      <Progress value={job.progress} label="Onboarding progress" />
      <p class="run-words" aria-live="polite">
        {words}
      </p>
      {job.detail && <p class="hint">{job.detail}</p>}
      {job.error && <p class="upload-error">{job.error}</p>}
    </div>
  )
}

/** " in 12 s" for a job that has started and finished, else nothing. */
function took(job: Job): string {
  if (!job.started_at || !job.finished_at) return ''
  return ` in ${formatSeconds((Date.parse(job.finished_at) - Date.parse(job.started_at)) / 1000)}`
}

/** Runs and embed jobs of the base, newest first. */
function JobHistory({ items }: { items: Job[] }) {
  if (items.length === 0) return <p class="muted">No onboarding runs yet.</p>
  // A table of text only: its scrolling box must take the focus to be scrolled by keyboard on a phone.
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1).
    <section class="table-wrap" tabIndex={0} aria-label="Onboarding history">
      <table>
        <caption class="visually-hidden">Onboarding history, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Job</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">
              Progress
            </th>
            <th scope="col">Took</th>
            <th scope="col">Detail</th>
          </tr>
        </thead>
        <tbody>
          {items.map((j) => (
            <tr key={j.id}>
              <td>
                <Time iso={j.started_at ?? j.created_at} />
              </td>
              <td>{KIND_WORDS[j.kind] ?? j.kind}</td>
              <td>
                <StatusBadge status={j.status} />
              </td>
              <td class="num">{Math.round(j.progress * 100)}%</td>
              <td>{took(j).replace(/^ in /, '') || '—'}</td>
              <td>{j.error ?? j.detail ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}
