import type { ExtractedSection, PageRange } from './extract.types.ts'

// Where each page of a PDF lies in its text sidecar, so that a viewer can show page numbers and a
// citation can say which page its passage is on.

/**
 * The range of `text` (the sections joined by blank lines) each page 1..count covers. A page ends
 * where the next one starts, less the blank line or space between them; a page without text is
 * empty and sits where the next page with text starts (or at the end).
 */
export function pageRanges(text: string, sections: ExtractedSection[], count: number): PageRange[] {
  const starts = new Map<number, number>()
  let offset = 0
  for (const s of sections) {
    for (const p of s.pageStarts ?? []) if (!starts.has(p.page)) starts.set(p.page, offset + p.offset)
    offset += s.text.length + 2
  }
  const out: PageRange[] = []
  let next = text.length
  for (let n = count; n >= 1; n--) {
    const start = starts.get(n) ?? next
    let end = next
    while (end > start && /\s/.test(text[end - 1]!)) end--
    out.push({ number: n, start, end })
    next = start
  }
  return out.reverse()
}
