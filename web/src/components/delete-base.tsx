import { deleteBase } from '../api/bases'
import type { Corpus } from '../api/types'
import { useAction } from '../lib/action'
import { Confirm } from './ui'

/** The confirmation that deletes a base; it names the base and what goes with it. */
export function DeleteBase(props: { base: Corpus | null; onClose: () => void; onDeleted: () => void }) {
  const base = props.base
  const remove = useAction(async (b: Corpus) => {
    await deleteBase(b.id)
    props.onDeleted()
  })
  const close = () => {
    remove.reset()
    props.onClose()
  }
  return (
    <Confirm
      open={base !== null}
      title={`Delete the base “${base?.name ?? ''}”?`}
      confirmLabel="Delete base"
      busy={remove.busy}
      error={remove.error}
      onConfirm={() => base && remove.run(base)}
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
