import { useState } from 'preact/hooks'
import type { Corpus } from '../api/bases'
import { api } from '../api/client'
import { Confirm } from './ui'

/** The confirmation that deletes a base; it names the base and what goes with it. */
export function DeleteBase(props: { base: Corpus | null; onClose: () => void; onDeleted: () => void }) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<Error | null>(null)
  const base = props.base
  const close = () => {
    setError(null)
    props.onClose()
  }
  const onConfirm = async () => {
    if (!base) return
    setBusy(true)
    setError(null)
    try {
      await api(`/corpora/${base.id}`, { method: 'DELETE' })
      props.onDeleted()
    } catch (err) {
      setError(err as Error)
    } finally {
      setBusy(false)
    }
  }
  return (
    <Confirm
      open={base !== null}
      title={`Delete the base “${base?.name ?? ''}”?`}
      confirmLabel="Delete base"
      busy={busy}
      error={error}
      onConfirm={onConfirm}
      onCancel={close}
    >
      <p>
        The base <strong>{base?.name}</strong> and its {base?.n_documents ?? 0} document
        {base?.n_documents === 1 ? '' : 's'} will be deleted, with everything onboarded from them. Chats and
        API keys can no longer use it. This cannot be undone.
      </p>
    </Confirm>
  )
}
