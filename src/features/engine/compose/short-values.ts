import { TokenKind } from '../rank/index'
import { type KindTest, kindTest, normWord, nounSense } from '../text/index'
import { type ShortQuestion, Want } from './short-question'
import { type Span, SpanType } from './short-spans'
import type { SpanWord } from './short-words'

// A span's features (short-features.ts names them) into an array in FEATURES' order, what a
// sentence's words are to the question read once a sentence rather than once a span.
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
 * A sentence's words read once against a question, for scoring each of its spans without allocating:
 * whether each word's term is one of the question's (`asked`), on which side of the answer's slot the
 * question has it (`side`: 1 left, 2 right), the first word of the same term (`first`, so a term is
 * counted once), and the question's kind test.
 */
export interface SpanSentence {
  words: SpanWord[]
  q: ShortQuestion
  asked: Uint8Array
  side: Uint8Array
  first: Int32Array
  kind: KindTest | null
  /** Whether each word names a thing of the kind asked for: 1, 0, or UNKNOWN until a span ends on it. */
  ofKind: Uint8Array
}

/** Reads a sentence's words against a question (see SpanSentence). */
export function spanSentence(words: SpanWord[], q: ShortQuestion, kind?: KindTest | null): SpanSentence {
  const n = words.length
  const asked = new Uint8Array(n)
  const side = new Uint8Array(n)
  const first = new Int32Array(n)
  const firstOf = new Map<string, number>()
  for (let i = 0; i < n; i++) {
    const term = words[i]!.term
    asked[i] = q.terms.has(term) ? 1 : 0
    side[i] = (q.left.has(term) ? 1 : 0) | (q.right.has(term) ? 2 : 0)
    const at = firstOf.get(term)
    if (at === undefined) firstOf.set(term, i)
    first[i] = at ?? i
  }
  if (n > marks.length) grow(n)
  return {
    words,
    q,
    asked,
    side,
    first,
    kind: kind !== undefined ? kind : q.kind.length > 0 ? kindTest(q.kind) : null,
    ofKind: new Uint8Array(n).fill(UNKNOWN),
  }
}

/**
 * The features of a span (spanFeatures) written into `f` in the order of FEATURES, allocating nothing; false (and `f`
 * left as it was) for a span that only repeats the question.
 */
export function spanValues(c: SpanSentence, s: Span, rank: number, f: Float64Array): boolean {
  const { words, q } = c
  let content = 0
  let shared = 0
  let head = 0
  for (let i = s.from; i < s.to; i++) {
    const x = words[i]!
    if (x.stop) continue
    content++
    if (x.term === q.head) head = 1
    else if (c.asked[i]) shared++
  }
  if (content === 0 || shared + head === content || edgeRepeats(c, s)) return false
  // Only value spans count as values: a phrase holding one is a longer, worse copy of it.
  const value = s.type === SpanType.value
  const isDate = value && (s.kind & TokenKind.date) !== 0
  const isNumber = value && (s.kind & TokenKind.number) !== 0
  const name = s.type === SpanType.name
  const phrase = s.type === SpanType.phrase
  f[0] = q.want === Want.date ? (isDate ? 1 : isNumber ? 1 / 3 : 0) : 0 // typeDate
  f[1] = q.want === Want.number && isNumber && !isDate ? 1 : 0 // typeNumber
  f[2] = value && q.want !== Want.date && q.want !== Want.number ? 1 : 0 // valueOff
  f[3] = name && q.want === Want.person ? 1 : 0 // namePerson
  f[4] = name && q.want === Want.place ? 1 : 0 // namePlace
  f[5] = name && q.want === Want.thing ? 1 : 0 // nameThing
  f[6] = c.kind !== null ? ofKind(c, s.to - 1) : 0 // kind
  f[7] = phrase && q.want === Want.person ? 1 : 0 // phrasePerson
  f[8] = phrase && q.want === Want.place ? 1 : 0 // phrasePlace
  f[9] = phrase && q.want === Want.thing ? 1 : 0 // phraseThing
  f[10] = phrase && (q.want === Want.date || q.want === Want.number) ? 1 : 0 // phraseValue
  f[11] = shared / content // overlap
  f[13] = Math.max(0, s.to - s.from - 2) // len
  f[14] = s.to - s.from === 1 ? 1 : 0 // one
  f[15] = s.to - s.from > 5 ? 1 : 0 // long
  // The tail or head of a longer run of content words: part of a phrase, not all of it.
  f[16] = cut(words, s) ? 1 : 0 // partial
  f[17] = rank // later
  f[18] = q.after !== null && within(words, s.to, s.to + GAP + 1, q.after) ? 1 : 0 // after
  f[19] = q.before !== null && within(words, s.from - GAP - 1, s.from, q.before) ? 1 : 0 // before
  f[20] = q.last !== null && within(words, s.from - GAP - 1, s.from, q.last) ? 1 : 0 // verb
  f[21] = head
  f[23] = s.from > 0 && PREPS[q.want]?.has(words[s.from - 1]!.norm) ? 1 : 0 // prep
  sides(c, s, f) // sideOk, sideBad
  f[27] = copula(c, s) ? 1 : 0 // copula
  f[29] = cue(words, s.from) ? 1 : 0 // cue
  proximity(c, s, f) // dist, window, clause, found
  return true
}

/** Whether word `i` names a thing of the kind asked for (its noun sense under it), looked up once a word. */
function ofKind(c: SpanSentence, i: number): number {
  if (c.ofKind[i] === UNKNOWN) {
    const sense = nounSense(c.words[i]!.norm)
    c.ofKind[i] = sense >= 0 && c.kind!.has(sense) ? 1 : 0
  }
  return c.ofKind[i]!
}
const UNKNOWN = 2

// Marks of the terms a span's scan has counted (by the index of a term's first word), and each
// term's nearest offset: grown to the longest sentence, a fresh mark per scan.
let marks = new Int32Array(64)
let nearest = new Int32Array(64)
let terms = new Int32Array(64)
let mark = 0

function grow(n: number): void {
  marks = new Int32Array(n)
  nearest = new Int32Array(n)
  terms = new Int32Array(n)
  mark = 0
}
function nextMark(): number {
  if (mark === 0x3fffffff) {
    marks.fill(0)
    mark = 0
  }
  return ++mark
}

/**
 * How close the question's words come to a span: the distance to the nearest (in words), whether
 * punctuation lies between, and the shares of the question's terms within WINDOW words of it and
 * anywhere in the sentence (f's dist, clause, window and found).
 */
function proximity(c: SpanSentence, s: Span, f: Float64Array): void {
  const { words } = c
  let dist = 10
  let near = -1
  let seen = 0
  let found = 0
  const inWindow = nextMark()
  const anywhere = nextMark()
  for (let i = 0; i < words.length; i++) {
    if (words[i]!.stop || !c.asked[i] || (i >= s.from && i < s.to)) continue
    const t = c.first[i]!
    // A term seen within the window was found anywhere too, so one mark array serves both.
    if (marks[t] !== anywhere && marks[t] !== inWindow) {
      marks[t] = anywhere
      found++
    }
    const d = i < s.from ? s.from - i : i - s.to + 1
    if (d > WINDOW) continue
    if (marks[t] !== inWindow) {
      marks[t] = inWindow
      seen++
    }
    if (d < dist) {
      dist = d
      near = i
    }
  }
  // Punctuation between the span and its nearest question word: another clause, or an aside.
  const clause = near >= 0 && broken(words, near < s.from ? near + 1 : s.to, Math.max(near, s.from))
  const n = Math.max(1, c.q.terms.size)
  f[12] = dist
  f[26] = clause ? 1 : 0
  f[22] = seen / n
  f[28] = found / n
}

/**
 * How the question's words found in the sentence sit around a span: the share of them on the side of
 * the span the question's statement puts them (ShortQuestion.left and right), and the share on the
 * other side (f's sideOk and sideBad). Each term counts once, by its occurrence nearest the span.
 */
function sides(c: SpanSentence, s: Span, f: Float64Array): void {
  const { words } = c
  const counted = nextMark()
  let n = 0
  for (let i = 0; i < words.length; i++) {
    if (i === s.from) i = s.to
    const x = words[i]
    if (!x || x.stop || c.side[i] === 0) continue
    const d = i < s.from ? i - s.from : i - s.to + 1
    const t = c.first[i]!
    if (marks[t] !== counted) {
      marks[t] = counted
      nearest[t] = d
      terms[n++] = t
    } else if (Math.abs(d) < Math.abs(nearest[t]!)) nearest[t] = d
  }
  if (n === 0) {
    f[24] = 0
    f[25] = 0
    return
  }
  let ok = 0
  for (let k = 0; k < n; k++) if (nearest[terms[k]!]! < 0 === ((c.side[terms[k]!]! & 1) !== 0)) ok++
  f[24] = ok / n
  f[25] = (n - ok) / n
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
function copula(c: SpanSentence, s: Span): boolean {
  const { words } = c
  let i = s.from - 1
  while (i >= 0 && ARTICLES.has(words[i]!.norm)) i--
  if (i > 0 && BE.has(words[i]!.norm) && !words[i + 1]!.broken && near(c, i - 2, i)) return true
  const j = s.to
  return j < words.length && BE.has(words[j]!.norm) && !words[j]!.broken && near(c, j + 1, j + 4)
}

const ARTICLES = new Set(['a', 'an', 'the', 'one'])

// Words that introduce an example or a name: "such as X", "including X", "known as X", "namely X".
// In normal form, as SpanWord.norm has them ("known" is "know").
// A cue of two words is kept by its first word, so that a span's look-up makes no string.
const CUES = new Set<string>()
const CUE_PAIRS = new Map<string, Set<string>>()
for (const c of [
  'such as',
  'including',
  'known as',
  'called',
  'named',
  'namely',
  'especially',
  'particularly',
]) {
  const [a, b] = c.split(' ').map(normWord)
  if (b === undefined) CUES.add(a!)
  else CUE_PAIRS.set(a!, (CUE_PAIRS.get(a!) ?? new Set()).add(b))
}

/** Whether the words right before word `at` introduce an example or a name. */
function cue(words: SpanWord[], at: number): boolean {
  const w1 = words[at - 1]
  if (!w1 || words[at]!.broken) return false
  const w2 = words[at - 2]
  return CUES.has(w1.norm) || (!!w2 && !w1.broken && CUE_PAIRS.get(w2.norm)?.has(w1.norm) === true)
}

/** Whether a question word is among words [from, to). */
function near(c: SpanSentence, from: number, to: number): boolean {
  for (let i = Math.max(0, from); i < Math.min(c.words.length, to); i++)
    if (!c.words[i]!.stop && c.asked[i]) return true
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
function edgeRepeats(c: SpanSentence, s: Span): boolean {
  const last = c.words[s.to - 1]!
  const unit = (last.kind & (TokenKind.date | TokenKind.number)) === 0
  return s.type === SpanType.value && unit && !last.stop && c.asked[s.to - 1] === 1
}
