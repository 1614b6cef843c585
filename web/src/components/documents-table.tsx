/**
 * The documents of a base: one row a file (path, type, size, status, sections, when added), its
 * sections on demand, and delete after a confirmation naming the file.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import type { Corpus, Doc } from '../api/bases'
import { api, listAll } from '../api/client'
import { formatSize } from '../lib/format'
import type { CursorPages } from '../lib/use-cursor-pages'
import { visibleText } from '../lib/visible-text'
import { StatusBadge } from './base-status'
import { FileName } from './file-name'
import { Button, Confirm, Empty, ErrorBox, Loading, Time } from './ui'

/** Section rows of a base by parent id, or the error of reading them. */
interface Sections {
  byParent: Map<string, Doc[]> | null
  loading: boolean
  error: Error | null
}

/**
 * The table of `docs` (a paged list the page owns). `onDeleted` runs after a document is deleted
 * (the page reloads the base's counters and the list).
 */
export function DocumentsTable(props: { base: Corpus; docs: CursorPages<Doc>; onDeleted: () => void }) {
  const { base, docs } = props
  const focus = useLocation().query.document
  const [open, setOpen] = useState<Set<string>>(new Set())
  const [sections, setSections] = useState<Sections>({ byParent: null, loading: false, error: null })
  const [doomed, setDoomed] = useState<Doc | null>(null)

  // The API lists sections for the whole base (`sections=true`), not per document: read them once,
  // when the first document is opened, and keep them until the list is read again.
  const loadSections = async () => {
    setSections({ byParent: null, loading: true, error: null })
    try {
      const rows = await listAll<Doc>(`/corpora/${base.id}/documents`, { query: { sections: true } })
      const byParent = new Map<string, Doc[]>()
      for (const r of rows) {
        if (!r.parent_id) continue
        const list = byParent.get(r.parent_id) ?? []
        list.push(r)
        byParent.set(r.parent_id, list)
      }
      setSections({ byParent, loading: false, error: null })
    } catch (e) {
      setSections({ byParent: null, loading: false, error: e as Error })
    }
  }
  // The list was read again: sections read before may be stale (read them again if some are shown).
  useEffect(() => {
    if (open.size > 0) loadSections()
    else setSections({ byParent: null, loading: false, error: null })
  }, [docs.items])

  const toggle = (doc: Doc) => {
    const next = new Set(open)
    if (next.has(doc.id)) next.delete(doc.id)
    else {
      next.add(doc.id)
      if (!sections.byParent && !sections.loading) loadSections()
    }
    setOpen(next)
  }

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
              open={open.has(d.id)}
              sections={sections}
              onToggle={() => toggle(d)}
              onDelete={() => setDoomed(d)}
              onRetry={loadSections}
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

/** Short names of the types the server reads; the full media type is the cell's title. */
const TYPE_NAMES: Record<string, string> = {
  'application/pdf': 'PDF',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'Word',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'PowerPoint',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'Excel',
  'text/html': 'HTML',
  'text/markdown': 'Markdown',
  'text/csv': 'CSV',
  'text/tab-separated-values': 'TSV',
  'application/json': 'JSON',
  'text/plain': 'Text',
}

function typeName(contentType: string | null): string {
  if (!contentType) return '—'
  const bare = contentType.split(';')[0]!.trim()
  return TYPE_NAMES[bare] ?? bare
}

/** A document's row, and its sections' row when opened (a `tbody` each, so they stay together). */
function DocRows(props: {
  doc: Doc
  open: boolean
  sections: Sections
  onToggle: () => void
  onDelete: () => void
  onRetry: () => void
  /** The document a citation pointed at (`?document=`): marked and scrolled to. */
  focused: boolean
}) {
  const { doc } = props
  const panel = `sections-${doc.id}`
  const row = useRef<HTMLTableRowElement>(null)
  useEffect(() => {
    if (props.focused) row.current?.scrollIntoView({ block: 'center' })
  }, [props.focused])
  return (
    <tbody>
      <tr
        ref={row}
        class={props.focused ? 'doc-focused' : undefined}
        aria-current={props.focused ? 'true' : undefined}
      >
        <th scope="row" class="doc-cell">
          <div class="doc-name">
            <FileName name={doc.filename} />
            {doc.title && doc.title !== doc.filename && <bdi class="hint">{visibleText(doc.title)}</bdi>}
            {doc.error && <span class="upload-error">{doc.error}</span>}
          </div>
        </th>
        <td class="muted nowrap" title={doc.content_type ?? undefined}>
          {typeName(doc.content_type)}
        </td>
        <td class="num nowrap">{formatSize(doc.size)}</td>
        <td>
          <StatusBadge status={doc.status} />
        </td>
        <td>
          {doc.section_count > 1 ? (
            <button
              type="button"
              class="btn btn-plain btn-small"
              aria-expanded={props.open}
              aria-controls={panel}
              aria-label={`${props.open ? 'Hide' : 'Show'} ${doc.section_count} sections of ${visibleText(doc.filename)}`}
              onClick={props.onToggle}
            >
              {props.open ? 'Hide' : 'Show'} {doc.section_count}
            </button>
          ) : (
            // One section is the whole file: there is nothing more to show.
            <span class="muted nowrap">{doc.status === 'failed' ? '—' : 'whole file'}</span>
          )}
        </td>
        <td class="nowrap">
          <Time iso={doc.created_at} />
        </td>
        <td class="cell-actions">
          <button
            type="button"
            class="btn btn-plain btn-small"
            aria-label={`Delete ${visibleText(doc.filename)}`}
            onClick={props.onDelete}
          >
            Delete
          </button>
        </td>
      </tr>
      {props.open && (
        <tr class="sections-row">
          <td colSpan={7} id={panel}>
            <SectionList doc={doc} sections={props.sections} onRetry={props.onRetry} />
          </td>
        </tr>
      )}
    </tbody>
  )
}

function SectionList({ doc, sections, onRetry }: { doc: Doc; sections: Sections; onRetry: () => void }) {
  if (sections.loading) return <Loading label="Loading sections…" />
  if (sections.error)
    return (
      <div>
        <ErrorBox error={sections.error} />
        <Button onClick={onRetry}>Try again</Button>
      </div>
    )
  const list = sections.byParent?.get(doc.id) ?? []
  if (list.length === 0) return <p class="muted">This document is read as one section.</p>
  // The API gives no section index, so the list claims no order.
  return (
    <ul class="sections" aria-label={`Sections of ${visibleText(doc.filename)}`}>
      {list.map((s) => (
        <li key={s.id}>
          <bdi class="section-title">{s.title ? visibleText(s.title) : 'Untitled section'}</bdi>
          <span class="muted">{formatSize(s.size)}</span>
          <StatusBadge status={s.status} />
          {s.error && <span class="upload-error">{s.error}</span>}
        </li>
      ))}
    </ul>
  )
}

/** The confirmation that deletes one document; it names the file and its base. */
function DeleteDocument(props: {
  base: Corpus
  doc: Doc | null
  onClose: () => void
  onDeleted: () => void
}) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<Error | null>(null)
  const { doc } = props
  const onConfirm = async () => {
    if (!doc) return
    setBusy(true)
    setError(null)
    try {
      await api(`/corpora/${props.base.id}/documents/${doc.id}`, { method: 'DELETE' })
      props.onDeleted()
    } catch (e) {
      setError(e as Error)
    } finally {
      setBusy(false)
    }
  }
  return (
    <Confirm
      open={doc !== null}
      title="Delete this document?"
      confirmLabel="Delete document"
      busy={busy}
      error={error}
      onConfirm={onConfirm}
      onCancel={() => {
        setError(null)
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
