import type { ShortQuestion } from './short-question'
import type { Span } from './short-spans'
import { spanSentence, spanValues } from './short-values'
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

/**
 * What makes a span of a sentence (`rank`: 0 for the best one) the answer to a question: its type
 * against the one asked for, its overlap with the question, its closeness to the question's words
 * and where the question's word order puts the answer. Null for a span that only repeats the question.
 */
export function spanFeatures(words: SpanWord[], s: Span, q: ShortQuestion, rank: number): Features | null {
  const f = new Float64Array(FEATURES.length)
  if (!spanValues(spanSentence(words, q), s, rank, f)) return null
  return Object.fromEntries(FEATURES.map((name, i) => [name, f[i]!])) as Features
}
