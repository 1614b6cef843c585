// The sentence splitter before sentences.ts read characters by code instead of one-character regular
// expressions, kept verbatim as the reference sentences.test.ts compares the new one with.

/** A span of a text: [start, end) character offsets. */
export interface Span {
  start: number
  end: number
}

// Words after which a period does not end a sentence (titles, Latin, common short forms).
const ABBREV = new Set(
  `mr mrs ms dr prof st jr sr vs etc e.g i.e eg ie inc ltd co corp no nos fig figs gen gov sen rep mt ft
  approx ca c cf al jan feb mar apr jun jul aug sep sept oct nov dec est dept univ assn bros op vol pp p ed eds
  lt col capt sgt cmdr adm maj rev hon pres v`
    .split(/\s+/)
    .filter(Boolean),
)

// Longest a sentence may be before it is cut at a clause boundary: run-on text from tables, lists or
// extraction without punctuation would otherwise make one "sentence" of a whole page.
const MAX_SENTENCE_CHARS = 600

// A table row as extraction renders a CSV's or a spreadsheet's ("header: value; header: value"). A
// row is a sentence of its own: rows follow each other without a sentence's end, and cutting a run of
// them by length would start a passage, and so a citation, in the middle of one ("sex: MALE⏎species:
// Gentoo; ..."). (A Markdown table's lines are text, read as before: a row of cells between bars,
// short and dense in words, would otherwise outrank the prose that answers.)
const ROW_LINE = /^[^:;\n]{1,80}: [^\n]*; [^:;\n]{1,80}: /
// Each cell of a row: a header and its value.
const CELL = /^[^:;\n]{1,80}: /

/**
 * Whether the line starting at `lineStart` is a table row: every "; "-separated part of it a header
 * and its value (prose such as "Note: prices rose; the company grew. Sales ..." has a part without one).
 */
function isRowLine(text: string, lineStart: number): boolean {
  const end = text.indexOf('\n', lineStart)
  const line = text.slice(lineStart, end < 0 ? text.length : end)
  return ROW_LINE.test(line) && line.split('; ').every((part) => CELL.test(part))
}

/**
 * The sentences of text[from, to), trimmed, as spans. Blank lines always end a sentence, and so
 * does the end of a table row's line; a row is never cut inside.
 */
export function splitSentencesReference(text: string, from = 0, to = text.length): Span[] {
  const out: Span[] = []
  let start = from
  // Whether the line being read is a row, worked out once a line (at its first possible sentence end).
  let rowAt = -1
  let row = false
  const inRow = (i: number) => {
    const lineStart = text.lastIndexOf('\n', i - 1) + 1
    if (lineStart !== rowAt) {
      rowAt = lineStart
      row = isRowLine(text, lineStart)
    }
    return row
  }
  const push = (end: number) => {
    let s = start
    let e = end
    while (s < e && /\s/.test(text[s]!)) s++
    while (e > s && /\s/.test(text[e - 1]!)) e--
    if (e > s) pushCapped(text, s, e, out)
    start = end
  }
  for (let i = from; i < to; i++) {
    const ch = text[i]!
    if (ch === '\n') {
      if (inRow(i) || isBreakAfterNewline(text, start, i, to)) push(i)
      continue
    }
    if (ch !== '.' && ch !== '!' && ch !== '?') continue
    let j = i + 1
    while (j < to && /["'”’)\]]/.test(text[j]!)) j++
    // A reference mark after the end belongs to the sentence it closes: "...in 1978.[12] On November".
    const mark = /^\[[^\]\n]{1,40}\]/.exec(text.slice(j, Math.min(to, j + 42)))
    if (mark) j += mark[0].length
    if (j < to && !/\s/.test(text[j]!)) continue
    let k = j
    while (k < to && /\s/.test(text[k]!)) k++
    if (k >= to) continue
    if (!/[\p{Lu}\p{N}"“'‘([]/u.test(text[k]!)) continue
    if (ch === '.' && isAbbreviation(text, start, i)) continue
    // A period inside a cell ("name: Braund, Mr. Owen Harris") does not end the row.
    if (inRow(i)) continue
    push(j)
    i = j - 1
  }
  push(to)
  return out
}

/** A newline ends a sentence at a blank line, or after a short heading-like line without punctuation. */
function isBreakAfterNewline(text: string, start: number, i: number, to: number): boolean {
  let k = i + 1
  while (k < to && (text[k] === ' ' || text[k] === '\t' || text[k] === '\r')) k++
  if (k < to && text[k] === '\n') return true
  const lineStart = text.lastIndexOf('\n', i - 1) + 1
  const line = text.slice(Math.max(start, lineStart), i).trim()
  if (line.length === 0) return false
  if (/[.!?:;]["'”’)]?$/.test(line)) return true
  // A short line with no final punctuation followed by a capital is a heading or a list item, when
  // the line is all its own: a wrapped line that began by ending the sentence before ("... (4).
  // SpiderMonkey is the JavaScript⏎VM embedded in ...") is the middle of a sentence, not a heading.
  if (text.slice(lineStart, start).trim().length > 0) return false
  return line.length < 80 && k < to && /[\p{Lu}\p{N}•\-*]/u.test(text[k]!)
}

/** Whether the period at `dot` closes an abbreviation or an initial rather than a sentence. */
function isAbbreviation(text: string, start: number, dot: number): boolean {
  let b = dot
  while (b > start && /[\p{L}\p{N}.]/u.test(text[b - 1]!)) b--
  const word = text.slice(b, dot)
  if (word.length === 0) return false
  if (/^\p{Lu}$/u.test(word)) return true // an initial: "J. R. R. Tolkien"
  if (/^(\p{L}\.)+\p{L}$/u.test(word)) return true // U.S. / e.g.
  if (/^\d+$/.test(word)) return false
  return ABBREV.has(word.toLowerCase())
}

/** Cuts an over-long sentence at `;`, then `,`, then white space, so no span exceeds the cap. */
function pushCapped(text: string, s: number, e: number, out: Span[]): void {
  if (e - s <= MAX_SENTENCE_CHARS) {
    out.push({ start: s, end: e })
    return
  }
  const window = text.slice(s, s + MAX_SENTENCE_CHARS)
  let cut = -1
  for (const sep of ['; ', ', ', ' ']) {
    const at = window.lastIndexOf(sep)
    if (at > MAX_SENTENCE_CHARS / 3) {
      cut = s + at + sep.length - 1
      break
    }
  }
  if (cut < 0) cut = s + MAX_SENTENCE_CHARS
  out.push({ start: s, end: cut })
  let n = cut
  while (n < e && /\s/.test(text[n]!)) n++
  if (n < e) pushCapped(text, n, e, out)
}

/** The paragraphs of a text (runs separated by blank lines), as spans. */
export function splitParagraphsReference(text: string): Span[] {
  const out: Span[] = []
  const re = /\n[ \t\r]*\n/g
  let start = 0
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (text.slice(start, m.index).trim()) out.push({ start, end: m.index })
    start = m.index + m[0].length
  }
  if (text.slice(start).trim()) out.push({ start, end: text.length })
  return out
}
