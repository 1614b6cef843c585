/** Status badges of bases, documents and jobs, coloured by what the status means for the reader. */

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
}

/** A status as a badge (`training` reads "onboarding": the word the console uses for it). */
export function StatusBadge({ status }: { status: string }) {
  const tone = TONE[status]
  return <span class={tone ? `badge badge-${tone}` : 'badge'}>{WORDS[status] ?? status}</span>
}
