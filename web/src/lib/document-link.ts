/**
 * The viewer's address: `/console/bases/{id}/documents/{doc}?at={start}-{end}`, the cited passage
 * as offsets into the document's text, so a link to a citation opens the same place after a
 * reload or in another tab of the console.
 */

/** A range of the document's text, in UTF-16 code units. */
export interface TextRange {
  start: number
  end: number
}

/** The viewer's console path for a document, at `at` when given. */
export function documentPath(baseId: string, docId: string, at?: TextRange | null): string {
  const path = `/console/bases/${encodeURIComponent(baseId)}/documents/${encodeURIComponent(docId)}`
  return at ? `${path}?at=${at.start}-${at.end}` : path
}

/** The `at` of the viewer's address; null when absent or not two ordered offsets. */
export function parseAt(at: string | undefined): TextRange | null {
  const m = /^(\d{1,9})-(\d{1,9})$/.exec(at ?? '')
  if (!m) return null
  const start = Number(m[1])
  const end = Number(m[2])
  return end >= start ? { start, end } : null
}
