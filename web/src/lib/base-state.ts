/**
 * What a base's state means to a reader, in one place, so that its page and the list of bases say
 * the same: whether its waiting documents onboard by themselves, and the line under its name. The
 * counters come from the API (`documents_pending` wait for a run, `documents_onboarding` are in the
 * run in flight); a base that reads "ready" while documents wait must say they wait.
 */
import type { Corpus } from '../api/types'

/** "1 document", "3 documents". */
export function documents(n: number): string {
  return `${n} document${n === 1 ? '' : 's'}`
}

/**
 * Whether the base's waiting documents are onboarded without anyone asking: `auto_onboard` is on and
 * the base has been onboarded (its first run stays a person's choice, after the estimate), and no
 * cancel paused it since.
 */
export function onboardsByItself(base: Corpus): boolean {
  return base.auto_onboard && base.status !== 'new' && !base.auto_onboard_paused
}

/**
 * Whether someone canceled onboarding of a base that otherwise onboards by itself: its waiting
 * documents wait for the next added or changed document, or for a person to start a run.
 */
export function pausedByCancel(base: Corpus): boolean {
  return base.auto_onboard && base.status !== 'new' && base.auto_onboard_paused
}

/** What the server does after a cancel, said the same wherever a paused base's waiting documents show. */
const AFTER_CANCEL =
  'onboarding was canceled: start it, or it starts by itself once documents are added or changed'

/**
 * "3 documents waiting — onboarding starts by itself", "3 documents waiting — onboarding was
 * canceled: ...", or "3 documents waiting to be onboarded".
 */
export function waitingWords(base: Corpus): string {
  const n = base.documents_pending
  if (onboardsByItself(base)) return `${documents(n)} waiting — onboarding starts by itself`
  if (pausedByCancel(base)) return `${documents(n)} waiting — ${AFTER_CANCEL}`
  return `${documents(n)} waiting to be onboarded`
}

/** The line under a base's name, after its status badge: what the status means now. */
export function statusWords(base: Corpus): string {
  const waiting = base.documents_pending > 0 ? waitingWords(base) : null
  switch (base.status) {
    case 'new':
      return waiting
        ? `${waiting}: start onboarding to make them answerable.`
        : 'Upload documents, then start onboarding.'
    case 'training': {
      // A run counts its documents once it has taken them; until then it is only starting.
      const now =
        base.documents_onboarding > 0
          ? `Onboarding ${documents(base.documents_onboarding)}`
          : 'Onboarding is starting'
      return waiting ? `${now} · ${waiting}.` : `${now}.`
    }
    case 'ready':
      return waiting ? `Ready for questions · ${waiting}.` : 'Ready for questions.'
    case 'failed':
      return waiting
        ? `The last onboarding failed (see its history below) · ${waiting}.`
        : 'The last onboarding failed: see its history below.'
    default:
      return waiting ? `${waiting}.` : ''
  }
}
