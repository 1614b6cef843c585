import type { Actor } from '../../../platform/auth/principal'
import { fail, notFound } from '../../../platform/errors/errors'
import { type DocumentRow, type PageRange, pageAt } from '../../corpora/corpora.service'
import type { IngestDeps } from '../ingest.types'
import { textWindow } from './text-window'

// Reading a document back: its extracted text (a window of it, with its pages and sections, for a
// viewer that opens it at a cited passage) and its original file. Both are read from the object
// store as streams, so a large document costs a window's memory, not the whole file's.

/** The most text one read answers, in UTF-16 code units (the 619-page manual's text is 1.8 M). */
export const TEXT_WINDOW_MAX = 1_000_000

/** A section of a document as a range of its text. */
export interface SectionRange {
  id: string
  title: string | null
  start: number
  end: number
  /** The page (of a PDF) the section starts on. */
  page: number | null
}

/** A window of a document's extracted text, with where its pages and sections lie. */
export interface DocumentText {
  document: DocumentRow
  /** Length of the whole text. */
  chars: number
  offset: number
  text: string
  nextOffset: number | null
  pages: PageRange[] | null
  sections: SectionRange[]
}

/** The original file of a document, as a stream. */
export interface RawFile {
  document: DocumentRow
  body: ReadableStream<Uint8Array>
  /** Bytes of the stored object (content pushed to a presigned URL is checked only by extraction). */
  size: number
}

type ReadingDeps = Pick<IngestDeps, 'store' | 'corpora' | 'objects' | 'events'>

/** A document of a base by its id or one of its sections' ids: its file's row. 404 otherwise. */
async function fileOf(deps: ReadingDeps, workspaceId: string, corpusId: string, documentId: string) {
  await deps.corpora.get(workspaceId, corpusId)
  const row = await deps.corpora.document(corpusId, documentId)
  if (!row) throw notFound('Document')
  const parent = row.parent_id ? await deps.corpora.document(corpusId, row.parent_id) : row
  if (!parent) throw notFound('Document')
  return { row, parent }
}

/**
 * A window of a document's text: from `offset` (by default its start, or the start of the section
 * named) for at most `limit` code units. 409 `document_not_ready` while it has no text.
 */
export async function readText(
  deps: ReadingDeps,
  workspaceId: string,
  corpusId: string,
  documentId: string,
  window: { offset?: number | undefined; limit?: number | undefined },
): Promise<DocumentText> {
  const { row, parent } = await fileOf(deps, workspaceId, corpusId, documentId)
  if (parent.text_key === null) throw notReady(parent)
  const chars = parent.text_chars
  const pages = await deps.corpora.pageRanges(parent)
  const sectionRows = await deps.corpora.sections(parent.id)
  const sections: SectionRange[] = (sectionRows.length > 0 ? sectionRows : [parent]).map((s) => {
    const start = s.parent_id === null ? 0 : (s.text_offset ?? 0)
    const end = s.parent_id === null ? chars : start + s.text_chars
    return { id: s.id, title: s.section_title, start, end, page: pageAt(pages, start) }
  })
  const offset = Math.min(window.offset ?? (row.parent_id === null ? 0 : (row.text_offset ?? 0)), chars)
  const limit = Math.min(window.limit ?? TEXT_WINDOW_MAX, TEXT_WINDOW_MAX)
  const stream = await deps.objects.get(parent.text_key)
  if (!stream) throw notReady(parent)
  const text = await textWindow(stream, offset, limit)
  const end = offset + text.length
  return { document: parent, chars, offset, text, nextOffset: end < chars ? end : null, pages, sections }
}

/**
 * The original file of a document, and the audit log's `document.downloaded` (published in a
 * unit of its own, before the first byte goes out).
 */
export async function readRaw(
  deps: ReadingDeps,
  workspaceId: string,
  corpusId: string,
  documentId: string,
  actor: Actor,
): Promise<RawFile> {
  const { parent } = await fileOf(deps, workspaceId, corpusId, documentId)
  const head = parent.raw_key ? await deps.objects.head(parent.raw_key) : null
  const body = head && parent.raw_key ? await deps.objects.get(parent.raw_key) : null
  if (!head || !body) throw notFound('Document file')
  await deps.store.unit(() =>
    deps.events.publish({
      type: 'document.downloaded',
      workspaceId,
      payload: { corpusId, documentId: parent.id, filename: parent.path, size: parent.size, actor },
    }),
  )
  return { document: parent, body, size: head.size }
}

/** 409 for a document whose text is not there: not extracted yet, or extraction failed. */
function notReady(doc: DocumentRow) {
  return doc.status === 'failed' && doc.error
    ? fail('document_not_ready', `The text of ${doc.path} could not be extracted: ${doc.error}`)
    : fail('document_not_ready', `The text of ${doc.path} is not extracted yet.`)
}
