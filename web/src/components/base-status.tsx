/** Status badges of bases, documents and jobs, coloured by what the status means for the reader. */
import type { Job } from '../api/types'
import { Time } from './ui'

const TONE: Record<string, 'ok' | 'warn' | 'error' | undefined> = {
  ready: 'ok',
  succeeded: 'ok',
  training: 'warn',
  onboarding: 'warn',
  running: 'warn',
  pending: undefined,
  new: undefined,
  canceled: undefined,
  failed: 'error',
  partial: 'warn',
  starting: 'warn',
}

const WORDS: Record<string, string> = {
  new: 'new',
  training: 'onboarding',
  ready: 'ready',
  failed: 'failed',
  pending: 'pending',
  onboarding: 'onboarding',
  running: 'running',
  succeeded: 'succeeded',
  canceled: 'canceled',
  partial: 'partly failed',
  starting: 'starting',
}

/** A status as a badge (`training` reads "onboarding": the word the console uses for it). */
export function StatusBadge({ status }: { status: string }) {
  const tone = TONE[status]
  return <span class={tone ? `badge badge-${tone}` : 'badge'}>{WORDS[status] ?? status}</span>
}

/**
 * When a base was last synced: a source's sync or an import that listed its folder to the end
 * (uploads and pushes do not count). Before any, "never synced", as the sources tab's "No syncs or
 * imports yet" says.
 */
export function LastSynced({ iso }: { iso: string | null }) {
  return iso ? <Time iso={iso} /> : <span class="muted">never synced</span>
}

/**
 * A job's status as the reader should take it: a run that ran to the end is `succeeded` however many
 * of its documents failed, so one with failures reads "partly failed" (amber), not a green success;
 * an automatic start not yet done is a run "starting" (it waits a moment for uploads to stop).
 */
export function jobStatus(job: Job): string {
  if (job.kind === 'train_auto' && (job.status === 'pending' || job.status === 'running')) return 'starting'
  return job.status === 'succeeded' && job.units_failed > 0 ? 'partial' : job.status
}
