import { answerKind, stem, type Token, tokenize, UNSET, type WordInfo } from '../text/index'
import { descending } from './order'

/**
 * Kinds of answer a question asks for; a sentence offering one is more likely to hold the answer.
 * `noun`: a word below the question's kind in WordNet (QueryPlan.kind); it counts in ranking
 * passages, not in picking the answer sentence (measured: it made answers longer, not better).
 */
export const AnswerType = { none: 0, date: 1, number: 2, entity: 4, noun: 8 } as const

/** Bit flags of what one word of a sentence can be: a date part, a number, a proper name, of the noun kind. */
export const TokenKind = { date: 1, number: 2, entity: 4, noun: 8 } as const

/** A question reduced to what retrieval needs. */
export interface QueryPlan {
  /** Distinct index terms of the question, in order of first use (at most MAX_TERMS: see planQuery). */
  terms: string[]
  /** Pairs of term indexes adjacent in the question (a phrase match is stronger evidence). */
  pairs: [number, number][]
  /** The AnswerType the question asks for. */
  want: number
  /** Bits of terms that name the kind of answer ("what year", "which country"): weak evidence. */
  soft: number
  /** WordNet senses of the kind of thing asked for ("what language": language), empty when none. */
  kind: number[]
}

const MONTHS = new Set(
  'january february march april may june july august september october november december'.split(' '),
)
const DATE_WORDS = new Set(['century', 'centuries', 'decade', 'decades', 'bc', 'ad', 'bce', 'ce'])
const NUMBER_WORDS = new Set(
  `two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty fifty hundred
  thousand million billion trillion half dozen percent`.split(/\s+/),
)
const DATE_NOUNS = /^(year|years|date|century|decade|month|day|time|era|period|season)$/
const VALUE_NOUNS = /^(percentage|percent|number|amount|size|population|age|rate|proportion)$/
const PLACE_PERSON_NOUNS =
  /^(city|country|state|county|region|place|location|nation|continent|river|island|person|man|woman|team|company|organization|group|university|school|name|player|leader|king|president|author|scientist|church|party|stadium|building|language|event)$/

/** What kinds a word of original text can be (see TokenKind), from its surface and normal form. */
export function tokenKind(
  text: string,
  start: number,
  n: string,
  stop: boolean,
  sentenceStart: boolean,
): number {
  let k = 0
  const c0 = text.charCodeAt(start)
  if (c0 >= 48 && c0 <= 57) {
    k |= TokenKind.number
    if (/^(1\d{3}|20\d{2})s?$/.test(n) || /^\d{1,2}(st|nd|rd|th)$/.test(n)) k |= TokenKind.date
  } else if (NUMBER_WORDS.has(n)) k |= TokenKind.number
  if (MONTHS.has(n) || DATE_WORDS.has(n)) k |= TokenKind.date
  if (!sentenceStart && c0 >= 65 && c0 <= 90 && !stop) k |= TokenKind.entity
  return k
}

/**
 * tokenKind of a scanned content word at `start` of `text`, memoised on its info: the kinds depend
 * only on the raw word (its first character and normal form) and on whether it opens a sentence.
 */
export function wordKind(w: WordInfo, text: string, start: number, sentenceStart: boolean): number {
  if (sentenceStart) {
    if (w.kindFirst === UNSET) w.kindFirst = tokenKind(text, start, w.norm, false, true)
    return w.kindFirst
  }
  if (w.kind === UNSET) w.kind = tokenKind(text, start, w.norm, false, false)
  return w.kind
}

/** The answer type a question asks for, from its wh-word and the noun that follows. */
export function answerType(tokens: Token[]): number {
  for (let i = 0; i < tokens.length; i++) {
    const w = tokens[i]!.norm
    const next = tokens[i + 1]?.norm ?? ''
    const next2 = tokens[i + 2]?.norm ?? ''
    if (w === 'when') return AnswerType.date
    if (w === 'who' || w === 'whom' || w === 'whose' || w === 'where') return AnswerType.entity
    if (w === 'how') {
      if (/^(many|much|long|old|far|large|big|tall|high|often|fast|deep|wide|heavy)$/.test(next))
        return next === 'long' || next === 'often' ? AnswerType.number | AnswerType.date : AnswerType.number
      return AnswerType.none
    }
    if (w === 'what' || w === 'which') {
      const noun = next === 'is' || next === 'was' ? next2 : next
      if (DATE_NOUNS.test(noun)) return AnswerType.date
      if (VALUE_NOUNS.test(noun)) return AnswerType.number
      if (PLACE_PERSON_NOUNS.test(noun)) return AnswerType.entity
      return AnswerType.none
    }
  }
  return AnswerType.none
}

/** Index of the noun right after "what"/"which" (or "what is the"), the kind of thing asked for. */
function answerNoun(tokens: Token[]): number {
  for (let i = 0; i < tokens.length - 1; i++) {
    const w = tokens[i]!.norm
    if (w !== 'what' && w !== 'which') continue
    let j = i + 1
    while (j < tokens.length && tokens[j]!.stop) j++
    // Only a noun that names a kind of value ("what year", "what percentage"), right after.
    const noun = tokens[j]?.norm ?? ''
    return j - i <= 3 && (DATE_NOUNS.test(noun) || VALUE_NOUNS.test(noun)) ? j : -1
  }
  return -1
}

/** Terms a plan keeps at most (the scorer's masks and weights were made for short questions). */
export const MAX_TERMS = 16

/**
 * Turns a question into a QueryPlan; `weight` ranks terms to keep when over MAX_TERMS (by default
 * the question's own uses of each term).
 */
export function planQuery(question: string, weight?: (term: string) => number): QueryPlan {
  const tokens = tokenize(question)
  const order: string[] = []
  const seq: number[] = []
  for (const t of tokens) {
    if (t.stop) {
      seq.push(-1)
      continue
    }
    let i = order.indexOf(t.term)
    if (i < 0) i = order.push(t.term) - 1
    seq.push(i)
  }
  // A long question (more distinct terms than a plan keeps: a pasted paragraph, an email) keeps the
  // terms it repeats most, what it is about (the first used on a tie), and is not read as a short
  // question: no answer type, kind noun or answer noun, which a paragraph's words match by chance.
  const long = order.length > MAX_TERMS
  let terms = order
  let remap = order.map((_, i) => i)
  if (long) {
    const uses = new Map<string, number>()
    for (const s of seq) if (s >= 0) uses.set(order[s]!, (uses.get(order[s]!) ?? 0) + 1)
    const w = weight ?? ((t: string) => uses.get(t)!)
    const keep = new Set([...order].sort((a, b) => descending(w(a), w(b))).slice(0, MAX_TERMS))
    terms = order.filter((t) => keep.has(t))
    remap = order.map((t) => terms.indexOf(t))
  }
  const pairs: [number, number][] = []
  const seen = new Set<number>()
  let prev = -1
  for (const s of seq) {
    const cur = s < 0 ? -1 : remap[s]!
    if (prev >= 0 && cur >= 0 && cur !== prev && !seen.has(prev * 64 + cur)) {
      seen.add(prev * 64 + cur)
      pairs.push([prev, cur])
    }
    // Function words between two terms still leave them a phrase ("Bank of England").
    if (cur >= 0) prev = cur
  }
  if (long) return { terms, pairs, want: AnswerType.none, soft: 0, kind: [] }
  let soft = 0
  const noun = answerNoun(tokens)
  if (noun >= 0 && seq[noun]! >= 0 && remap[seq[noun]!]! >= 0) soft |= 1 << remap[seq[noun]!]!
  const kind = answerKind(tokens)
  return { terms, pairs, want: answerType(tokens) | (kind.length ? AnswerType.noun : 0), soft, kind }
}

/** Stems one word as the index does (for callers building their own term lists). */
export function termOf(word: string): string {
  return stem(word.toLowerCase())
}
