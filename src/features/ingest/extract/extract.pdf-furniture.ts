import type { PdfLine } from './extract.pdf-lines.ts'

// Page furniture: the page numbers and the running headers and footers a printed document repeats
// at the top or bottom of its pages ("4 Cancer Council", "What is cancer? 5"). They are not the
// document's text: left in, they land in the middle of sentences that run across a page break and
// in the passages an answer quotes.

/** Lines at each end of a page that may be furniture. */
const BAND_LINES = 2
/** Baselines this close (in PDF units) count as the same place on the page. */
const SAME_PLACE = 2.5
/** A line repeated at one end of this many pages is a running header or footer. */
const REPEATS = 3
/**
 * A line with a page number in it ("What is cancer? 5") is furniture on fewer pages: a chapter's
 * running footer repeats only on that chapter's odd or even pages.
 */
const REPEATS_WITH_FOLIO = 2
/** Longest running header or footer, in characters. */
const MAX_CHARS = 70
/** Pages this close count as running on: a running head may sit on every other page only. */
const NEIGHBOUR = 2

// "12", "- 12 -", "Page 12", "12 of 40", "12/40", "xiv" (front matter numbers to xxxix: no word
// such as "mix" or "did" reads as one), "Page 2 of Sample PDF".
const PAGE_NUMBER =
  /^(?:[-–—]\s*)?(?:page\s+)?(?:\d{1,4}|(?=[ivx])x{0,3}(?:ix|iv|v?i{0,3}))(?:\s*(?:of|\/)\s*\d{1,4})?(?:\s*[-–—])?$|^page\s+\d{1,4}\s+of\s.{1,60}$/i
// A number at either end of the line, as folios sit beside a running title.
const FOLIO = /^\d{1,4}\s|\s\d{1,4}$/

/** Whether a line is a bare page number. */
export function isPageNumber(text: string): boolean {
  return PAGE_NUMBER.test(text.trim())
}

/**
 * The lines of a document (its pages' lines) that are page furniture: a bare page number at the top
 * or bottom of a page, and any line that the top or bottom of other pages repeats at the same
 * place, its numbers aside.
 */
export function findFurniture(pages: PdfLine[][]): Set<PdfLine> {
  const out = new Set<PdfLine>()
  const groups = new Map<string, PdfLine[]>()
  for (const lines of pages) {
    for (const [band, line] of bandLines(lines)) {
      if (isPageNumber(line.text)) {
        out.add(line)
        continue
      }
      // A long line is text (a prompt repeated in an appendix), not a running head.
      if (line.text.trim().length > MAX_CHARS) continue
      const key = `${band}\n${normalise(line.text)}`
      const group = groups.get(key)
      if (group) group.push(line)
      else groups.set(key, [line])
    }
  }
  for (const group of groups.values()) {
    // Repeated at the same height: a heading that happens to open two pages sits where the text
    // flow put it, a running header where the page template did.
    const ys = group.map((l) => l.y).sort((a, b) => a - b)
    const median = ys[Math.floor(ys.length / 2)]!
    const placed = group.filter((l) => Math.abs(l.y - median) <= SAME_PLACE)
    const folio = placed.length > 0 && FOLIO.test(placed[0]!.text.trim())
    const repeated = placed.filter(sameOrFolio(placed))
    // Running heads repeat page after page (or every other page); a title that opens each part of
    // a book ("MAIN GAME" at pages 6, 183 and 317) is far apart each time, and stays.
    const pages = [...new Set(repeated.map((l) => l.page))].sort((a, b) => a - b)
    const running = pages.filter(
      (p, i) => p - (pages[i - 1] ?? -NEIGHBOUR) <= NEIGHBOUR || (pages[i + 1] ?? Infinity) - p <= NEIGHBOUR,
    )
    if (running.length >= (folio ? REPEATS_WITH_FOLIO : REPEATS)) {
      for (const l of repeated) if (running.includes(l.page)) out.add(l)
    }
  }
  // A chapter's running title seen on one page only ("The breasts 7") sits where the other running
  // titles do and numbers its page as they do.
  const places = [...out].flatMap((l) => {
    const n = folioOf(l.text.trim())
    return n === null ? [] : [{ y: l.y, offset: n - l.page }]
  })
  for (const lines of pages) {
    for (const [, line] of bandLines(lines)) {
      const n = folioOf(line.text.trim())
      if (n === null || out.has(line) || line.text.trim().length > MAX_CHARS) continue
      if (places.some((p) => Math.abs(p.y - line.y) <= SAME_PLACE && p.offset === n - line.page))
        out.add(line)
    }
  }
  return out
}

/** The lines nearest the top and the bottom of a page (by height on the page, not reading order). */
function bandLines(lines: PdfLine[]): ['top' | 'bottom', PdfLine][] {
  const byHeight = [...lines].sort((a, b) => b.y - a.y)
  const top = byHeight.slice(0, BAND_LINES)
  const bottom = byHeight.slice(-BAND_LINES).filter((l) => !top.includes(l))
  return [
    ...top.map((l) => ['top', l] as ['top', PdfLine]),
    ...bottom.map((l) => ['bottom', l] as ['bottom', PdfLine]),
  ]
}

/**
 * Which lines of a group repeat one text: the same text on every page, or a page number that moves
 * with the page ("What is cancer? 5" on page 7, "What is cancer? 7" on page 9). "Chapter 1" and
 * "Chapter 2" opening their chapters are headings, not furniture: their numbers do not follow the pages.
 */
function sameOrFolio(group: PdfLine[]): (l: PdfLine) => boolean {
  const texts = new Map<string, number>()
  const offsets = new Map<number, number>()
  for (const l of group) {
    const text = l.text.trim()
    texts.set(text, (texts.get(text) ?? 0) + 1)
    const n = folioOf(text)
    if (n !== null) offsets.set(n - l.page, (offsets.get(n - l.page) ?? 0) + 1)
  }
  let offset: number | null = null
  let most = 1
  for (const [o, n] of offsets) {
    if (n > most) {
      offset = o
      most = n
    }
  }
  return (l) => {
    const text = l.text.trim()
    if ((texts.get(text) ?? 0) > 1) return true
    const n = folioOf(text)
    return n !== null && offset !== null && n - l.page === offset
  }
}

/** The number at the start or the end of a line, or null. */
function folioOf(text: string): number | null {
  const m = /^(\d{1,4})\s|\s(\d{1,4})$/.exec(text)
  return m ? Number(m[1] ?? m[2]) : null
}

/** A line's text as repeats are compared: case, spacing and numbers aside. */
function normalise(text: string): string {
  return text.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim()
}
