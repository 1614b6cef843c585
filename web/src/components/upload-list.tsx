/**
 * The files being uploaded, one line each: its path, a progress bar, what is happening, the API's
 * own words when it refused the file (a 415 names the type), and a retry for failed files.
 */

import { formatSize } from '../lib/format'
import type { UploadItem, Uploads } from '../lib/use-uploads'
import { visibleText } from '../lib/visible-text'
import { FileName } from './file-name'
import { PlanLimitLink, Progress } from './ui'

const WORDS: Record<UploadItem['state'], string> = {
  queued: 'Waiting',
  sending: 'Uploading',
  processing: 'Checking',
  done: 'Done',
  failed: 'Failed',
  stopped: 'Stopped',
}

/** A summary for screen readers and a glance: how many are done, failed, still going. */
function summary(items: UploadItem[]): string {
  const count = (s: UploadItem['state'][]) => items.filter((i) => s.includes(i.state)).length
  const going = count(['queued', 'sending', 'processing'])
  const done = count(['done'])
  const failed = count(['failed'])
  const parts = [`${done} of ${items.length} uploaded`]
  if (failed) parts.push(`${failed} failed`)
  if (going) parts.push(`${going} in progress`)
  return `${parts.join(', ')}.`
}

/** The upload queue; nothing when empty. */
export function UploadList({ uploads }: { uploads: Uploads }) {
  const { items } = uploads
  if (items.length === 0) return null
  const failed = items.filter((i) => i.state === 'failed').length
  const finished = items.some((i) => i.state === 'done' || i.state === 'stopped')
  return (
    <div class="uploads">
      <div class="uploads-head">
        <p class="uploads-summary" role="status">
          {summary(items)}
        </p>
        <div class="actions">
          {failed > 0 && (
            <button type="button" class="btn btn-plain btn-small" onClick={uploads.retryFailed}>
              Retry failed ({failed})
            </button>
          )}
          {finished && (
            <button type="button" class="btn btn-plain btn-small" onClick={uploads.clearFinished}>
              Clear finished
            </button>
          )}
        </div>
      </div>
      <ul class="upload-items" aria-label="Uploads">
        {items.map((item) => (
          <UploadLine key={item.key} item={item} uploads={uploads} />
        ))}
      </ul>
    </div>
  )
}

function UploadLine({ item, uploads }: { item: UploadItem; uploads: Uploads }) {
  const fraction = item.state === 'done' ? 1 : item.total > 0 ? item.sent / item.total : 0
  const going = item.state === 'queued' || item.state === 'sending' || item.state === 'processing'
  const pct = Math.round(fraction * 100)
  return (
    <li class={`upload-item upload-${item.state}`} data-path={item.path}>
      <div class="upload-line">
        <FileName name={item.path} class="upload-path" />
        <span class="upload-size muted">{formatSize(item.file.size)}</span>
        <span class="upload-state">
          {WORDS[item.state]}
          {item.state === 'sending' ? ` ${pct}%` : ''}
        </span>
        {going && (
          <button
            type="button"
            class="btn btn-plain btn-small"
            aria-label={`Stop ${visibleText(item.path)}`}
            onClick={() => uploads.stop(item.key)}
          >
            Stop
          </button>
        )}
        {(item.state === 'failed' || item.state === 'stopped') && (
          <button
            type="button"
            class="btn btn-plain btn-small"
            aria-label={`Retry ${visibleText(item.path)}`}
            onClick={() => uploads.retry(item.key)}
          >
            Retry
          </button>
        )}
      </div>
      <Progress value={fraction} label={`Upload of ${visibleText(item.path)}`} />
      {item.error && (
        <p class="upload-error">
          {item.error.message}
          <PlanLimitLink error={item.error} />
        </p>
      )}
    </li>
  )
}
