/**
 * The documents of a base: one row a file (path, type, size, status, sections, when added), its
 * sections on demand, and delete after a confirmation naming the file.
 */
import { useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import type { Corpus, Doc } from '../api/types'
import type { CursorPages } from '../lib/use-cursor-pages'
import { useSections } from '../lib/use-sections'
import { DeleteDocument } from './delete-document'
import { DocRows } from './document-rows'
import { Button, Empty, ErrorBox, Loading } from './ui'

/**
 * The table of `docs` (a paged list the page owns). `onDeleted` runs after a document is deleted
 * (the page reloads the base's counters and the list).
 */
export function DocumentsTable(props: { base: Corpus; docs: CursorPages<Doc>; onDeleted: () => void }) {
  const { base, docs } = props
  const focus = useLocation().query.document
  const sections = useSections(base.id, docs.items)
  const [doomed, setDoomed] = useState<Doc | null>(null)

  if (docs.items === undefined) {
    return docs.loading ? (
      <Loading label="Loading documents…" />
    ) : (
      <div>
        <ErrorBox error={docs.error} />
        <Button onClick={docs.reload}>Try again</Button>
      </div>
    )
  }
  if (docs.items.length === 0) {
    return (
      <Empty title="No documents yet">
        <p>Drop files or a folder above, or choose them: each file becomes a document of this base.</p>
      </Empty>
    )
  }
  return (
    <>
      <ErrorBox error={docs.error} />
      <div class="table-wrap">
        <table class="documents-table">
          <caption class="visually-hidden">Documents of {base.name}, newest first</caption>
          <thead>
            <tr>
              <th scope="col">File</th>
              <th scope="col">Type</th>
              <th scope="col" class="num">
                Size
              </th>
              <th scope="col">Status</th>
              <th scope="col">Sections</th>
              <th scope="col">Added</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          {docs.items.map((d) => (
            <DocRows
              key={d.id}
              doc={d}
              open={sections.open.has(d.id)}
              sections={sections.sections}
              onToggle={() => sections.toggle(d)}
              onDelete={() => setDoomed(d)}
              onRetry={sections.reload}
              focused={d.id === focus}
            />
          ))}
        </table>
      </div>
      {docs.more && (
        <Button busy={docs.loading} onClick={docs.loadMore}>
          Show more documents
        </Button>
      )}
      <DeleteDocument
        base={base}
        doc={doomed}
        onClose={() => setDoomed(null)}
        onDeleted={() => {
          setDoomed(null)
          props.onDeleted()
        }}
      />
    </>
  )
}
