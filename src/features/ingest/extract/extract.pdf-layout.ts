import { findHeadings, type Heading, type LineContext } from './extract.pdf-headings.ts'
import { bodyFont, lineSpacing, type PdfLine } from './extract.pdf-lines.ts'
import { cleanText } from './extract.text-util.ts'

// A PDF's lines made into paragraphs. A printed page breaks lines where the column ends, not where
// the author did: lines of one paragraph are joined with a space (a word hyphenated across the
// break is made whole), paragraphs are parted by a blank line, and the breaks that mean something
// (list items, table rows, a table of contents, verse) stay. A paragraph that runs on to the next
// page or column is joined across the break, so no passage starts in the middle of a sentence.

/** A run of a page's text: the part before its first heading, or a heading and what follows it. */
export interface PagePart {
  /** The heading that starts the part, or null for the text before the page's first heading. */
  heading: string | null
  text: string
}

/** A page as paragraphs, split where headings start. */
export interface LaidPage {
  page: number
  parts: PagePart[]
  /**
   * How the page's first part continues the previous page's last paragraph: a space, or nothing
   * (a hyphenated word made whole); null when it starts a paragraph of its own.
   */
  glue: string | null
}

/** A step up the page larger than this share of the font size is a new column (or a jump). */
const COLUMN_JUMP = 0.5
/** A gap between baselines this much wider than the usual line spacing parts paragraphs. */
const PARAGRAPH_GAP = 1.3
/** Without a usual spacing to compare to, a gap this many font sizes wide parts paragraphs. */
const PARAGRAPH_GAP_FONT = 1.7

const BULLET = /^(?:[•●○◦▪■□►▸‣⁃∙·*–-]\s|\(?\d{1,3}[.)]\s|\(?[a-z][.)]\s|\(?[ivx]{1,4}[.)]\s)/u
const LEADERS = /(?:\.\s?){3,}\s*\d*$|…\s*\d+$/
// The end of a sentence or clause: the next line cannot continue it.
const ENDS_SENTENCE = /[.!?:;]["”’')\]»]*$/u

/**
 * Lays out a document's pages (their lines in reading order, furniture removed): paragraphs,
 * headings and the joins across page and column breaks. `pages[i]` is page i + 1.
 */
export function layoutPages(pages: PdfLine[][]): { pages: LaidPage[]; headings: number } {
  const all = pages.flat()
  const docSpacing = lineSpacing(all)
  const docFont = bodyFont(all)
  const info = pages.map((lines) => pageInfo(lines, docSpacing, docFont))
  // Document-wide indices, for the heading finder's look-ahead across page breaks.
  const contexts: LineContext[] = []
  pages.forEach((lines, p) => {
    const { breaks, full, font, height } = info[p]!
    lines.forEach((line, i) => {
      const previous = i > 0 ? lines[i - 1] : lastLine(pages, p)
      const standsApart = i > 0 ? breaks[i]! : !previous || ENDS_SENTENCE.test(previous.text.trim())
      contexts.push({ line, standsApart, full: full[i]!, bodyFont: font, bodyHeight: height })
    })
  })
  const found = findHeadings(all, (i) => contexts[i]!)
  // A heading's first line starts a part; the lines it wraps onto are in its title.
  const headingOf = new Map<PdfLine, Heading>()
  const wrapped = new Set<PdfLine>()
  for (const [i, h] of found) {
    headingOf.set(all[i]!, h)
    for (let k = 1; k < h.lines; k++) wrapped.add(all[i + k]!)
  }
  const laid = pages.map((lines, p) => layoutPage(lines, p + 1, info[p]!, headingOf, wrapped))
  for (let p = 1; p < pages.length; p++) {
    const before = lastLine(pages, p)
    const first = pages[p]![0]
    if (!before || !first || headingOf.has(before) || wrapped.has(before) || headingOf.has(first)) continue
    const glue = continuation(before, first)
    if (glue === null) continue
    laid[p]!.glue = glue
    if (glue === '') dropTrailingHyphen(laid, p)
  }
  return { pages: laid, headings: found.size }
}

interface PageInfo {
  /** Whether a paragraph break comes before line i. */
  breaks: boolean[]
  /** Whether line i is cut by the right edge of its block (the paragraph goes on below it). */
  full: boolean[]
  /** Whether line i sits higher than the line before it (a new column). */
  jumps: boolean[]
  /** The left edge of line i's block. */
  left: number[]
  font: string
  height: number
}

function pageInfo(lines: PdfLine[], docSpacing: number | null, docFont: string): PageInfo {
  const spacing = lineSpacing(lines) ?? docSpacing
  const breaks: boolean[] = []
  const jumps: boolean[] = []
  lines.forEach((line, i) => {
    if (i === 0) {
      breaks.push(true)
      jumps.push(false)
      return
    }
    const prev = lines[i - 1]!
    const size = Math.max(prev.height, line.height, 1)
    const dy = prev.y - line.y
    const jump = dy < -COLUMN_JUMP * size
    jumps.push(jump)
    breaks.push(jump || dy > (spacing !== null ? PARAGRAPH_GAP * spacing : PARAGRAPH_GAP_FONT * size))
  })
  // Blocks: runs of lines with no break; a line is full when the next word of its block could not
  // have fitted after it within the block's right edge.
  const full = lines.map(() => false)
  const left = lines.map(() => 0)
  for (let start = 0; start < lines.length; ) {
    let end = start + 1
    while (end < lines.length && !breaks[end]) end++
    let right = -Infinity
    let minX = Infinity
    for (let i = start; i < end; i++) {
      right = Math.max(right, lines[i]!.right)
      minX = Math.min(minX, lines[i]!.x)
    }
    for (let i = start; i < end; i++) {
      left[i] = minX
      // A line of cells (a tag set to the right) reaches the edge by its layout, not by wrapping.
      const line = lines[i]!
      if (i + 1 < end && line.cells.length === 1) {
        full[i] = right - line.right < firstWordWidth(lines[i + 1]!) + charWidth(line)
      }
    }
    start = end
  }
  const font = lines.length > 0 ? bodyFont(lines) : docFont
  const heights = lines
    .filter((l) => l.font === font)
    .map((l) => l.height)
    .sort((a, b) => a - b)
  const height = heights[Math.floor(heights.length / 2)] ?? 0
  return { breaks, full, jumps, left, font, height }
}

function layoutPage(
  lines: PdfLine[],
  page: number,
  info: PageInfo,
  headingOf: Map<PdfLine, Heading>,
  wrapped: Set<PdfLine>,
): LaidPage {
  const parts: PagePart[] = []
  let part: PagePart = { heading: null, text: '' }
  lines.forEach((line, i) => {
    const text = line.text.trim()
    const heading = headingOf.get(line)
    if (heading !== undefined) {
      if (part.text.trim() || part.heading !== null) parts.push(part)
      // The title whole, then what stood beside it on a line of its own: "Fiona\nRogue Item Pack II".
      const beside = heading.extras.join(' ')
      part = { heading: heading.title, text: beside ? `${heading.title}\n${beside}` : heading.title }
      return
    }
    if (wrapped.has(line)) return
    if (part.text === '') {
      part.text = text
      return
    }
    const prev = lines[i - 1]!
    const afterHeading = headingOf.has(prev) || wrapped.has(prev)
    part.text = joinLines(part.text, text, separator(prev, line, i, info, afterHeading))
  })
  if (part.text.trim() || part.heading !== null) parts.push(part)
  return { page, parts: parts.map((p) => ({ ...p, text: cleanText(p.text) })), glue: null }
}

/** What goes between two lines of a page: a space or nothing (one paragraph), a line break, or a blank line. */
function separator(prev: PdfLine, line: PdfLine, i: number, info: PageInfo, afterHeading: boolean): string {
  if (afterHeading) return '\n\n'
  if (info.breaks[i]) {
    // A paragraph that goes on at the top of the next column is one paragraph.
    return info.jumps[i] ? (continuation(prev, line) ?? '\n\n') : '\n\n'
  }
  const text = line.text.trim()
  // The same baseline: one visual line that pdf.js gave in two runs (after a superscript, say).
  const size = Math.max(prev.height, line.height, 1)
  if (Math.abs(prev.y - line.y) < 0.3 * size && line.x >= prev.right - 0.5 * size) {
    return /^[,.;:!?)\]]/.test(text) ? '' : ' '
  }
  if (BULLET.test(text) || prev.cells.length > 1 || line.cells.length > 1 || LEADERS.test(prev.text.trim())) {
    return '\n'
  }
  if (info.full[i - 1]) return inParagraph(prev.text.trim(), text)
  // A line that starts in lower case goes on with the sentence before it (a narrower box, a
  // line broken early by an inline picture).
  const goesOn = continuation(prev, line)
  if (goesOn !== null) return goesOn
  // A short line ends its paragraph when the next one is indented as a first line is; otherwise
  // the author broke the line (an address, verse, a list without bullets).
  return line.x - info.left[i]! >= 0.5 * Math.max(line.height, 1) ? '\n\n' : '\n'
}

/**
 * What joins two lines of one paragraph: nothing after a hyphen (`joinLines` removes it when it
 * broke a word in two) or a dash written without spaces, else a space.
 */
function inParagraph(prev: string, next: string): string {
  if (/\p{Ll}-$/u.test(prev) && /^\p{Ll}/u.test(next)) return ''
  // A compound broken at its own hyphen before a capital or a digit keeps it ("Lucene-BM25").
  if (/\p{L}-$/u.test(prev) && /^[\p{Lu}\p{N}]/u.test(next)) return ''
  if (/\S[—–]$/u.test(prev)) return ''
  return ' '
}

/**
 * How a line continues the paragraph of the line before it across a page or column break: a
 * space, nothing (a hyphenated word), or null when it does not (the line before ended a sentence,
 * or this one starts like a new one).
 */
function continuation(prev: PdfLine, next: PdfLine): string | null {
  const a = prev.text.trim()
  const b = next.text.trim()
  if (ENDS_SENTENCE.test(a) || BULLET.test(b) || prev.cells.length > 1 || next.cells.length > 1) return null
  // Text of another size (a footnote, a caption) is not the paragraph going on.
  if (Math.abs(prev.height - next.height) > 0.15 * Math.max(prev.height, next.height, 1)) return null
  if (/^\p{Ll}/u.test(b) || (a.endsWith(',') && /^\p{L}/u.test(b))) return inParagraph(a, b)
  return null
}

/** The text so far and the next line, joined; the hyphen of a word broken across them goes. */
function joinLines(text: string, next: string, sep: string): string {
  if (sep === '' && /\p{Ll}-$/u.test(text) && /^\p{Ll}/u.test(next)) return text.slice(0, -1) + next
  return text + sep + next
}

/** Removes the hyphen that ends the page before `p` (its word is completed on page p). */
function dropTrailingHyphen(laid: LaidPage[], p: number): void {
  for (let q = p - 1; q >= 0; q--) {
    const last = laid[q]!.parts[laid[q]!.parts.length - 1]
    if (!last) continue
    if (last.text.endsWith('-')) last.text = last.text.slice(0, -1)
    return
  }
}

/** The last line before page index p (skipping pages without lines), or undefined. */
function lastLine(pages: PdfLine[][], p: number): PdfLine | undefined {
  for (let q = p - 1; q >= 0; q--) {
    const lines = pages[q]!
    if (lines.length > 0) return lines[lines.length - 1]
  }
  return undefined
}

function charWidth(line: PdfLine): number {
  const n = line.text.trim().length
  return n > 0 ? (line.right - line.x) / n : line.height / 2
}

function firstWordWidth(line: PdfLine): number {
  const word = line.text.trim().split(/\s/, 1)[0] ?? ''
  return word.length * charWidth(line)
}
