import { kindTest, nounSense } from './hypernyms'
import { TokenKind } from './query'
import { type ShortQuestion, Want } from './short-question'
import { type Span, SpanType } from './short-spans'
import type { SpanWord } from './short-words'

/** The features a candidate span is scored on (short.ts weighs them). */
export const FEATURES = [
  'typeDate',
  'typeNumber',
  'valueOff',
  'namePerson',
  'namePlace',
  'nameThing',
  'kind',
  'phrasePerson',
  'phrasePlace',
  'phraseThing',
  'phraseValue',
  'overlap',
  'dist',
  'len',
  'one',
  'long',
  'partial',
  'later',
  'after',
  'before',
  'verb',
  'head',
  'window',
  'prep',
] as const

export type Features = Record<(typeof FEATURES)[number], number>

// How many words may stand between a span and the question word next to it ("the members ... proclaimed").
const GAP = 3
// The words either side of a span in which the question's words are counted.
const WINDOW = 6
// Prepositions that introduce each kind of answer: "in Paris", "in 1879", "by Scheele".
const PREPS: Record<number, Set<string>> = {
  [Want.place]: new Set(['in', 'at', 'from', 'near', 'to', 'into', 'on']),
  [Want.date]: new Set(['in', 'on', 'since', 'by', 'until', 'from', 'during', 'after', 'before']),
  [Want.person]: new Set(['by']),
}

/**
 * What makes a span of a sentence (`rank`: 0 for the best one) the answer to a question: its type
 * against the one asked for, its overlap with the question, its closeness to the question's words
 * and where the question's word order puts the answer. Null for a span that only repeats the question.
 */
export function spanFeatures(words: SpanWord[], s: Span, q: ShortQuestion, rank: number): Features | null {
  let content = 0
  let shared = 0
  let head = 0
  for (let i = s.from; i < s.to; i++) {
    const x = words[i]!
    if (x.stop) continue
    content++
    if (x.term === q.head) head = 1
    else if (q.terms.has(x.term)) shared++
  }
  if (content === 0 || shared + head === content || edgeRepeats(words, s, q)) return null
  // Only value spans count as values: a phrase holding one is a longer, worse copy of it.
  const value = s.type === SpanType.value
  const isDate = value && (s.kind & TokenKind.date) !== 0
  const isNumber = value && (s.kind & TokenKind.number) !== 0
  const f: Features = {
    typeDate: q.want === Want.date ? (isDate ? 1 : isNumber ? 1 / 3 : 0) : 0,
    typeNumber: q.want === Want.number && isNumber && !isDate ? 1 : 0,
    valueOff: value && q.want !== Want.date && q.want !== Want.number ? 1 : 0,
    namePerson: s.type === SpanType.name && q.want === Want.person ? 1 : 0,
    namePlace: s.type === SpanType.name && q.want === Want.place ? 1 : 0,
    nameThing: s.type === SpanType.name && q.want === Want.thing ? 1 : 0,
    kind: 0,
    phrasePerson: s.type === SpanType.phrase && q.want === Want.person ? 1 : 0,
    phrasePlace: s.type === SpanType.phrase && q.want === Want.place ? 1 : 0,
    phraseThing: s.type === SpanType.phrase && q.want === Want.thing ? 1 : 0,
    phraseValue: s.type === SpanType.phrase && (q.want === Want.date || q.want === Want.number) ? 1 : 0,
    overlap: shared / content,
    dist: 0,
    len: Math.max(0, s.to - s.from - 2),
    one: s.to - s.from === 1 ? 1 : 0,
    long: s.to - s.from > 5 ? 1 : 0,
    // The tail or head of a longer run of content words: part of a phrase, not all of it.
    partial: cut(words, s) ? 1 : 0,
    later: rank,
    after: q.after !== null && within(words, s.to, s.to + GAP + 1, q.after) ? 1 : 0,
    before: q.before !== null && within(words, s.from - GAP - 1, s.from, q.before) ? 1 : 0,
    verb: q.last !== null && within(words, s.from - GAP - 1, s.from, q.last) ? 1 : 0,
    head,
    window: 0,
    prep: s.from > 0 && PREPS[q.want]?.has(words[s.from - 1]!.norm) ? 1 : 0,
  }
  if (q.kind.length > 0) {
    const sense = nounSense(words[s.to - 1]!.norm)
    if (sense >= 0 && kindTest(q.kind).has(sense)) f.kind = 1
  }
  let dist = 10
  const seen = new Set<string>()
  for (let i = Math.max(0, s.from - WINDOW); i < Math.min(words.length, s.to + WINDOW); i++) {
    const x = words[i]!
    if (x.stop || !q.terms.has(x.term) || (i >= s.from && i < s.to)) continue
    seen.add(x.term)
    dist = Math.min(dist, i < s.from ? s.from - i : i - s.to + 1)
  }
  f.dist = dist
  f.window = seen.size / Math.max(1, q.terms.size)
  return f
}

/** Whether a word of index term `term` is among words [from, to). */
function within(words: SpanWord[], from: number, to: number, term: string): boolean {
  for (let i = Math.max(0, from); i < Math.min(words.length, to); i++)
    if (words[i]!.term === term) return true
  return false
}

/** Whether a span cuts a run of content words (it starts or ends inside one). */
function cut(words: SpanWord[], s: Span): boolean {
  const prev = words[s.from - 1]
  const next = words[s.to]
  return (!!prev && !prev.stop && !words[s.from]!.broken) || (!!next && !next.stop && !next.broken)
}

/** Whether a value ends on a unit the question names ("200 million people" for "how many people"). */
function edgeRepeats(words: SpanWord[], s: Span, q: ShortQuestion): boolean {
  const last = words[s.to - 1]!
  const unit = (last.kind & (TokenKind.date | TokenKind.number)) === 0
  return s.type === SpanType.value && unit && !last.stop && q.terms.has(last.term)
}
