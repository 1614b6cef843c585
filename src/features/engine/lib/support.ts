/**
 * Whether the best retrieved passage supports an answer at all, decided before any answer is
 * composed or a model is asked. A base that does not hold the answer still returns its closest
 * passages; this tells them apart from evidence. The signals, each a property of the question and
 * the passage, not of any one data set:
 * - coverage: the share of the question's idf weight (the base's own passage counts; a term the
 *   base never uses weighs as the rarest) that the passage or its document's title holds;
 * - missing: the weight of the rarest question term the passage lacks, relative to the rarest
 *   possible (a question about a name the passage never mentions is about something else);
 * - meaning: the cosine of the question and the passage under the built-in static word vectors
 *   (agreement of the vector evidence with the lexical one);
 * - names: the share of the question's proper names (capitalised words past the first) that the
 *   passage or title spells the same way.
 * They are combined by a logistic model fitted on one half of the squad-dev articles and checked on
 * the other half (bench/quality.ts, bench/RESULTS.md).
 */

import { idf } from './score'
import { staticVector } from './static-vectors'
import { contentTerms, isStop } from './text'

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
  missing: number
  meaning: number
  names: number
}

// Weight kept by a term that only names the kind of answer, as in ranking (rank.ts SOFT).
const SOFT = 0.5
// Logistic model over the signals, fitted on the tuning split's own and foreign questions (both
// strategies, bases of 12 articles each; bench/quality.ts --abstain-signals writes them).
const MODEL = { bias: -8.61, coverage: 9.31, missing: -0.95, meaning: 5.58, names: 2.03 }
/**
 * Passages scoring below this probability are not evidence of an answer: on the tuning split it
 * declines 2.5% of the questions the base can answer, the share the target allows (3%) less a margin.
 */
export const SUPPORT_THRESHOLD = 0.23

/** The signals of `question` (with its searched terms) against a passage and its title. */
export function supportSignals(
  question: string,
  ev: TermEvidence,
  passage: string,
  title: string,
): SupportSignals {
  const held = new Set(contentTerms(passage))
  for (const t of contentTerms(title)) held.add(t)
  const rarest = idf(ev.passages, 0)
  let total = 0
  let covered = 0
  let missing = 0
  ev.terms.forEach((t, i) => {
    const soft = (ev.soft & (1 << i)) !== 0
    const w = idf(ev.passages, ev.df[i] ?? 0) * (soft ? SOFT : 1)
    total += w
    if (held.has(t)) covered += w
    else if (!soft) missing = Math.max(missing, w)
  })
  return {
    coverage: total > 0 ? covered / total : 0,
    missing: rarest > 0 ? missing / rarest : 1,
    meaning: cosine(staticVector(question), staticVector(`${title}\n${passage}`)),
    names: nameShare(question, `${title}\n${passage}`),
  }
}

/** The model's probability that the passage supports an answer. */
export function supportScore(s: SupportSignals): number {
  const z =
    MODEL.bias +
    MODEL.coverage * s.coverage +
    MODEL.missing * s.missing +
    MODEL.meaning * s.meaning +
    MODEL.names * s.names
  return 1 / (1 + Math.exp(-z))
}

/** Proper names of the question (capitalised content words past the first word) found in `text`. */
export function nameShare(question: string, text: string): number {
  const names = [...question.matchAll(/(?<=\S\s+)\p{Lu}[\p{L}\p{N}]*/gu)]
    .map((m) => m[0])
    .filter((w) => !isStop(w.toLowerCase()) && !WH.has(w.toLowerCase()))
  if (names.length === 0) return 1
  const spelled = new Set(text.match(/\p{Lu}[\p{L}\p{N}]*/gu) ?? [])
  return names.filter((n) => spelled.has(n)).length / names.length
}

const WH = new Set(['what', 'which', 'who', 'whom', 'whose', 'when', 'where', 'why', 'how', 'i'])

function cosine(a: Float32Array, b: Float32Array): number {
  let d = 0
  for (let i = 0; i < a.length; i++) d += a[i]! * b[i]!
  return d
}
