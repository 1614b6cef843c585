import { descending } from './order'
import type { QueryPlan } from './query'
import { idf, maskWeight, type ScoreWeights } from './score'

/** A sentence of a retrieved passage, with its score for the question. */
export interface RankedSentence {
  start: number
  end: number
  score: number
  /** Bits of the query terms it contains. */
  hit: number
  /** It offers a word of the kind the question asks for (a date for "when"). */
  typeOk: boolean
}

/** A retrieved passage: where its text is, its sentences by score, and its own score. */
export interface RankedPassage<R> {
  ref: R
  /** Position of the passage within its section (the source id is built from it). */
  ordinal: number
  /** The text the spans below index into (a section's or a passage's). */
  text: string
  start: number
  end: number
  score: number
  sentences: RankedSentence[]
  /** Occurrences of each query term in the passage, and its content words (for withTermFrequency). */
  tf?: Uint16Array
  words?: number
  /** Its row's id in the base's passages, when rag pooled it (its vector is kept with the pool). */
  id?: number
}

// Weight kept by a term that only names the kind of answer ("what year"): the answer has a year, not the word.
const SOFT = 0.5
// Weight of the passage's own coverage of the question, beside its best sentence.
const PASS_W = 0.3
/** Query-term weights from base-wide passage counts; terms the base lacks weigh nothing. */
export function termWeights(plan: QueryPlan, nPassages: number, df: ArrayLike<number>): Float64Array {
  const qw = new Float64Array(plan.terms.length)
  for (let i = 0; i < qw.length; i++) {
    qw[i] = df[i]! > 0 ? idf(nPassages, df[i]!) : 0
    if (plan.soft & (1 << i)) qw[i]! *= SOFT
  }
  return qw
}

/** Encodes the question's adjacent pairs for the scorer's set look-up. */
export function pairSet(plan: QueryPlan): Set<number> {
  return new Set(plan.pairs.map(([a, b]) => a * 64 + b))
}

/**
 * A passage's score from its sentences: the best sentence carries it, the passage's own coverage of
 * the question breaks ties between passages whose best sentences match alike.
 */
export function passageScore(best: number, passMask: number, titleMask: number, qw: Float64Array): number {
  return best + PASS_W * maskWeight(passMask | titleMask, qw)
}

/**
 * An upper bound of any passage score the cart search can give a section that holds the terms of
 * `mask`, names those of `titleMask` in its title and holds variants of those of `expMask`: every
 * term counts at its largest coefficient, `nPairs` phrase pairs (0 when the section holds no pair's
 * two terms) and the answer type (when the question asks for one, `typed`) are assumed found, and the
 * sentence is as short as the section's shortest (`minLen` content words). Infinite when the weights do not allow a bound.
 */
export function scoreBound(
  mask: number,
  titleMask: number,
  expMask: number,
  secScore: number,
  qw: Float64Array,
  total: number,
  nPairs: number,
  typed: boolean,
  minLen: number,
  w: ScoreWeights,
): number {
  if (w.len < 0) return Number.POSITIVE_INFINITY
  const mean = total / Math.max(1, qw.length)
  const reach = Math.max(1, w.far, w.ctx, w.exp) * maskWeight(mask | titleMask | expMask, qw)
  const covered = reach / (total || 1)
  const sentence =
    reach +
    Math.max(0, w.pair) * nPairs * mean +
    (typed ? Math.max(0, w.type) * mean : 0) -
    w.len * Math.log2(1 + minLen) +
    Math.max(0, w.cover) * covered * covered * mean
  // A hair above, so that rounding in the exact computation can never exceed it.
  return sentence + passageScore(0, mask, titleMask, qw) + secScore + 1e-9
}

/**
 * An upper bound of a sentence's rank score (score.ts's sentenceScores) from what marking the
 * question's terms found, before its features are worked out: its terms (`hit`), its expansions
 * (`exp`), the passage's and title's terms (`ctxMask`) and its length are known exactly; every term
 * it holds is assumed in its densest window, `nPairs` pairs (0 unless both terms of a pair are in
 * `hit`) and the answer type (when `typed`) found. Valid only for weights `boundable` accepts.
 */
export function sentenceBound(
  hit: number,
  exp: number,
  ctxMask: number,
  len: number,
  qw: Float64Array,
  total: number,
  nPairs: number,
  typed: boolean,
  w: ScoreWeights,
): number {
  const direct = Math.max(1, w.far) * maskWeight(hit, qw)
  const ctx = w.ctx * maskWeight(ctxMask & ~hit, qw)
  const exps = w.exp * maskWeight(exp & ~hit & ~ctxMask, qw)
  const covered = (direct + ctx + exps) / (total || 1)
  const mean = total / Math.max(1, qw.length)
  const sentence =
    direct +
    ctx +
    exps +
    w.pair * nPairs * mean +
    (typed ? w.type * mean : 0) -
    w.len * Math.log2(1 + len) +
    w.cover * covered * covered * mean
  // A hair above, so that rounding in the exact computation can never exceed it.
  return sentence + 1e-9
}

/** Whether sentenceBound holds for these weights (it assumes no feature can lower a score it raises). */
export function boundable(w: ScoreWeights): boolean {
  return w.far >= 0 && w.ctx >= 0 && w.exp >= 0 && w.pair >= 0 && w.type >= 0 && w.cover >= 0
}

/** Keeps the `k` best of a stream of scored items without sorting everything. */
export class TopK<T extends { score: number }> {
  private items: T[] = []
  constructor(private readonly k: number) {}
  /** Offers an item; it is kept when among the k best so far. */
  push(item: T): void {
    const a = this.items
    if (a.length === this.k && item.score <= a[a.length - 1]!.score) return
    let i = a.length
    while (i > 0 && a[i - 1]!.score < item.score) i--
    a.splice(i, 0, item)
    if (a.length > this.k) a.pop()
  }
  /** Whether an item of this score would be kept now. */
  accepts(score: number): boolean {
    return this.items.length < this.k || score > this.items[this.items.length - 1]!.score
  }
  /** The kept items, best first. */
  sorted(): T[] {
    return this.items
  }
}

// Weight of a document's evidence, and the score scale over which its other passages count.
const DOC_W = 1
const DOC_T = 3
/**
 * Re-ranks passages with the evidence of their document: a document several of whose passages
 * match the question is more likely the one the question is about (topic consistency).
 */
export function withDocumentPrior<R>(
  passages: RankedPassage<R>[],
  docOf: (r: R) => string,
  k: number,
): RankedPassage<R>[] {
  if (passages.length < 2) return passages.slice(0, k)
  const best = passages[0]!.score
  const mass = new Map<string, number>()
  for (const p of passages) {
    const d = docOf(p.ref)
    const e = Math.exp((p.score - best) / DOC_T)
    // Not `(mass.get(d) ?? 0) + e`: the optimized code left on the first passage of each document.
    const m = mass.get(d)
    mass.set(d, m === undefined ? e : m + e)
  }
  for (const p of passages) p.score += DOC_W * Math.log(mass.get(docOf(p.ref))!)
  return passages.sort((a, b) => descending(a.score, b.score)).slice(0, k)
}

const SEC_W = 0.6
/**
 * Evidence that a section is about the question: per term, how many of its sentences hold it
 * (saturating), read from `sentenceCounts` at `from` on.
 */
export function sectionPrior(sentenceCounts: ArrayLike<number>, qw: Float64Array, from = 0): number {
  let s = 0
  for (let q = 0; q < qw.length; q++) {
    const c = sentenceCounts[from + q]!
    s += (qw[q]! * c) / (c + 2)
  }
  return SEC_W * s
}

// Weight of the term-frequency evidence, and BM25's saturation and length normalisation.
const TF_W = 1
const TF_K1 = 1.2
const TF_B = 1
/**
 * Adds BM25-style term-frequency evidence over the candidate pool: the sentence scorer sees only
 * which terms a sentence holds, so near-ties between passages of one article are broken by which
 * passage keeps returning to the question's rarer terms (idf over the pool itself).
 */
export function withTermFrequency<R>(passages: RankedPassage<R>[], nTerms: number): RankedPassage<R>[] {
  if (passages.length < 2 || nTerms === 0) return passages
  const df = new Float64Array(nTerms)
  let words = 0
  for (const p of passages) {
    words += p.words ?? 0
    if (p.tf) for (let q = 0; q < nTerms; q++) if (p.tf[q]! > 0) df[q]!++
  }
  const avg = words / passages.length || 1
  for (const p of passages) {
    if (!p.tf) continue
    const norm = TF_K1 * (1 - TF_B + (TF_B * (p.words ?? avg)) / avg)
    let s = 0
    for (let q = 0; q < nTerms; q++) {
      const tf = p.tf[q]!
      if (tf > 0) s += (idf(passages.length, df[q]!) * tf * (TF_K1 + 1)) / (tf + norm)
    }
    p.score += TF_W * s
  }
  return passages.sort((a, b) => descending(a.score, b.score))
}

/**
 * Re-ranks passages by meaning: each passage's cosine with the question (both embeddings of unit
 * length), as a standard score among the candidates, times `weight`, is added to its score.
 * Standardising makes the weight hold across models whose cosines spread differently. Left as it is
 * when a passage has no vector of the question's model and length: re-ranking only some would
 * favour those.
 */
export function withMeaning<R>(
  passages: RankedPassage<R>[],
  question: Float32Array,
  vectorOf: (p: RankedPassage<R>) => Float32Array | null,
  weight: number,
): RankedPassage<R>[] {
  const cos = new Float64Array(passages.length)
  for (const [i, p] of passages.entries()) {
    const v = vectorOf(p)
    if (!v || v.length !== question.length) return passages
    let dot = 0
    for (let d = 0; d < v.length; d++) dot += v[d]! * question[d]!
    cos[i] = dot
  }
  let mean = 0
  for (const c of cos) mean += c / cos.length
  let variance = 0
  for (const c of cos) variance += (c - mean) ** 2 / cos.length
  const sd = Math.sqrt(variance)
  if (!(sd > 1e-9)) return passages
  for (const [i, p] of passages.entries()) p.score += (weight * (cos[i]! - mean)) / sd
  return passages.sort((a, b) => descending(a.score, b.score))
}

// Weight of a document's whole-text evidence, and its BM25 saturation and length normalisation.
const DOC_TF_W = 1
const DOC_TF_K1 = 1.2
const DOC_TF_B = 0.75
/**
 * Adds BM25 evidence of each candidate's document as a whole: the query-term counts and content
 * words of all its candidate passages summed, each term weighed by `qw` (its idf in the base), the
 * length normalised over the candidates' documents. For ranking documents: a document that keeps
 * returning to the question's terms is about them, even when no one passage says them all.
 */
export function withDocumentTerms<R>(
  passages: RankedPassage<R>[],
  docOf: (r: R) => string,
  qw: ArrayLike<number>,
): RankedPassage<R>[] {
  if (passages.length < 2 || qw.length === 0) return passages
  const docs = new Map<string, { tf: Float64Array; words: number }>()
  for (const p of passages) {
    if (!p.tf) continue
    const d = docOf(p.ref)
    const doc = docs.get(d) ?? { tf: new Float64Array(qw.length), words: 0 }
    docs.set(d, doc)
    doc.words += p.words ?? 0
    for (let q = 0; q < qw.length; q++) doc.tf[q]! += p.tf[q] ?? 0
  }
  let words = 0
  for (const doc of docs.values()) words += doc.words
  const avg = words / docs.size || 1
  const score = new Map<string, number>()
  for (const [d, doc] of docs) {
    const norm = DOC_TF_K1 * (1 - DOC_TF_B + (DOC_TF_B * doc.words) / avg)
    let s = 0
    for (let q = 0; q < qw.length; q++) {
      const tf = doc.tf[q]!
      if (tf > 0) s += (qw[q]! * tf * (DOC_TF_K1 + 1)) / (tf + norm)
    }
    score.set(d, s)
  }
  for (const p of passages) p.score += DOC_TF_W * (score.get(docOf(p.ref)) ?? 0)
  return passages.sort((a, b) => descending(a.score, b.score))
}
