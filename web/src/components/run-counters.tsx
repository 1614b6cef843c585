/** What a sync or import run did, file by file, and errors shown with the API's code. */

import { ApiError } from '../api/client'
import type { SyncRun } from '../api/types'
import { fmtCount } from '../lib/format'
import { FileName } from './file-name'

const COUNTERS: {
  key: 'created' | 'updated' | 'unchanged' | 'deleted' | 'failed' | 'pending'
  label: string
}[] = [
  { key: 'created', label: 'created' },
  { key: 'updated', label: 'updated' },
  { key: 'unchanged', label: 'unchanged' },
  { key: 'deleted', label: 'deleted' },
  { key: 'failed', label: 'failed' },
  { key: 'pending', label: 'processing' },
]

/** The run's counters as a line of labelled numbers ("processing" only while documents are). */
export function RunCounters({ run }: { run: SyncRun }) {
  return (
    <dl class="run-counters">
      {COUNTERS.filter((c) => c.key !== 'pending' || run.pending > 0).map((c) => (
        <div key={c.key} class={`run-counter run-${c.key}`} data-counter={c.key}>
          <dt>{c.label}</dt>
          <dd>{fmtCount(run[c.key])}</dd>
        </div>
      ))}
    </dl>
  )
}

/** Why the run stopped, and the files it could not take, each with its reason. */
export function RunErrors({ run }: { run: SyncRun }) {
  return (
    <>
      {run.error && <p class="run-error">{run.error}</p>}
      {run.errors.length > 0 && (
        <details class="run-file-errors">
          <summary>
            {run.errors.length} file{run.errors.length === 1 ? '' : 's'} not taken
          </summary>
          <ul>
            {run.errors.map((e) => (
              <li key={`${e.path}-${e.error}`}>
                <FileName name={e.path} />: {e.error}
              </li>
            ))}
          </ul>
        </details>
      )}
    </>
  )
}

/**
 * An error with the API's code before its words ("source_folder_not_found: ..."), for operators
 * who look the code up; announced to screen readers.
 */
export function CodedError({ error, title }: { error: Error | null | undefined; title?: string }) {
  if (!error) return null
  const code = error instanceof ApiError ? error.code : null
  return (
    <div class="alert alert-error coded-error" role="alert">
      {title && <strong>{title} </strong>}
      {code && <code class="error-code">{code}</code>} <span class="error-message">{error.message}</span>
    </div>
  )
}
