import { tokenKind } from '../rank/index'
import { isStop, mostlyNoun, normWord, nounSense, stem } from '../text/index'

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
    const { norm, term, stop } = factsOf(raw)
    const first = out.length === 0
    const gap = text.slice(prevEnd, start)
    const c0 = raw.charCodeAt(0)
    out.push({
      start,
      end,
      norm,
      term,
      stop,
      kind: tokenKind(raw, 0, norm, stop, first),
      // A sentence's first word is capitalised anyway: a name only when it is no common noun.
      cap: c0 >= 65 && c0 <= 90 && (!first || senseOf(norm) < 0),
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

// What a word's spelling alone decides, worked out once a word rather than once a sentence read (the
// answer sentences of one base repeat their words): by raw word, and WordNet's by normal form. Each
// map is cleared whole past MAX_MEMO words (about 2 MB at most).
const MAX_MEMO = 10_000
const facts = new Map<string, { norm: string; term: string; stop: boolean }>()
const nouns = new Map<string, { sense: number; noun: boolean }>()

/** A raw word's normal form, index term (hyphenTerm) and whether it is a stop word. */
function factsOf(raw: string): { norm: string; term: string; stop: boolean } {
  let f = facts.get(raw)
  if (f === undefined) {
    const norm = normWord(raw)
    const stop = isStop(norm)
    f = { norm, term: stop ? norm : hyphenTerm(norm), stop }
    if (facts.size >= MAX_MEMO) facts.clear()
    facts.set(raw, f)
  }
  return f
}

function nounOf(norm: string): { sense: number; noun: boolean } {
  let n = nouns.get(norm)
  if (n === undefined) {
    n = { sense: nounSense(norm), noun: mostlyNoun(norm) }
    if (nouns.size >= MAX_MEMO) nouns.clear()
    nouns.set(norm, n)
  }
  return n
}

/** nounSense of a word in normal form, memoised. */
export function senseOf(norm: string): number {
  return nounOf(norm).sense
}

/** mostlyNoun of a word in normal form, memoised. */
export function isNoun(norm: string): boolean {
  return nounOf(norm).noun
}
