import { kindTest } from '../text/index'
import { FEATURES } from './short-features'
import { shortQuestion, Want } from './short-question'
import { candidateSpans } from './short-spans'
import { spanSentence, spanValues } from './short-values'
import { spanWords } from './short-words'

/** Weights of the span features (short-features.ts), one per name of FEATURES. */
export type ShortWeights = Record<(typeof FEATURES)[number], number>

/**
 * Fitted on the even-numbered articles of squad-dev (the sentences the engine composes, k = 5, rag)
 * by scripts/fit-short.ts: a listwise softmax fit to start, then coordinate ascent on the short
 * answers' token F1. The odd articles are held out (bench/quality.ts reports them apart).
 */
export const shortWeights: ShortWeights = {
  typeDate: 5.26,
  typeNumber: 5.54,
  valueOff: -0.64,
  namePerson: 5.15,
  namePlace: 2.34,
  nameThing: 0.78,
  kind: 4.1,
  phrasePerson: -0.14,
  phrasePlace: -1.5,
  phraseThing: -1.57,
  phraseValue: -0.85,
  overlap: -0.56,
  dist: -0.38,
  len: 0.05,
  one: -0.82,
  long: 0.05,
  partial: -0.67,
  later: -1.99,
  after: 0.71,
  before: 2.72,
  verb: 2.06,
  head: 1.9,
  window: 2,
  prep: 2.48,
  sideOk: 0.65,
  sideBad: -0.57,
  clause: -1.04,
  copula: 2.1,
  found: 1.39,
  cue: 1.18,
}

/**
 * The exact span answering a fact question, picked from the answer's sentences (best first): null
 * when the question does not ask for a fact or no sentence offers a span.
 */
export function shortAnswer(question: string, sentences: string[], w = shortWeights): string | null {
  const q = shortQuestion(question)
  if (q.want === Want.none) return null
  // The weights and each span's features in FEATURES' order, summed in that order as before.
  const weights = FEATURES.map((name) => w[name])
  const f = new Float64Array(FEATURES.length)
  const kind = q.kind.length > 0 ? kindTest(q.kind) : null
  let best: string | null = null
  let top = Number.NEGATIVE_INFINITY
  for (let rank = 0; rank < sentences.length; rank++) {
    const text = sentences[rank]!
    const words = spanWords(text)
    const sentence = spanSentence(words, q, kind)
    for (const s of candidateSpans(words)) {
      if (!spanValues(sentence, s, rank, f)) continue
      let score = 0
      for (let i = 0; i < weights.length; i++) score += weights[i]! * f[i]!
      if (score > top) {
        top = score
        best = text.slice(words[s.from]!.start, words[s.to - 1]!.end)
      }
    }
  }
  return best
}

/** The answer led by its short answer ("October 1973 — The crisis began in October 1973 … [1]"). */
export function leadWith(short: string | null, answer: string): string {
  return short === null || answer === '' ? answer : `${short} — ${answer}`
}
