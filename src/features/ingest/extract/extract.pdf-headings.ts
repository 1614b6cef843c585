import type { PdfLine } from './extract.pdf-lines.ts'

// Headings of a PDF that has no structure: a PDF's text layer does not say which lines are
// headings, so they are judged as a reader would: a short line standing on its own, set apart by
// its font or written as a title (Title Case, ALL CAPS), that ends without a sentence's punctuation
// and is followed by body text. Sections take their names from them ("Dragon", "Golem") instead of
// from the outline's coarse chapters.

/** Longest heading, in words and in characters. */
const MAX_WORDS = 12
const MAX_CHARS = 100
/** Lines a heading may be followed by (subheadings) before its body text starts. */
const LOOKAHEAD = 3
/** A line of at least this many words, or ending a sentence, is body text. */
const BODY_WORDS = 6

// Words a title leaves in lower case.
const SMALL = new Set(
  'a an and as at but by de del der des di du en for from in into la le les nor of on or over per the to upon via vs von with'.split(
    ' ',
  ),
)

// Abbreviations a title may end a line with.
const ABBREVIATION =
  /\b(?:Vol|No|Nos|Pt|Ch|Chap|Sec|Art|Fig|St|Mt|Dr|Mr|Mrs|Ms|Jr|Sr|Inc|Ltd|Co|Ed|Eds|Rev)\.$/

/** What is known of a line when its headingness is judged. */
export interface LineContext {
  line: PdfLine
  /** Whether a paragraph break (or the top of a page) comes before the line. */
  standsApart: boolean
  /** Whether the line reaches the right edge of its text block (a wrapped line of a paragraph). */
  full: boolean
  /** The font that sets most of the page's text, and its usual size. */
  bodyFont: string
  bodyHeight: number
}

/** A heading: its title, how many lines it takes (a long title wraps), and what its lines say beside it. */
export interface Heading {
  title: string
  lines: number
  /** The other cells of its lines: a tag set to the right ("Rogue Item Pack II", "Same as in DAO"). */
  extras: string[]
}

/**
 * The headings among a document's lines (in reading order, furniture removed), by the index of
 * their first line. `context(i)` tells what the layout knows of line i.
 */
export function findHeadings(lines: PdfLine[], context: (i: number) => LineContext): Map<number, Heading> {
  const out = new Map<number, Heading>()
  // `afterHeading`: the line follows a heading (found, or being judged), which sets it apart.
  const candidate = (i: number, afterHeading: boolean): boolean => {
    const c = context(i)
    if (!c.standsApart && !afterHeading) return false
    // A row of three or more cells is a table's (its column names), not a heading.
    if (c.full || c.line.cells.length > 2) return false
    const title = titleText(c.line)
    if (!headingShape(title, c)) return false
    const distinct =
      (c.line.font !== c.bodyFont && c.line.height >= 0.95 * c.bodyHeight) ||
      c.line.height > 1.15 * c.bodyHeight
    return distinct || titleCased(title)
  }
  for (let i = 0; i < lines.length; i++) {
    if (!candidate(i, out.has(i - 1))) continue
    // A heading leads into text; a run of short title-like lines that leads nowhere (figure
    // labels, a table's column names) is not one.
    let j = i + 1
    while (j < lines.length && j <= i + LOOKAHEAD && !isBody(lines[j]!) && candidate(j, true)) j++
    if (j < lines.length && isBody(lines[j]!)) {
      const heading = wrapped(lines, i)
      out.set(i, heading)
      i += heading.lines - 1
    }
  }
  return out
}

/**
 * The heading starting at line i with the lines it wraps onto: the next lines set in the same font
 * and size, one line below the other ("Trace-based Just-in-Time Type Specialization for Dynamic" /
 * "Languages").
 */
function wrapped(lines: PdfLine[], i: number): Heading {
  const first = lines[i]!
  let title = titleText(first)
  const extras = first.cells.slice(1)
  let n = 1
  for (let j = i + 1; j < lines.length && n < 3; j++) {
    const prev = lines[j - 1]!
    const next = lines[j]!
    const dy = prev.y - next.y
    const same =
      next.font === first.font && Math.abs(next.height - first.height) < 0.5 && next.page === first.page
    if (!same || dy <= 0 || dy > 1.6 * Math.max(first.height, 1) || isBody(next)) break
    const more = titleText(next)
    if (`${title} ${more}`.length > MAX_CHARS || /[.,;:!]$/.test(more)) break
    title = `${title} ${more}`
    extras.push(...next.cells.slice(1))
    n++
  }
  return { title, lines: n, extras }
}

/** The title a heading line gives: its first cell ("Fiona", not "Fiona   Rogue Item Pack II"). */
function titleText(line: PdfLine): string {
  return (line.cells[0] ?? line.text).replace(/\s+/g, ' ').trim()
}

/** Short, starting like a title, and not ending like a sentence or a clause. */
function headingShape(text: string, c: LineContext): boolean {
  if (text.length < 2 || text.length > MAX_CHARS) return false
  if (text.split(' ').length > MAX_WORDS) return false
  if ((text.match(/\p{L}/gu)?.length ?? 0) < 2) return false
  // A question is a heading ("What is cancer?"); other end punctuation ends a sentence or a clause,
  // unless the full stop is an abbreviation's ("A Study of the Fifth Blight, Vol." wraps to "One").
  if (/[.,;:!"”’')\]»]$/u.test(text) && !ABBREVIATION.test(text)) return false
  // Leaders and a page number: a line of a table of contents.
  if (/\.{3,}|…/.test(text)) return false
  const first = text.codePointAt(0)!
  const ch = String.fromCodePoint(first)
  if (/\p{Lu}|\p{N}/u.test(ch)) return true
  // Scripts without capitals (Chinese, Korean, ...) can only be told by their font.
  return /\p{Lo}/u.test(ch) && c.line.font !== c.bodyFont
}

/** Title Case or ALL CAPS: most words that count start with a capital. */
function titleCased(text: string): boolean {
  const words = text.split(' ').filter((w) => /\p{L}/u.test(w))
  if (words.length === 0) return false
  const letters = text.replace(/[^\p{L}]/gu, '')
  if (letters === letters.toUpperCase() && letters !== letters.toLowerCase()) return true
  const counted = words.filter((w, i) => i === 0 || !SMALL.has(w.toLowerCase()))
  const capital = counted.filter((w) => /^[^\p{L}]*[\p{Lu}]/u.test(w)).length
  return capital >= Math.max(1, Math.ceil(counted.length * 0.75))
}

/** A line of running text: long, or ending a sentence. */
function isBody(line: PdfLine): boolean {
  const text = line.text.trim()
  return text.split(/\s+/).length >= BODY_WORDS || /[.!?]["”’)]?$/u.test(text)
}
