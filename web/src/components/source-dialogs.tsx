/** The dialogs of a source: its schedule, and its deletion (with or without its documents). */
import { useState } from 'preact/hooks'
import { api } from '../api/client'
import type { Source } from '../api/sources'
import { Button, Confirm, Dialog, ErrorBox, Field } from './ui'

/** Changes how often `source` syncs by itself (`PUT`, `interval_minutes`; empty: only when asked). */
export function ScheduleDialog(props: { source: Source | null; onClose: () => void; onSaved: () => void }) {
  const s = props.source
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<Error | null>(null)
  const close = () => {
    setError(null)
    props.onClose()
  }
  const onSubmit = async (e: Event) => {
    e.preventDefault()
    if (!s) return
    const raw = String(new FormData(e.currentTarget as HTMLFormElement).get('interval') ?? '').trim()
    setBusy(true)
    setError(null)
    try {
      await api<Source>(`/corpora/${s.corpus_id}/sources/${s.id}`, {
        method: 'PUT',
        json: { interval_minutes: raw ? Number(raw) : null },
      })
      props.onSaved()
    } catch (err) {
      setError(err as Error)
    } finally {
      setBusy(false)
    }
  }
  return (
    <Dialog open={s !== null} title={`Schedule of “${s?.name ?? ''}”`} onClose={close}>
      <form class="stack" onSubmit={onSubmit}>
        <Field
          label="Sync every (minutes)"
          name="interval"
          type="number"
          min={1}
          max={525600}
          value={s?.interval_minutes ? String(s.interval_minutes) : ''}
          hint="Leave empty to sync only when asked. The first scheduled sync runs one interval from now."
        />
        <ErrorBox error={error} />
        <div class="dialog-actions">
          <Button onClick={close}>Cancel</Button>
          <Button type="submit" variant="primary" busy={busy}>
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
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<Error | null>(null)
  const [withDocs, setWithDocs] = useState(false)
  const close = () => {
    setError(null)
    setWithDocs(false)
    props.onClose()
  }
  const onConfirm = async () => {
    if (!s) return
    setBusy(true)
    setError(null)
    try {
      const out = await api<{ deleted_documents: number }>(`/corpora/${s.corpus_id}/sources/${s.id}`, {
        method: 'DELETE',
        query: { delete_documents: withDocs },
      })
      setWithDocs(false)
      props.onDeleted(out.deleted_documents)
    } catch (err) {
      setError(err as Error)
    } finally {
      setBusy(false)
    }
  }
  return (
    <Confirm
      open={s !== null}
      title={`Delete the source “${s?.name ?? ''}”?`}
      confirmLabel="Delete source"
      busy={busy}
      error={error}
      onConfirm={onConfirm}
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
