/**
 * A document's rows in the documents table: the file (path, title, type, size, status, sections,
 * when added, delete) and, when opened, the list of its sections.
 */
import { useEffect, useRef } from 'preact/hooks'
import type { Doc } from '../api/types'
import { formatSize } from '../lib/format'
import type { Sections } from '../lib/use-sections'
import { visibleText } from '../lib/visible-text'
import { StatusBadge } from './base-status'
import { FileName } from './file-name'
import { Button, ErrorBox, Loading, Time } from './ui'

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
export function DocRows(props: {
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

/** The sections of an opened document, or why they could not be read. */
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
