/**
 * The "Add source" form: a connection (picked or created), a folder, a name and a schedule. The
 * source is created, then validated at once, so the person adding it learns straight away whether a
 * sync could run; a refusal shows the API's code and words.
 */
import { createSource, validateSource } from '../api/sources'
import type { Connection, Corpus, Source } from '../api/types'
import { useAction } from '../lib/action'
import { kindInfo } from '../lib/source-kinds'
import { useConnectionChoice } from '../lib/use-connection-choice'
import { ConnectionPicker } from './connection-picker'
import { CodedError } from './run-counters'
import { Button, Field } from './ui'

/** What validating a source found: when it was checked, and the error if it failed. */
export interface Check {
  at: string
  error: Error | null
}

/** Validates `source`; a refusal is part of the answer, not thrown. */
export async function checkSource(source: Source): Promise<Check> {
  try {
    const ok = await validateSource(source)
    return { at: ok.checked_at, error: null }
  } catch (e) {
    return { at: new Date().toISOString(), error: e as Error }
  }
}

/** The form; `onAdded` gets the new source and its validation. */
export function AddSource(props: {
  base: Corpus
  connections: Connection[]
  admin: boolean
  onConnectionAdded: () => void
  onAdded: (s: Source, check: Check) => void
  onClose: () => void
}) {
  const state = useConnectionChoice(props.connections, props.onConnectionAdded)
  const info = kindInfo(state.kind)
  const blocked = !state.picked && !props.admin
  const add = useAction(async (e: Event) => {
    e.preventDefault()
    const form = new FormData(e.currentTarget as HTMLFormElement)
    const interval = String(form.get('interval') ?? '').trim()
    // A new connection is made for the source and deleted again if the source is refused.
    const source = await state.withConnection((connection) =>
      createSource(props.base.id, {
        connection_id: connection.id,
        folder: String(form.get('folder') ?? '').trim(),
        name: String(form.get('name') ?? '').trim() || undefined,
        interval_minutes: interval ? Number(interval) : null,
      }),
    )
    props.onAdded(source, await checkSource(source))
  })
  return (
    <form class="card stack add-source" aria-label="Add a source" onSubmit={add.run}>
      <h3>Add a source</h3>
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
      <div class="grid-2">
        <Field
          label="Source name (optional)"
          name="name"
          maxLength={120}
          autocomplete="off"
          hint="Defaults to the connection and folder."
        />
        <Field
          label="Sync every (minutes, optional)"
          name="interval"
          type="number"
          min={1}
          max={525600}
          hint="Leave empty to sync only when asked."
        />
      </div>
      <CodedError error={add.error} title="Not added:" />
      <div class="row">
        <Button type="submit" variant="primary" busy={add.busy} disabled={blocked}>
          Add and validate
        </Button>
        <Button onClick={props.onClose}>Cancel</Button>
      </div>
    </form>
  )
}
