// What one registration takes (a batch of stored files, with deletions and the run it adds to) and
// the counters it adds to its sync run: shared by the registrar and the ways in that build batches.

import type { DeletedBy, DocumentRow } from '../../corpora/corpora.service'
import type { RunError } from '../ingest.repo'
import type { Incoming, Registered } from '../ingest.types'

/** A batch of stored files to register, and documents to delete with it. */
export interface RegisterBatch {
  source: 'upload' | 'push' | 'import'
  items: Incoming[]
  fresh: string[]
  /** Who keeps the documents in step: `push`, a source (`source:<id>`), or null (by hand). */
  managedBy?: string | null
  deletions?: { rows: DocumentRow[]; by: DeletedBy }
  /**
   * Adds to an open run (a source's sync) instead of opening one: with the files it saw unchanged
   * and those it could not take, and `within`, called in the same unit with each item's document
   * id, in order (the sync records what its files became, atomically with them; null for a file a
   * plan's cap left out).
   */
  into?: {
    runId: string
    unchanged: number
    failures: RunError[]
    within?: (documentIds: (string | null)[]) => void | Promise<void>
    /**
     * A source's sync: files that would take the workspace past its plan's `documents` or
     * `storage_bytes` cap are left out and listed as the run's errors (`plan_limit_reached`), the
     * others registered; without it a batch past a cap is refused whole (403, nothing written).
     */
    partial?: boolean
  }
}

/** A batch's counters for its run. */
export function countsOf(
  results: Registered['results'],
  removed: DocumentRow[],
  pending: number,
  unchanged: number,
) {
  return {
    created: results.filter((r) => r === 'created').length,
    updated: results.filter((r) => r === 'updated').length,
    unchanged: results.filter((r) => r === 'unchanged').length + unchanged,
    deleted: removed.filter((r) => r.parent_id === null).length,
    pending,
  }
}
