/**
 * Whether a retrieved passage supports an answer at all, decided before any answer is composed or
 * a model is asked. A base that does not hold the answer still returns its closest
 * passages; this tells them apart from evidence. The signals, each a property of the question and
 * the passage, not of any one data set:
 * - coverage: the share of the question's idf weight (the base's own passage counts; a term the
 *   base never uses weighs as the rarest) that the passage or its document's title holds;
 * - sentence: the same share held by the passage's best single sentence (and the title): a
 *   question about something else still matches words scattered over a passage, rarely together;
 * - meaning: the cosine of the question and the passage under the built-in static word vectors
 *   (agreement of the vector evidence with the lexical one);
 * - names: the share of the question's proper names (capitalised words past the first) that the
 *   passage or title spells the same way;
 * - title: whether the question names a word of the passage's document title (it asks about that
 *   document's subject);
 * - untyped: whether the question asks for a kind of answer (a date, a number, a name: "when",
 *   "how many", "who") that the best sentence does not offer outside the question's own words.
 * - model (with an embeddings server only): how much closer the passage is to the question than
 *   sentences on no one subject are, under the server's model, on the scale of the model the check
 *   was fitted with (reference.ts). A contextual model tells a passage that says what the question
 *   asks from one that only shares its words; with it a second model, fitted the same way, decides.
 * (The weight of the rarest question term the passage lacks was a signal too; with the sentence's
 * coverage beside it, the fit gave it no weight.)
 * They are combined by a logistic model fitted on one half of the squad-dev articles and checked on
 * the other half (bench/quality.ts, bench/RESULTS.md). The engine asks it of each passage the answer
 * may quote (the top three, as composeAnswer draws on them), not only the first: an answerable
 * question whose answer passage ranks second is still answered.
 */

import { AnswerType, answerType, idf, tokenKind } from '../rank/index'
import { contentTerms, isStop, scanWords, staticVector, tokenize } from '../text/index'
import { passageVector } from './passage-vectors'

/** What the search knew of the question's terms in this base (filled in by either strategy). */
export interface TermEvidence {
  /** The question's terms as searched (misspellings replaced by the base's spelling). */
  terms: string[]
  /** Passages of the base holding each term. */
  df: number[]
  /** Passages in the base (the N of the idf). */
  passages: number
  /** Bits of terms that only name the kind of answer ("what year"). */
  soft: number
}

/** The signals of one question against one passage. */
export interface SupportSignals {
  coverage: number
  sentence: number
  meaning: number
  names: number
  title: number
  untyped: number
  /** With an embeddings server: the `model` signal above (reference.ts modelSignal); undefined otherwise. */
  model?: number
}

// Weight kept by a term that only names the kind of answer, as in ranking (rank.ts SOFT).
const SOFT = 0.5
// Logistic model over the signals, fitted on the tuning split's own and foreign questions (both
// strategies, bases of 12 articles each; bench/quality.ts --abstain-signals writes them).
// scripts/refit-support.ts fits it from them.
const MODEL = {
  bias: -10.05,
  coverage: 6.77,
  sentence: 4.82,
  meaning: 4.74,
  names: 1.9,
  title: 2.22,
  untyped: -0.72,
}
// With an embeddings server, the same signals and its `model` one, fitted the same way on the same
// split (bench/quality.ts --embed). Its bias is set so that SUPPORT_THRESHOLD is again the
// probability that declines 2.5% of the tuning split's answerable questions.
const MODEL_EMBEDDED = {
  bias: -10.88,
  coverage: 6.3,
  sentence: 5.35,
  meaning: -1.94,
  names: 2.01,
  title: 1.79,
  untyped: -0.6,
  model: 11.62,
}
/**
 * Where the reference pairs (reference.ts) fall under the model MODEL_EMBEDDED was fitted with
 * (Universal Sentence Encoder lite): another model's `model` signal is put on this scale.
 */
export const EMBEDDED_SCALE = { related: 0.2262, unrelated: 0.0605 }
/**
 * Passages scoring below this probability are not evidence of an answer: on the tuning split, with
 * the best of SUPPORT_PASSAGES passages asked, it declines 2.5% of the questions the base can
 * answer, the share the target allows (3%) less a margin.
 */
export const SUPPORT_THRESHOLD = 0.28
/** How many of the first passages are asked for support: those composeAnswer may quote. */
export const SUPPORT_PASSAGES = 3
// Sentence ends, as the passage's text has them: the white space after a full stop, ! or ?.
const SENTENCE_END = /(?<=[.!?])\s+/g

/** What the check needs of a question, worked out once for all the passages it is asked of. */
export interface SupportQuestion {
  question: string
  /** Query term -> its index in the evidence. */
  index: Map<string, number>
  weights: number[]
  total: number
  /** The kind of answer asked for (TokenKind bits of a date, number or name; 0 for none). */
  want: number
  /** The question's own words (normal forms): they never count as offering the answer. */
  own: Set<string>
  vector: Float32Array
  /** Proper names of the question (capitalised content words past the first word). */
  names: string[]
}

/** Prepares `question` (with its searched terms) for supportSignals. */
export function supportQuestion(question: string, ev: TermEvidence): SupportQuestion {
  const weights = ev.terms.map(
    (_, i) => idf(ev.passages, ev.df[i] ?? 0) * ((ev.soft & (1 << i)) !== 0 ? SOFT : 1),
  )
  let total = 0
  for (const w of weights) total += w
  const asked = tokenize(question)
  return {
    question,
    index: new Map(ev.terms.map((t, i) => [t, i])),
    weights,
    total,
    // Not the WordNet noun kind ("what language"): that is for ranking, and most sentences have a noun.
    want: answerType(asked) & ~AnswerType.noun,
    own: new Set(asked.map((t) => t.norm)),
    vector: staticVector(question),
    names: questionNames(question),
  }
}

/** The signals of a question (supportQuestion) against a passage and its title. */
export function supportSignals(
  q: SupportQuestion,
  passage: string,
  title: string,
  model?: number | null,
): SupportSignals {
  const { index, weights, total, want, own } = q
  // Terms the title holds count for the passage and for each of its sentences.
  const titled = new Uint8Array(weights.length)
  for (const t of contentTerms(title)) {
    const i = index.get(t)
    if (i !== undefined) titled[i] = 1
  }
  // One pass over the passage: the terms it holds, and the best share one sentence holds (with
  // whether that sentence offers a word of the kind asked for that the question does not hold).
  const inPassage = titled.slice()
  let inSentence = titled.slice()
  let sentence = -1
  let typed = false
  let bestTyped = false
  let first = true
  const closeSentence = () => {
    const share = shareOf(inSentence, weights, total)
    if (share > sentence) {
      sentence = share
      bestTyped = typed
    }
    inSentence = titled.slice()
    typed = false
    first = true
  }
  const ends = [...passage.matchAll(SENTENCE_END)].map((m) => m.index + m[0].length)
  let next = 0
  scanWords(passage, 0, passage.length, (w, start) => {
    while (next < ends.length && start >= ends[next]!) {
      closeSentence()
      next++
    }
    const opens = first
    first = false
    const i = w.stop ? undefined : index.get(w.term)
    if (i === undefined) {
      if (want !== 0 && !typed && (tokenKind(passage, start, w.norm, w.stop, opens) & want) !== 0)
        typed = !own.has(w.norm)
      return
    }
    inPassage[i] = 1
    inSentence[i] = 1
  })
  closeSentence()
  const text = `${title}\n${passage}`
  return {
    coverage: shareOf(inPassage, weights, total),
    sentence,
    meaning: cosine(q.vector, passageVector(text)),
    names: namesIn(q.names, text),
    title: titled.includes(1) ? 1 : 0,
    untyped: want !== 0 && !bestTyped ? 1 : 0,
    ...(model != null && { model }),
  }
}

/** The share of the question's weight whose terms are marked held. */
function shareOf(held: Uint8Array, weights: number[], total: number): number {
  if (total <= 0) return 0
  let covered = 0
  for (let q = 0; q < held.length; q++) if (held[q]) covered += weights[q]!
  return covered / total
}

/** The model's probability that the passage supports an answer. */
export function supportScore(s: SupportSignals): number {
  const m = s.model === undefined ? MODEL : MODEL_EMBEDDED
  const z =
    m.bias +
    m.coverage * s.coverage +
    m.sentence * s.sentence +
    m.meaning * s.meaning +
    m.names * s.names +
    m.title * s.title +
    m.untyped * s.untyped +
    (s.model === undefined ? 0 : MODEL_EMBEDDED.model * s.model)
  return 1 / (1 + Math.exp(-z))
}

/** Proper names of a question: capitalised content words past the first word. */
function questionNames(question: string): string[] {
  return [...question.matchAll(/(?<=\S\s+)\p{Lu}[\p{L}\p{N}]*/gu)]
    .map((m) => m[0])
    .filter((w) => !isStop(w.toLowerCase()) && !WH.has(w.toLowerCase()))
}

/** The share of `names` that `text` spells the same way (1 when there are none). */
function namesIn(names: string[], text: string): number {
  if (names.length === 0) return 1
  const spelled = new Set(text.match(/\p{Lu}[\p{L}\p{N}]*/gu) ?? [])
  return names.filter((n) => spelled.has(n)).length / names.length
}

const WH = new Set(['what', 'which', 'who', 'whom', 'whose', 'when', 'where', 'why', 'how', 'i'])

/** The cosine of two vectors of length one (their dot product). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let d = 0
  for (let i = 0; i < a.length; i++) d += a[i]! * b[i]!
  return d
}
