import { FEATURES, spanFeatures } from './short-features'
import { shortQuestion, Want } from './short-question'
import { candidateSpans } from './short-spans'
import { spanWords } from './short-words'

/** Weights of the span features (short-features.ts), one per name of FEATURES. */
export type ShortWeights = Record<(typeof FEATURES)[number], number>

/**
 * Fitted on the even-numbered articles of squad-dev (the sentences the engine composes, k = 5, rag):
 * a listwise softmax fit to start, then coordinate ascent on the short answers' token F1. The odd
 * articles are held out (bench/quality.ts reports them apart).
 */
export const shortWeights: ShortWeights = {
  typeDate: 3.44,
  typeNumber: 3.73,
  valueOff: -0.54,
  namePerson: 3.97,
  namePlace: 2.53,
  nameThing: 0.31,
  kind: 2.52,
  phrasePerson: -0.74,
  phrasePlace: 0.05,
  phraseThing: -1.26,
  phraseValue: -0.69,
  overlap: -0.56,
  dist: -0.23,
  len: 0.02,
  one: -0.64,
  long: 0.08,
  partial: -0.37,
  later: -1.11,
  after: 0.51,
  before: 1.59,
  verb: 0.82,
  head: 1.45,
  window: 1.79,
  prep: 1.3,
  sideOk: 0.38,
  sideBad: -0.38,
  near: 0.02,
  clause: -0.59,
  copula: 1.14,
  close: -0.1,
  found: 0.58,
  cue: 0.83,
  appositive: 0,
}

/**
 * The exact span answering a fact question, picked from the answer's sentences (best first): null
 * when the question does not ask for a fact or no sentence offers a span.
 */
export function shortAnswer(question: string, sentences: string[], w = shortWeights): string | null {
  const q = shortQuestion(question)
  if (q.want === Want.none) return null
  let best: string | null = null
  let top = Number.NEGATIVE_INFINITY
  sentences.forEach((text, rank) => {
    const words = spanWords(text)
    for (const s of candidateSpans(words)) {
      const f = spanFeatures(words, s, q, rank)
      if (f === null) continue
      let score = 0
      for (const name of FEATURES) score += w[name] * f[name]
      if (score > top) {
        top = score
        best = text.slice(words[s.from]!.start, words[s.to - 1]!.end)
      }
    }
  })
  return best
}

/** The answer led by its short answer ("October 1973 — The crisis began in October 1973 … [1]"). */
export function leadWith(short: string | null, answer: string): string {
  return short === null || answer === '' ? answer : `${short} — ${answer}`
}
