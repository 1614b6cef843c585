import type { Actor } from '../../platform/auth/principal'
import type { Store } from '../../platform/db/store'
import type { Outbox } from '../../platform/events/outbox'
import { type UsageDayRow, usageRowsAfter } from './usage.export.repo'

/** Rows read at a time: an export holds one batch in memory, whatever its length. */
const BATCH = 1000

/** The columns of a usage export, in order. */
export const USAGE_COLUMNS = ['day', 'corpus_id', 'queries', 'load_test_queries', 'compare_queries'] as const

/** One line of a usage export. */
export type UsageLine = Record<(typeof USAGE_COLUMNS)[number], string | number | null>

/** The daily counters of a workspace as an export: per UTC day and base, between two days. */
export class UsageExport {
  constructor(private readonly d: { store: Store; events: Outbox }) {}

  /**
   * The counters between `from` and `to` (inclusive, YYYY-MM-DD), oldest day first, a batch at a
   * time as they are consumed; the export is told for the audit log (`usage.exported`) first, in a
   * unit of its own.
   */
  async rows(
    workspaceId: string,
    range: { from: string; to: string },
    actor: Actor,
    format: string,
  ): Promise<AsyncIterator<UsageLine[]>> {
    // Every question answered so far is counted before the rows are read (Outbox.later).
    await this.d.events.settled()
    await this.d.store.unit(async () => {
      await this.d.events.publish({
        type: 'usage.exported',
        workspaceId,
        payload: { actor, details: { format, from: range.from, to: range.to } },
      })
    })
    const store = this.d.store
    return (async function* () {
      let after: { day: string; corpusId: string } | null = null
      for (;;) {
        const rows = await usageRowsAfter(store, workspaceId, range, after, BATCH)
        const last = rows[rows.length - 1]
        if (!last) return
        after = { day: last.day, corpusId: last.corpusId }
        yield rows.map(lineOf)
      }
    })()
  }
}

/** A counter row as an export line: the workspace-wide counters have no base (null). */
function lineOf(r: UsageDayRow): UsageLine {
  return {
    day: r.day,
    corpus_id: r.corpusId === '' ? null : r.corpusId,
    queries: r.queries,
    load_test_queries: r.loadTestQueries,
    compare_queries: r.compareQueries,
  }
}
