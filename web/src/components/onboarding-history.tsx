/**
 * A base's onboarding history: its runs (by a person or started by themselves), the automatic starts
 * still to come, and embedding, newest first. An automatic start that did its work is left out: the
 * run it started is listed, labelled automatic.
 */
import type { Job } from '../api/types'
import { jobStatus, StatusBadge } from './base-status'
import { took } from './onboarding-run'
import { Time } from './ui'

/** The job's kind as the reader knows it. */
function kindWords(job: Job): string {
  if (job.kind === 'train') return job.auto ? 'Onboarding (automatic)' : 'Onboarding'
  if (job.kind === 'train_auto') return 'Automatic start'
  if (job.kind === 'embed') return 'Embedding passages'
  return job.kind
}

/** Whether the history lists the job: every run and embed job, and automatic starts not done. */
export function listed(job: Job): boolean {
  return job.parent_id === null && !(job.kind === 'train_auto' && job.status === 'succeeded')
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
