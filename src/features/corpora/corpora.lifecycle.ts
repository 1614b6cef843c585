// A document's lifecycle, owned by corpora: the states a document (or section) row passes through,
// which moves between them are legal, and how each state is written in the `documents` table and
// on the wire. Other features move documents only through CorporaService's commands (ingest's
// content writes, onboarding's `lifecycle`), which check their moves against this table.
import { fail } from '../../platform/errors/errors'
import type { DocumentColumns } from './corpora.rows'

/** The `status` column and the wire's `status`: `pending | onboarding | ready | failed` (unchanged). */
export type WireStatus = DocumentColumns['status']

/**
 * Where a document is in its life. `uploaded` and `extracted` are both `pending` on the wire and in
 * the `status` column; which one is told by whether its text sidecar exists (`text_key`), so the
 * state is derived from the row and needs no column of its own (no migration, nothing to keep in step).
 */
export type DocumentState = 'uploaded' | 'extracted' | 'onboarding' | 'ready' | 'failed' | 'deleted'

/**
 * The legal moves, from each state to the states it may go to next:
 * - new or replaced content (an upload, push or upsert over the file) makes any live document `uploaded`
 *   (`extracted` when an upload read its text as it came);
 * - extraction records the text (`extracted`; again on a re-extraction, or once a run that took the
 *   file before its extraction waits for it) or fails (`failed`);
 * - a run takes waiting documents (`onboarding`; a forced run takes ready ones too, a run after a
 *   crash takes those a stopped run left) and settles them `ready` (it needs their text) or
 *   `failed`; a run that stops puts what it did not settle back to waiting (`uploaded`/`extracted`);
 * - a delete ends every state; nothing comes back from `deleted`.
 */
export const TRANSITIONS: Readonly<Record<DocumentState, readonly DocumentState[]>> = {
  uploaded: ['uploaded', 'extracted', 'onboarding', 'failed', 'deleted'],
  extracted: ['uploaded', 'extracted', 'onboarding', 'ready', 'failed', 'deleted'],
  onboarding: ['uploaded', 'extracted', 'onboarding', 'ready', 'failed', 'deleted'],
  ready: ['uploaded', 'extracted', 'onboarding', 'failed', 'deleted'],
  failed: ['uploaded', 'extracted', 'failed', 'deleted'],
  deleted: [],
}

/** The state of a row as the table holds it (`status`, and whether its text was extracted). */
export function stateOf(row: { status: WireStatus; textKey: string | null }): DocumentState {
  if (row.status !== 'pending') return row.status
  return row.textKey === null ? 'uploaded' : 'extracted'
}

/** How a state is written in the `status` column and on the wire. */
export function wireStatusOf(state: Exclude<DocumentState, 'deleted'>): WireStatus {
  return state === 'uploaded' || state === 'extracted' ? 'pending' : state
}

/** Whether a document may go from one state to the other. */
export function canMove(from: DocumentState, to: DocumentState): boolean {
  return TRANSITIONS[from].includes(to)
}

/** Refuses an illegal move with a 409 `conflict` (the one error table's code for "not in this state"). */
export function assertMove(from: DocumentState, to: DocumentState, documentId: string): void {
  if (!canMove(from, to)) throw fail('conflict', `Document ${documentId} cannot go from ${from} to ${to}.`)
}

/**
 * The `status` values a row may hold to go to `to`: what a command that moves many rows in one
 * statement puts in its `WHERE`, so a row in any other state (changed meanwhile) is left as it is.
 */
export function statusesInto(to: DocumentState): WireStatus[] {
  const from = (Object.keys(TRANSITIONS) as DocumentState[]).filter((s) => s !== 'deleted' && canMove(s, to))
  return [...new Set(from.map((s) => wireStatusOf(s as Exclude<DocumentState, 'deleted'>)))]
}
