// The pages of a paged document (a PDF) as ranges of its text sidecar, as extraction recorded them
// (`documents.page_ranges`), and what they tell: which page an offset of the text is on.

/** One page as a range of its document's text: offsets in UTF-16 code units, as JavaScript counts. */
export interface PageRange {
  number: number
  start: number
  end: number
}

/** The column's form: `[[start, end], ...]`, page n at index n - 1. */
export function encodePageRanges(pages: readonly PageRange[]): string {
  return JSON.stringify(pages.map((p) => [p.start, p.end]))
}

/** The pages a column holds, or null (not a paged document, or extracted before pages were kept). */
export function decodePageRanges(column: string | null): PageRange[] | null {
  if (column === null) return null
  const pairs = JSON.parse(column) as [number, number][]
  return pairs.map(([start, end], i) => ({ number: i + 1, start, end }))
}

/**
 * The page an offset of the text falls on: the last page that starts at or before it (a blank page
 * starts where the next page does, so an offset there is the next page's). Null without pages.
 */
export function pageAt(pages: readonly PageRange[] | null, offset: number): number | null {
  if (!pages) return null
  let lo = 0
  let hi = pages.length - 1
  let found: number | null = null
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (pages[mid]!.start <= offset) {
      found = pages[mid]!.number
      lo = mid + 1
    } else hi = mid - 1
  }
  return found
}
