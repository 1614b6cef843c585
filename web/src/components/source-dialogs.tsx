/** The dialogs of a source: its schedule, and its deletion (with or without its documents). */
import { useState } from 'preact/hooks'
import { deleteSource, setSchedule } from '../api/sources'
import type { Source } from '../api/types'
import { useAction } from '../lib/action'
import { Button, Confirm, Dialog, ErrorBox, Field } from './ui'

/** Changes how often `source` syncs by itself (`PUT`, `interval_minutes`; empty: only when asked). */
export function ScheduleDialog(props: { source: Source | null; onClose: () => void; onSaved: () => void }) {
  const s = props.source
  const save = useAction(async (e: Event) => {
    e.preventDefault()
    if (!s) return
    const raw = String(new FormData(e.currentTarget as HTMLFormElement).get('interval') ?? '').trim()
    await setSchedule(s, raw ? Number(raw) : null)
    props.onSaved()
  })
  const close = () => {
    save.reset()
    props.onClose()
  }
  return (
    <Dialog open={s !== null} title={`Schedule of “${s?.name ?? ''}”`} onClose={close}>
      <form class="stack" onSubmit={save.run}>
        <Field
          label="Sync every (minutes)"
          name="interval"
          type="number"
          min={1}
          max={525600}
          value={s?.interval_minutes ? String(s.interval_minutes) : ''}
          hint="Leave empty to sync only when asked. The first scheduled sync runs one interval from now."
        />
        <ErrorBox error={save.error} />
        <div class="dialog-actions">
          <Button onClick={close}>Cancel</Button>
          <Button type="submit" variant="primary" busy={save.busy}>
            Save schedule
          </Button>
        </div>
      </form>
    </Dialog>
  )
}

/** Asks before deleting `source`; its documents stay unless the box is ticked. */
export function DeleteSource(props: {
  source: Source | null
  onClose: () => void
  onDeleted: (deletedDocuments: number) => void
}) {
  const s = props.source
  const [withDocs, setWithDocs] = useState(false)
  const remove = useAction(async (source: Source) => {
    const deleted = await deleteSource(source, withDocs)
    setWithDocs(false)
    props.onDeleted(deleted)
  })
  const close = () => {
    remove.reset()
    setWithDocs(false)
    props.onClose()
  }
  return (
    <Confirm
      open={s !== null}
      title={`Delete the source “${s?.name ?? ''}”?`}
      confirmLabel="Delete source"
      busy={remove.busy}
      error={remove.error}
      onConfirm={() => s && remove.run(s)}
      onCancel={close}
    >
      <p>
        Syncs of <strong>{s?.name}</strong> stop and its schedule is dropped. The documents it brought stay in
        the base unless you tick the box.
      </p>
      <label class="check">
        <input
          type="checkbox"
          checked={withDocs}
          onChange={(e) => setWithDocs((e.currentTarget as HTMLInputElement).checked)}
        />
        Also delete its documents (each with a deletion receipt)
      </label>
    </Confirm>
  )
}
