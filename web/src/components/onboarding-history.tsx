/**
 * A base's onboarding history: its runs (by a person or started by themselves), the automatic starts
 * still to come, and embedding, newest first. An automatic start that did its work is left out: the
 * run it started is listed, labelled automatic. Above the history's heading, what the base still
 * builds after a run (its cartridges, its passages' encoding).
 */
import { isFinished } from '../api/bases'
import type { Job } from '../api/types'
import { jobStatus, StatusBadge } from './base-status'
import { took } from './onboarding-run'
import { Time } from './ui'

/** The job's kind as the reader knows it. */
function kindWords(job: Job): string {
  if (job.kind === 'train') return job.auto ? 'Onboarding (automatic)' : 'Onboarding'
  if (job.kind === 'train_auto') return 'Automatic start'
  if (job.kind === 'embed') return 'Embedding passages'
  if (job.kind === 'train_deferred') return 'Building cartridges'
  if (job.kind === 'encode') return 'Encoding passages'
  return job.kind
}

/** The base's work after a run (its cartridges, its passages' encoding): said above the history, not in it. */
const BACKGROUND = ['train_deferred', 'encode']

/** Whether the history lists the job: every run and embed job, and automatic starts not done. */
export function listed(job: Job): boolean {
  return (
    job.parent_id === null &&
    !BACKGROUND.includes(job.kind) &&
    !(job.kind === 'train_auto' && job.status === 'succeeded')
  )
}

/** The base's background jobs not ended yet, the newest of each kind: what it is still building. */
export function building(items: Job[]): Job[] {
  return BACKGROUND.flatMap((kind) => {
    const job = items.find((j) => j.kind === kind)
    return job && !isFinished(job) ? [job] : []
  })
}

/** What a background job of the base is doing: its share done, or queued until it starts. */
function state(job: Job): string {
  return job.status === 'running' ? `${Math.round(job.progress * 100)}%` : 'queued'
}

/**
 * What the base is still building after its run, above its history: that it answers meanwhile, by
 * rag until its cartridges are built, and that its passages' encoding (queued a minute after a run,
 * so runs close together are encoded once) only speeds up the check of whether it holds an answer.
 */
export function StillBuilding({ items }: { items: Job[] }) {
  const jobs = building(items)
  if (jobs.length === 0) return null
  const cart = jobs.some((j) => j.kind === 'train_deferred')
  return (
    <p class="muted still-building" role="status">
      {jobs.map((j) => `${kindWords(j)}: ${state(j)}`).join(' · ')}.{' '}
      {cart
        ? 'Questions are answered by rag until the cartridges are built.'
        : 'Questions are answered meanwhile; it makes the check of whether the base holds an answer faster.'}
    </p>
  )
}

/** Runs, automatic starts and embed jobs of the base, newest first. */
export function JobHistory({ items }: { items: Job[] }) {
  const shown = items.filter(listed)
  if (shown.length === 0) return <p class="muted">No onboarding runs yet.</p>
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
          {shown.map((j) => (
            <tr key={j.id}>
              <td>
                <Time iso={j.started_at ?? j.created_at} />
              </td>
              <td>{kindWords(j)}</td>
              <td>
                <StatusBadge status={jobStatus(j)} />
              </td>
              <td class="num">{j.kind === 'train_auto' ? '—' : `${Math.round(j.progress * 100)}%`}</td>
              <td>{took(j).replace(/^ in /, '') || '—'}</td>
              <td>{j.error ?? j.detail ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}
