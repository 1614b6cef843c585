// A base's settings (PATCH /corpora/{id}): the columns a change writes and the audited event it is
// told as, kept apart from the service so each file stays small.
import type { Actor } from '../../platform/auth/principal'
import type { NewEvent } from '../../platform/events/events'
import type { CorpusRow } from './corpora.repo'

/** What a base's update may change: its settings, and onboarding's pause (its own state, not a setting). */
export interface CorpusChange {
  autoOnboard?: boolean
  autoOnboardPaused?: boolean
}

/** The change as the repo writes it (1 or 0; absent fields stay). */
export function changeBits(p: CorpusChange): { autoOnboard?: 0 | 1; autoOnboardPaused?: 0 | 1 } {
  const bit = (b?: boolean): 0 | 1 | undefined => (b === undefined ? undefined : b ? 1 : 0)
  return { autoOnboard: bit(p.autoOnboard), autoOnboardPaused: bit(p.autoOnboardPaused) }
}

/**
 * `corpus.settings_changed` for the settings `p` changes from `before`, by `actor`; null when none
 * changes (a PATCH repeating the current value writes no row).
 */
export function settingsChanged(
  before: CorpusRow,
  p: CorpusChange,
  actor: Actor,
): NewEvent<'corpus.settings_changed'> | null {
  const was = before.auto_onboard === 1
  if (p.autoOnboard === undefined || was === p.autoOnboard) return null
  return {
    type: 'corpus.settings_changed',
    workspaceId: before.workspace_id,
    payload: {
      actor,
      target: { type: 'corpus', id: before.id },
      details: { auto_onboard: { from: was, to: p.autoOnboard } },
    },
  }
}
