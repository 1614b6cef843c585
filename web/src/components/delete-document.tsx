/** The confirmation that deletes one document; it names the file and its base. */
import { deleteDocument } from '../api/bases'
import type { Corpus, Doc } from '../api/types'
import { useAction } from '../lib/action'
import { FileName } from './file-name'
import { Confirm } from './ui'

/** Asks before deleting `doc` of `base`; `onDeleted` runs once it is gone. */
export function DeleteDocument(props: {
  base: Corpus
  doc: Doc | null
  onClose: () => void
  onDeleted: () => void
}) {
  const { doc } = props
  const remove = useAction(async (d: Doc) => {
    await deleteDocument(props.base.id, d.id)
    props.onDeleted()
  })
  return (
    <Confirm
      open={doc !== null}
      title="Delete this document?"
      confirmLabel="Delete document"
      busy={remove.busy}
      error={remove.error}
      onConfirm={() => doc && remove.run(doc)}
      onCancel={() => {
        remove.reset()
        props.onClose()
      }}
    >
      <p>
        <strong>{doc && <FileName name={doc.filename} />}</strong> will be deleted from{' '}
        <bdi>{props.base.name}</bdi>, with its text and sections; answers will no longer cite it. This cannot
        be undone.
      </p>
    </Confirm>
  )
}
