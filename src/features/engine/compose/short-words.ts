import { tokenKind } from '../rank/index'
import { isStop, normWord, nounSense, stem } from '../text/index'

/** One word of an answer sentence, as the short-answer picker sees it. */
export interface SpanWord {
  start: number
  end: number
  /** Normal form (lower case, no accents, no possessive). */
  norm: string
  term: string
  stop: boolean
  /** TokenKind bits (date, number, entity). */
  kind: number
  /** Starts with a capital letter. */
  cap: boolean
  /** Separated from the previous word by punctuation (a comma, a bracket, a dash), not by a space. */
  broken: boolean
  /** The punctuation before it is a comma alone. */
  comma: boolean
}

// A word: letters and digits, inner dots, commas, apostrophes and hyphens ("3,000", "U.S", "mid-1970s"),
// a leading currency sign and a trailing percent sign.
const WORD = /[$£€¥]?[\p{L}\p{N}]+(?:[.,'’\-–][\p{L}\p{N}]+)*%?/gu

/** The words of a sentence with their offsets, kinds and the punctuation between them. */
export function spanWords(text: string): SpanWord[] {
  const out: SpanWord[] = []
  let prevEnd = 0
  for (const m of text.matchAll(WORD)) {
    const start = m.index
    const end = start + m[0].length
    const raw = m[0].replace(CURRENCY, '').replace(PERCENT, '')
    const norm = normWord(raw)
    const stop = isStop(norm)
    const first = out.length === 0
    const gap = first ? SPACE : gapBetween(text, prevEnd, start)
    const c0 = raw.charCodeAt(0)
    out.push({
      start,
      end,
      norm,
      term: stop ? norm : hyphenTerm(norm),
      stop,
      kind: tokenKind(raw, 0, norm, stop, first),
      // A sentence's first word is capitalised anyway: a name only when it is no common noun.
      cap: c0 >= 65 && c0 <= 90 && (!first || nounSense(norm) < 0),
      broken: gap !== SPACE,
      comma: gap === COMMA,
    })
    prevEnd = end
  }
  return out
}

// A word's leading currency sign and trailing percent sign, made once (a literal is a new object each time).
const CURRENCY = /^[$£€¥]/
const PERCENT = /%$/

// What separates two words: white space only, a comma alone (white space aside), or other punctuation.
const SPACE = 0
const COMMA = 1
const OTHER = 2

/** What lies in text[from, to) between two words, read without making a string of it. */
function gapBetween(text: string, from: number, to: number): number {
  let marks = 0
  let comma = false
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i)
    if (isSpace(c)) continue
    marks++
    comma = c === 44
  }
  return marks === 0 ? SPACE : marks === 1 && comma ? COMMA : OTHER
}

/** Whether a UTF-16 unit is white space as a regular expression's \s and String.trim read it. */
function isSpace(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  )
}

/**
 * A word's index term; a hyphenated word's is its parts' terms joined by hyphens ("news-record"), as
 * shortQuestion joins a question's hyphenated words, so that a span repeating one is seen to.
 */
export function hyphenTerm(norm: string): string {
  return norm.includes('-')
    ? norm
        .split('-')
        .map((p) => (isStop(p) ? p : stem(p)))
        .join('-')
    : stem(norm)
}
