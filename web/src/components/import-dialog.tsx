/**
 * The import dialog: a one-time copy of one folder into the base through a connection
 * (`POST /corpora/{id}/import`), then `GET .../import-status` polled until the import ends, with its
 * counters. An import never deletes, and nothing keeps it in step afterwards (a source does that).
 */
import { useEffect, useRef } from 'preact/hooks'
import { getImportStatus, startImport } from '../api/sources'
import type { Connection, Corpus, ImportStatus } from '../api/types'
import { useAction } from '../lib/action'
import { kindInfo, kindLabel } from '../lib/source-kinds'
import { useConnectionChoice } from '../lib/use-connection-choice'
import { useLoad } from '../lib/use-load'
import { usePoll } from '../lib/use-poll'
import { StatusBadge } from './base-status'
import { ConnectionPicker } from './connection-picker'
import { CodedError, RunCounters, RunErrors } from './run-counters'
import { Button, Dialog, Field, Loading, Time } from './ui'

/** The dialog; `onImported` runs once when an import it follows ends. */
export function ImportDialog(props: {
  open: boolean
  base: Corpus
  connections: Connection[]
  admin: boolean
  onConnectionAdded: () => void
  onClose: () => void
  onImported: () => void
}) {
  return (
    <Dialog open={props.open} title="Import a folder" onClose={props.onClose}>
      <ImportForm {...props} />
    </Dialog>
  )
}

function ImportForm(props: Parameters<typeof ImportDialog>[0]) {
  const state = useConnectionChoice(props.connections, props.onConnectionAdded)
  const status = useLoad((signal) => getImportStatus(props.base.id, signal), [props.base.id])
  const running = status.data?.state === 'running'
  usePoll(status, running)
  // The base's documents change when an import this dialog saw running ends.
  const wasRunning = useRef(false)
  const imported = useRef(props.onImported)
  imported.current = props.onImported
  useEffect(() => {
    if (running) wasRunning.current = true
    else if (wasRunning.current && status.data) {
      wasRunning.current = false
      imported.current()
    }
  }, [running, status.data])
  const info = kindInfo(state.kind)
  const start = useAction(async (e: Event) => {
    e.preventDefault()
    const folder = String(new FormData(e.currentTarget as HTMLFormElement).get('folder') ?? '').trim()
    // A new connection is made for the import and deleted again if the import is refused.
    await state.withConnection((connection) => startImport(props.base.id, connection.id, folder))
    // Started here: its end reloads the base, even if it ends before a poll sees it running.
    wasRunning.current = true
    status.reload()
  })
  return (
    <div class="stack import-dialog">
      <p class="hint">
        Copies the folder’s files into the base once. To keep the base in step with a folder, add a source
        instead.
      </p>
      <form class="stack" aria-label="Start an import" onSubmit={start.run}>
        <ConnectionPicker state={state} connections={props.connections} admin={props.admin} />
        <Field
          label={info.folderLabel}
          name="folder"
          required={state.kind === 'folder' || state.kind === 'gdrive'}
          maxLength={2048}
          autocomplete="off"
          placeholder={info.folderPlaceholder}
          hint={info.folderHint}
        />
        <CodedError error={start.error} title="Not started:" />
        <div class="dialog-actions">
          <Button onClick={props.onClose}>Close</Button>
          <Button
            type="submit"
            variant="primary"
            busy={start.busy || running}
            disabled={!state.picked && !props.admin}
          >
            Start import
          </Button>
        </div>
      </form>
      <section aria-label="Import status" class="import-status">
        {status.data === undefined ? <Loading /> : <ImportState status={status.data} />}
        <CodedError error={status.error} />
      </section>
    </div>
  )
}

/** The latest import of the base: what, from where, how it is going or how it ended. */
function ImportState({ status }: { status: ImportStatus }) {
  if (status.state === 'none') return <p class="muted">This base has no import yet.</p>
  return (
    <div class="stack">
      <p class="run-head" aria-live="polite">
        <span class="label">Latest import</span> <StatusBadge status={status.state} />{' '}
        <span class="muted">
          {kindLabel(status.kind ?? '')} <span class="doc-path">{status.folder}</span>, started{' '}
          <Time iso={status.started_at} />
          {status.finished_at && (
            <>
              , ended <Time iso={status.finished_at} />
            </>
          )}
        </span>
      </p>
      {status.run && (
        <>
          <RunCounters run={status.run} />
          <RunErrors run={status.run} />
        </>
      )}
    </div>
  )
}
