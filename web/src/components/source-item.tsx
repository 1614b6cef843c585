/**
 * One source of a base: its kind, folder and schedule; what it is doing (a sync listing it, with
 * the job's progress and estimate; documents still processing; how the last run ended, with its
 * counters and per-file errors); and its actions: validate, sync now, cancel, schedule, delete.
 */
import { getJob, isFinished } from '../api/bases'
import { cancelSync, syncSource } from '../api/sources'
import type { Source } from '../api/types'
import { useAction } from '../lib/action'
import { formatSeconds } from '../lib/format'
import { kindLabel } from '../lib/source-kinds'
import { useLoad } from '../lib/use-load'
import { usePoll } from '../lib/use-poll'
import { type Check, checkSource } from './add-source'
import { StatusBadge } from './base-status'
import { CodedError, RunCounters, RunErrors } from './run-counters'
import { Button, ErrorBox, Note, Progress, Time } from './ui'

/** "every 60 min", "every 2 h", or "only when asked". */
export function scheduleWords(minutes: number | null): string {
  if (!minutes) return 'only when asked'
  return `every ${formatSeconds(minutes * 60)}`
}

/** A source's line in the list; `onChanged` reloads the list (and the base) after an action. */
export function SourceItem(props: {
  source: Source
  check: Check | undefined
  onCheck: (c: Check) => void
  onChanged: () => void
  onSchedule: () => void
  onDelete: () => void
}) {
  const s = props.source
  const action = useAction(async (what: 'validate' | 'sync' | 'cancel') => {
    if (what === 'validate') props.onCheck(await checkSource(s))
    else {
      await (what === 'sync' ? syncSource(s) : cancelSync(s))
      props.onChanged()
    }
  })
  /** Whether the button of `what` is the one running. */
  const busy = (what: 'validate' | 'sync' | 'cancel') => action.busy && action.args?.[0] === what
  const act = action.run
  const headingId = `source-${s.id}`
  const named = (verb: string) => (
    <>
      {verb}
      <span class="visually-hidden"> {s.name}</span>
    </>
  )
  return (
    <li class="card stack source-item" aria-labelledby={headingId} data-source={s.id}>
      <div class="source-head">
        <h3 id={headingId}>{s.name}</h3>
        <span class="badge">{kindLabel(s.kind)}</span>
      </div>
      <dl class="source-facts">
        <div>
          <dt>Folder</dt>
          <dd class="doc-path">{s.folder || '(all of it)'}</dd>
        </div>
        <div>
          <dt>Schedule</dt>
          <dd>
            {scheduleWords(s.interval_minutes)}
            {s.next_sync_at && (
              <>
                {' '}
                · next <Time iso={s.next_sync_at} />
              </>
            )}
          </dd>
        </div>
        {s.path_prefix && (
          <div>
            <dt>Files land in</dt>
            <dd class="doc-path">{s.path_prefix}</dd>
          </div>
        )}
      </dl>
      <SourceState source={s} />
      {props.check &&
        (props.check.error ? (
          <CodedError error={props.check.error} title="Validation failed:" />
        ) : (
          <Note kind="ok">
            Valid: the connection reaches the folder (checked <Time iso={props.check.at} />
            ).
          </Note>
        ))}
      <ErrorBox error={action.error} />
      <div class="row source-actions">
        <Button busy={busy('validate')} onClick={() => act('validate')}>
          {named('Validate')}
        </Button>
        {s.syncing ? (
          <Button variant="danger" busy={busy('cancel')} onClick={() => act('cancel')}>
            {named('Cancel sync')}
          </Button>
        ) : (
          <Button variant="primary" busy={busy('sync')} onClick={() => act('sync')}>
            {named('Sync now')}
          </Button>
        )}
        <Button onClick={props.onSchedule}>{named('Edit schedule')}</Button>
        <Button onClick={props.onDelete}>{named('Delete')}</Button>
      </div>
    </li>
  )
}

/** What the source is doing, or how its last run ended. */
function SourceState({ source }: { source: Source }) {
  const current = source.current_run
  const last = source.last_run
  if (current) {
    return (
      <div class="stack source-state">
        <SyncProgress jobId={current.job_id} name={source.name} />
        <RunCounters run={current} />
      </div>
    )
  }
  if (!last) return <p class="muted source-state">Not synced yet.</p>
  return (
    <div class="stack source-state">
      <p class="run-head">
        <span class="label">Last sync</span> <StatusBadge status={last.status} />{' '}
        <span class="muted">
          {last.status === 'running' ? (
            `${last.pending} document${last.pending === 1 ? '' : 's'} still processing`
          ) : (
            <>
              ended <Time iso={last.finished_at} />
            </>
          )}
        </span>
      </p>
      <RunCounters run={last} />
      <RunErrors run={last} />
    </div>
  )
}

/** The sync job's bar and its estimate (`GET /v1/jobs/{id}`), polled while it runs. */
function SyncProgress({ jobId, name }: { jobId: string | null; name: string }) {
  const job = useLoad((signal) => (jobId ? getJob(jobId, signal) : Promise.resolve(null)), [jobId])
  usePoll(job, jobId !== null && !(job.data && isFinished(job.data)))
  const j = job.data
  const pct = Math.round((j?.progress ?? 0) * 100)
  let words = 'Waiting to start…'
  if (j?.status === 'running') {
    words = `${pct}% · ${j.eta_seconds === null ? 'estimating the time left…' : `about ${formatSeconds(j.eta_seconds)} left`}`
  } else if (j && isFinished(j)) words = 'Listing done; finishing…'
  return (
    <div class="stack">
      <p class="run-head">
        <span class="label">Syncing</span> <StatusBadge status="running" />
      </p>
      <Progress value={j?.progress ?? 0} label={`Sync progress of ${name}`} />
      <p class="run-words" aria-live="polite">
        {words}
        {j?.detail ? ` · ${j.detail}` : ''}
      </p>
    </div>
  )
}
