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
  typeDate: 2.85,
  typeNumber: 2.2,
  valueOff: -0.66,
  namePerson: 1.63,
  namePlace: 1.46,
  nameThing: -0.08,
  kind: 1.62,
  phrasePerson: 0.07,
  phrasePlace: -0.14,
  phraseThing: -0.85,
  phraseValue: -0.11,
  overlap: -0.48,
  dist: -0.06,
  len: -0.01,
  one: -0.45,
  long: 0.22,
  partial: -0.16,
  later: -0.31,
  after: 0.3,
  before: 1.17,
  verb: 0.51,
  head: 0.73,
  window: 1.32,
  prep: 0.88,
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
