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

// Per UTF-16 unit, whether a class below holds it: 0 not asked yet, 1 yes, 2 no. Each is the
// regular expression's answer for the unit alone (as `text[i]` gives it), asked once a unit.
const SPACE = /\s/
const OPENER = /[\p{Lu}\p{N}"“'‘([]/u
const WORDISH = /[\p{L}\p{N}.]/u
const spaceUnits = new Uint8Array(65536)
const openerUnits = new Uint8Array(65536)
const wordishUnits = new Uint8Array(65536)

/** Whether the regular expression `re` matches the single unit `c`, memoised in `memo`. */
function unitIs(memo: Uint8Array, re: RegExp, c: number): boolean {
  let v = memo[c]!
  if (v === 0) {
    v = re.test(String.fromCharCode(c)) ? 1 : 2
    memo[c] = v
  }
  return v === 1
}

/** Whether text's unit at i is white space (`\s`). */
function spaceAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i)
  if (c === 32) return true
  return unitIs(spaceUnits, SPACE, c)
}

/** Closing quotes and brackets that may follow a sentence's end: " ' ” ’ ) ]. */
function isCloser(c: number): boolean {
  return c === 34 || c === 39 || c === 0x201d || c === 0x2019 || c === 41 || c === 93
}

/**
 * Where a reference mark at j ends ("[12]": 1 to 40 units other than "]" or a newline between
 * brackets, all before `to`), or j when there is none.
 */
function afterMark(text: string, j: number, to: number): number {
  if (j >= to || text.charCodeAt(j) !== 91) return j
  const last = Math.min(to, j + 42)
  for (let k = j + 1; k < last; k++) {
    const c = text.charCodeAt(k)
    if (c === 10) return j
    if (c === 93) return k > j + 1 ? k + 1 : j
  }
  return j
}

/**
 * The sentences of text[from, to), trimmed, as spans. Blank lines always end a sentence, and so
 * does the end of a table row's line; a row is never cut inside.
 */
export function splitSentences(text: string, from = 0, to = text.length): Span[] {
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
    while (s < e && spaceAt(text, s)) s++
    while (e > s && spaceAt(text, e - 1)) e--
    if (e > s) pushCapped(text, s, e, out)
    start = end
  }
  for (let i = from; i < to; i++) {
    const ch = text.charCodeAt(i)
    if (ch === 10) {
      if (inRow(i) || isBreakAfterNewline(text, start, i, to)) push(i)
      continue
    }
    if (ch !== 46 && ch !== 33 && ch !== 63) continue
    let j = i + 1
    while (j < to && isCloser(text.charCodeAt(j))) j++
    // A reference mark after the end belongs to the sentence it closes: "...in 1978.[12] On November".
    j = afterMark(text, j, to)
    if (j < to && !spaceAt(text, j)) continue
    let k = j
    while (k < to && spaceAt(text, k)) k++
    if (k >= to) continue
    if (!unitIs(openerUnits, OPENER, text.charCodeAt(k))) continue
    if (ch === 46 && isAbbreviation(text, start, i)) continue
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
  let c = text.charCodeAt(k)
  while (k < to && (c === 32 || c === 9 || c === 13)) c = text.charCodeAt(++k)
  if (k < to && text.charCodeAt(k) === 10) return true
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
  while (b > start && unitIs(wordishUnits, WORDISH, text.charCodeAt(b - 1))) b--
  const word = text.slice(b, dot)
  if (word.length === 0) return false
  // (Each test only where it can hold: one code point is at most two units; "U.S" has a period.)
  if (word.length <= 2 && /^\p{Lu}$/u.test(word)) return true // an initial: "J. R. R. Tolkien"
  if (word.includes('.') && /^(\p{L}\.)+\p{L}$/u.test(word)) return true // U.S. / e.g.
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
  while (n < e && spaceAt(text, n)) n++
  if (n < e) pushCapped(text, n, e, out)
}

/** The paragraphs of a text (runs separated by blank lines), as spans. */
export function splitParagraphs(text: string): Span[] {
  const out: Span[] = []
  const re = /\n[ \t\r]*\n/g
  let start = 0
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (hasText(text, start, m.index)) out.push({ start, end: m.index })
    start = m.index + m[0].length
  }
  if (hasText(text, start, text.length)) out.push({ start, end: text.length })
  return out
}

/** Whether text[from, to) holds more than white space (what trim() leaves), without slicing it. */
function hasText(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!spaceAt(text, i)) return true
  return false
}
