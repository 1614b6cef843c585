import { TokenKind } from '../rank/index'
import { kindTest, normWord, nounSense } from '../text/index'
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
  'sideOk',
  'sideBad',
  'clause',
  'copula',
  'found',
  'cue',
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
    ...sides(words, s, q),
    clause: 0,
    copula: copula(words, s, q) ? 1 : 0,
    found: 0,
    cue: cue(words, s.from) ? 1 : 0,
  }
  if (q.kind.length > 0) {
    const sense = nounSense(words[s.to - 1]!.norm)
    if (sense >= 0 && kindTest(q.kind).has(sense)) f.kind = 1
  }
  return Object.assign(f, proximity(words, s, q))
}

/**
 * How close the question's words come to a span: the distance to the nearest (in words), whether
 * punctuation lies between, and the shares of the question's terms within WINDOW words of it and
 * anywhere in the sentence.
 */
function proximity(
  words: SpanWord[],
  s: Span,
  q: ShortQuestion,
): Pick<Features, 'dist' | 'clause' | 'window' | 'found'> {
  let dist = 10
  let nearest = -1
  const seen = new Set<string>()
  const found = new Set<string>()
  for (let i = 0; i < words.length; i++) {
    const x = words[i]!
    if (x.stop || !q.terms.has(x.term) || (i >= s.from && i < s.to)) continue
    found.add(x.term)
    const d = i < s.from ? s.from - i : i - s.to + 1
    if (d > WINDOW) continue
    seen.add(x.term)
    if (d < dist) {
      dist = d
      nearest = i
    }
  }
  // Punctuation between the span and its nearest question word: another clause, or an aside.
  const clause =
    nearest >= 0 && broken(words, nearest < s.from ? nearest + 1 : s.to, Math.max(nearest, s.from))
  const n = Math.max(1, q.terms.size)
  return {
    dist,
    clause: clause ? 1 : 0,
    window: seen.size / n,
    found: found.size / n,
  }
}

/**
 * How the question's words found in the sentence sit around a span: the share of them on the side of
 * the span the question's statement puts them (ShortQuestion.left and right), and the share on the
 * other side. Each term counts once, by its occurrence nearest the span.
 */
function sides(words: SpanWord[], s: Span, q: ShortQuestion): { sideOk: number; sideBad: number } {
  const nearest = new Map<string, number>()
  for (let i = 0; i < words.length; i++) {
    if (i === s.from) i = s.to
    const x = words[i]
    if (!x || x.stop || !(q.left.has(x.term) || q.right.has(x.term))) continue
    const d = i < s.from ? i - s.from : i - s.to + 1
    const was = nearest.get(x.term)
    if (was === undefined || Math.abs(d) < Math.abs(was)) nearest.set(x.term, d)
  }
  if (nearest.size === 0) return { sideOk: 0, sideBad: 0 }
  let ok = 0
  for (const [term, d] of nearest) if (d < 0 === q.left.has(term)) ok++
  return { sideOk: ok / nearest.size, sideBad: (nearest.size - ok) / nearest.size }
}

/** Whether punctuation comes before any of words [from, to] (the gap between two words). */
function broken(words: SpanWord[], from: number, to: number): boolean {
  for (let i = from; i <= to; i++) if (words[i]?.broken) return true
  return false
}

const BE = new Set(['is', 'are', 'was', 'were', 'called', 'named', 'as'])

/**
 * Whether a form of "be" (or "called", "named", "known as") links the span to a question word: "X is
 * a trade magazine" for "what is X", "Falls are one of the most common causes" for "what is the most
 * common cause".
 */
function copula(words: SpanWord[], s: Span, q: ShortQuestion): boolean {
  let i = s.from - 1
  while (i >= 0 && ARTICLES.has(words[i]!.norm)) i--
  if (i > 0 && BE.has(words[i]!.norm) && !words[i + 1]!.broken && near(words, i - 2, i, q)) return true
  const j = s.to
  return j < words.length && BE.has(words[j]!.norm) && !words[j]!.broken && near(words, j + 1, j + 4, q)
}

const ARTICLES = new Set(['a', 'an', 'the', 'one'])

// Words that introduce an example or a name: "such as X", "including X", "known as X", "namely X".
// In normal form, as SpanWord.norm has them ("known" is "know").
const CUES = new Set(
  ['such as', 'including', 'known as', 'called', 'named', 'namely', 'especially', 'particularly'].map((c) =>
    c.split(' ').map(normWord).join(' '),
  ),
)

/** Whether the words right before word `at` introduce an example or a name. */
function cue(words: SpanWord[], at: number): boolean {
  const w1 = words[at - 1]
  if (!w1 || words[at]!.broken) return false
  const w2 = words[at - 2]
  return CUES.has(w1.norm) || (!!w2 && !w1.broken && CUES.has(`${w2.norm} ${w1.norm}`))
}

/** Whether a question word is among words [from, to). */
function near(words: SpanWord[], from: number, to: number, q: ShortQuestion): boolean {
  for (let i = Math.max(0, from); i < Math.min(words.length, to); i++)
    if (!words[i]!.stop && q.terms.has(words[i]!.term)) return true
  return false
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
