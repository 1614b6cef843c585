/**
 * Onboarding of a base: start a run (new and changed documents, or all of them), follow it with a
 * live progress bar and the server's estimate of the time left, cancel it, and read the history.
 * With automatic onboarding a run also starts by itself: a `train_auto` job waits a moment for
 * uploads to stop, then starts one. While documents wait for such a run, the panel looks for it
 * every second, says when it is about to start, and follows it like one started here.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { cancelOnboarding, isFinished, listJobs, startOnboarding } from '../api/bases'
import type { Corpus, Job } from '../api/types'
import { useAction } from '../lib/action'
import { documents, onboardsByItself, waitingWords } from '../lib/base-state'
import { useJob } from '../lib/use-job'
import { useLoad } from '../lib/use-load'
import { usePoll } from '../lib/use-poll'
import { StatusBadge } from './base-status'
import { building, JobHistory, StillBuilding } from './onboarding-history'
import { RunProgress } from './onboarding-run'
import { Async, Button, ErrorBox } from './ui'

/** How often the base's counters are refreshed while a run goes (the job itself is polled faster). */
const COUNTERS_MS = 2000
/** How often the jobs and the base are asked while a run is expected to start by itself. */
const EXPECT_MS = 1000

/**
 * The onboarding panel of `base`. `onCounters` reloads the base's counters (during a run);
 * `onFinished` reloads the base and its documents (when a run ends).
 */
export function OnboardingPanel(props: { base: Corpus; onCounters: () => void; onFinished: () => void }) {
  const { base } = props
  // Asked again when documents arrive or leave: an upload may have scheduled an automatic start.
  const jobs = useLoad(
    (signal) => listJobs(base.id, signal),
    [base.id, base.n_documents, base.documents_pending],
  )
  const [started, setStarted] = useState<Job | null>(null)
  // The newest run: the newest job may be an automatic start or an embed job.
  const listed = jobs.data?.find((j) => j.kind === 'train') ?? null
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
  const autoStart = jobs.data?.find((j) => j.kind === 'train_auto' && !isFinished(j)) ?? null
  // After a cancel the server starts nothing by itself until documents arrive (auto_onboard_paused).
  const expecting =
    !inFlight && (autoStart !== null || (onboardsByItself(base) && base.documents_pending > 0))
  usePoll(jobs, expecting, EXPECT_MS)
  // Cartridges and encodings built after a run: followed until they end.
  usePoll(jobs, !expecting && !inFlight && building(jobs.data ?? []).length > 0, COUNTERS_MS)

  // The base's counters move with the run, or when it starts by itself; refresh them now and then.
  const counters = useRef(props.onCounters)
  counters.current = props.onCounters
  useEffect(() => {
    if (!inFlight && !expecting) return
    const timer = setInterval(() => counters.current(), inFlight ? COUNTERS_MS : EXPECT_MS)
    return () => clearInterval(timer)
  }, [inFlight, expecting])

  // A run that started and ended between two looks was never followed: its end still reloads the
  // base and its documents.
  const finished = useRef(props.onFinished)
  finished.current = props.onFinished
  const seen = useRef<string | null | undefined>(undefined)
  useEffect(() => {
    if (!jobs.data) return
    const id = listed?.id ?? null
    if (seen.current !== undefined && id !== seen.current && listed && isFinished(listed)) finished.current()
    seen.current = id
  }, [jobs.data, listed?.id])

  // Starting and canceling share one busy state and one error: only one of them is offered at a time.
  const action = useAction(async (what: 'start' | 'cancel') => {
    if (what === 'start') {
      setStarted(await startOnboarding(base.id, force))
      props.onCounters()
    } else {
      await cancelOnboarding(base.id)
      setCanceling(true)
      jobs.reload()
      // The base now says its automatic onboarding is paused (auto_onboard_paused).
      props.onCounters()
    }
  })
  const { busy, error } = action

  return (
    <div class="card stack onboarding">
      <Waiting base={base} autoStart={autoStart} inFlight={inFlight} />
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
        {inFlight || autoStart ? (
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
      {jobs.data && <StillBuilding items={jobs.data} />}
      <h3>History</h3>
      <Async load={jobs}>{(items) => <JobHistory items={items} />}</Async>
    </div>
  )
}

/**
 * What becomes of the documents waiting for a run: an automatic start about to begin, the run after
 * this one, by itself, or a person's click.
 */
function Waiting(props: { base: Corpus; autoStart: Job | null; inFlight: boolean }) {
  const { base, autoStart, inFlight } = props
  const n = base.documents_pending
  if (autoStart && !inFlight)
    return (
      <p class="run-head" aria-live="polite">
        <StatusBadge status="starting" />
        <span>
          {n > 0 ? `${documents(n)} waiting: onboarding` : 'Onboarding of the new documents'} starts in a
          moment.
        </span>
      </p>
    )
  if (n === 0) return null
  let words: string
  if (inFlight)
    words = onboardsByItself(base)
      ? `${documents(n)} more waiting: they are onboarded by themselves when this run ends.`
      : `${documents(n)} more waiting: start onboarding again when this run ends.`
  else words = `${waitingWords(base)}.`
  return (
    <p class="run-waiting" aria-live="polite">
      {words}
    </p>
  )
}
