import { TokenKind } from '../rank/index'
import { mostlyNoun } from '../text/index'
import type { SpanWord } from './short-words'

/** What a candidate short answer is. */
export const SpanType = { value: 1, name: 2, phrase: 4 } as const

/** A candidate short answer: words [from, to) of a sentence. */
export interface Span {
  from: number
  to: number
  type: number
  /** TokenKind bits of its words, or'ed. */
  kind: number
}

// Words that join two numbers or dates into one value ("75 to 200 million", "1914 and 1918").
const VALUE_JOINS = new Set(['to', 'and', 'or', 'of', 'per', 'by'])
// Words inside a proper name ("Bank of England", "Leonardo da Vinci") when a capital follows.
const NAME_JOINS = new Set('of de da di du del der van von la le and the for'.split(' '))
const VALUE_KINDS = TokenKind.date | TokenKind.number

/** Every candidate span of a sentence's words: values, proper names and noun phrases. */
export function candidateSpans(words: SpanWord[]): Span[] {
  const out: Span[] = []
  runs(words, out, isValue, VALUE_JOINS, SpanType.value)
  runs(words, out, isName, NAME_JOINS, SpanType.name)
  phrases(words, out)
  joined(words, out)
  return out
}

// Words that join two phrases into a longer one: "members of the Organization", "war, famine and weather".
const PHRASE_JOINS = new Set(['of', 'and', 'or'])
// Articles passed over between a join and the next phrase.
const ARTICLES = new Set(['a', 'an', 'the'])
// Longest phrase a join makes, in words.
const MAX_JOINED = 12

/**
 * Phrases and names joined by "of", "and", "or" or a comma into longer candidates ("members of the
 * Organization of Arab Petroleum Exporting Countries", "war, famine, and weather"), built left to right.
 */
function joined(words: SpanWord[], out: Span[]): void {
  const byStart = new Map<number, Span[]>()
  for (const s of out) if (s.type !== SpanType.value) byStart.set(s.from, [...(byStart.get(s.from) ?? []), s])
  const base = out.length
  const have = new Set(out.map((s) => s.from * 1024 + s.to))
  for (let k = 0; k < out.length; k++) {
    const a = out[k]!
    if (a.type === SpanType.value || (k >= base && a.to - a.from > MAX_JOINED)) continue
    let j = a.to
    const comma = words[j]?.comma === true
    if (!comma && !PHRASE_JOINS.has(words[j]?.norm ?? '')) continue
    if (!comma) j++
    else if (words[j] && (words[j]!.norm === 'and' || words[j]!.norm === 'or')) j++
    while (words[j] && ARTICLES.has(words[j]!.norm)) j++
    for (const b of byStart.get(j) ?? [])
      if (b.to - a.from <= MAX_JOINED && !have.has(a.from * 1024 + b.to) && have.add(a.from * 1024 + b.to))
        out.push({ from: a.from, to: b.to, type: SpanType.phrase, kind: a.kind | b.kind })
  }
}

// Words that qualify a value and belong to it ("nearly $12", "more than 28 days").
const MODIFIERS = new Set(
  'nearly about around approximately almost roughly over under some only just'.split(' '),
)
const MODIFIER_PAIRS = new Set(['more than', 'less than', 'fewer than', 'at least', 'up to'])

/** How many words before position `i` qualify the value starting there (0 when none). */
function modifier(words: SpanWord[], i: number): number {
  const w1 = words[i - 1]
  if (!w1 || words[i]!.broken) return 0
  const w2 = words[i - 2]
  if (w2 && !w1.broken && MODIFIER_PAIRS.has(`${w2.norm} ${w1.norm}`)) return 2
  return MODIFIERS.has(w1.norm) ? 1 : 0
}

function isValue(w: SpanWord): boolean {
  return (w.kind & VALUE_KINDS) !== 0
}

function isName(w: SpanWord): boolean {
  return w.cap && !w.stop
}

/** Maximal runs of words passing `ok`, joined over one `joins` word between two that pass. */
function runs(
  words: SpanWord[],
  out: Span[],
  ok: (w: SpanWord) => boolean,
  joins: Set<string>,
  type: number,
): void {
  let i = 0
  while (i < words.length) {
    if (!ok(words[i]!)) {
      i++
      continue
    }
    let j = i + 1
    for (;;) {
      const w = words[j]
      if (w && ok(w) && !w.broken) j++
      else if (
        w &&
        joins.has(w.norm) &&
        !w.broken &&
        words[j + 1] &&
        ok(words[j + 1]!) &&
        !words[j + 1]!.broken
      )
        j += 2
      else break
    }
    out.push({ from: i, to: j, type, kind: kindOf(words, i, j) })
    const m = type === SpanType.value ? modifier(words, i) : 0
    if (m > 0) out.push({ from: i - m, to: j, type, kind: kindOf(words, i, j) })
    const unit = words[j]
    if (type === SpanType.value && unit && !unit.stop && !unit.broken && !unit.cap && mostlyNoun(unit.norm))
      // The value with its unit ("3,000 soldiers", "40 km"), not with the verb after it ("1999 caused").
      out.push({ from: i, to: j + 1, type, kind: kindOf(words, i, j + 1) })
    i = j
  }
}

/**
 * Noun phrases: runs of content words unbroken by punctuation, ending on a noun (WordNet knows it as
 * one) or a name; the run's tail from each word on is a candidate too ("the pale blue liquid").
 */
function phrases(words: SpanWord[], out: Span[]): void {
  let i = 0
  while (i < words.length) {
    if (words[i]!.stop) {
      i++
      continue
    }
    let j = i + 1
    while (j < words.length && !words[j]!.stop && !words[j]!.broken) j++
    let end = j
    while (end > i && !nominal(words[end - 1]!)) end--
    for (let s = i; s < end && end - s <= 6; s++)
      if (end - s > 1 || !isName(words[s]!))
        out.push({ from: s, to: end, type: SpanType.phrase, kind: kindOf(words, s, end) })
    i = j
  }
}

/** Whether a phrase may end on a word: a name, a value, or a word mostly used as a noun ("saw" is not). */
function nominal(w: SpanWord): boolean {
  return w.cap || (w.kind & VALUE_KINDS) !== 0 || mostlyNoun(w.norm)
}

function kindOf(words: SpanWord[], from: number, to: number): number {
  let k = 0
  for (let i = from; i < to; i++) k |= words[i]!.kind
  return k
}
