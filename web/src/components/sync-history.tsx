/**
 * The run history of a base's sources and imports, newest first: when, which source, how it ended,
 * its counters, and the files it could not take. The API lists every run of the base (uploads and
 * pushes too); the ones a source or an import made carry its id, and only those are shown here.
 */
import { useId, useState } from 'preact/hooks'
import type { Source, SyncRun } from '../api/types'
import { formatSeconds } from '../lib/format'
import type { Loaded } from '../lib/use-load'
import { StatusBadge } from './base-status'
import { RunErrors } from './run-counters'
import { TableScroll } from './table-scroll'
import { Async, Time } from './ui'

/** The history table, with a filter by source. */
export function SyncHistory({ runs, sources }: { runs: Loaded<SyncRun[]>; sources: Source[] }) {
  const id = useId()
  const [only, setOnly] = useState('')
  const nameOf = (r: SyncRun) =>
    r.source === 'import' ? 'Import' : (sources.find((s) => s.id === r.source_id)?.name ?? 'A deleted source')
  return (
    <>
      {sources.length > 1 && (
        <div class="field history-filter">
          <label for={id}>Show runs of</label>
          <select id={id} value={only} onChange={(e) => setOnly(e.currentTarget.value)}>
            <option value="">Every source and import</option>
            {sources.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </div>
      )}
      <Async load={runs}>
        {(items) => {
          const shown = items.filter((r) => r.source_id !== null && (!only || r.source_id === only))
          if (shown.length === 0) return <p class="muted">No syncs or imports yet.</p>
          return (
            <TableScroll label="Sync history">
              <table class="sync-history">
                <caption class="visually-hidden">Syncs and imports, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Started</th>
                    <th scope="col">Source</th>
                    <th scope="col">Status</th>
                    <th scope="col" class="num">
                      Created
                    </th>
                    <th scope="col" class="num">
                      Updated
                    </th>
                    <th scope="col" class="num">
                      Unchanged
                    </th>
                    <th scope="col" class="num">
                      Deleted
                    </th>
                    <th scope="col" class="num">
                      Failed
                    </th>
                    <th scope="col">Took</th>
                    <th scope="col">Errors</th>
                  </tr>
                </thead>
                <tbody>
                  {shown.map((r) => (
                    <tr key={r.id} data-run={r.id}>
                      <td>
                        <Time iso={r.started_at} />
                      </td>
                      <td>{nameOf(r)}</td>
                      <td>
                        <StatusBadge status={r.status} />
                      </td>
                      <td class="num">{r.created}</td>
                      <td class="num">{r.updated}</td>
                      <td class="num">{r.unchanged}</td>
                      <td class="num">{r.deleted}</td>
                      <td class="num">{r.failed}</td>
                      <td>{took(r)}</td>
                      <td>{r.error || r.errors.length > 0 ? <RunErrors run={r} /> : '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )
        }}
      </Async>
    </>
  )
}

/** How long a finished run took, "running" while it runs. */
function took(r: SyncRun): string {
  if (!r.finished_at) return 'running'
  return formatSeconds((Date.parse(r.finished_at) - Date.parse(r.started_at)) / 1000)
}
