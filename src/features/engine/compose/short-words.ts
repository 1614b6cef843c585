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
    const raw = m[0].replace(/^[$£€¥]/, '').replace(/%$/, '')
    const norm = normWord(raw)
    const stop = isStop(norm)
    const first = out.length === 0
    const gap = text.slice(prevEnd, start)
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
      broken: !first && /[^\s]/.test(gap),
      comma: !first && gap.trim() === ',',
    })
    prevEnd = end
  }
  return out
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
