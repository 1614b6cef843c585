/**
 * The sentence scorer both strategies share: a small linear model over features of one sentence for
 * one question. Strategies differ in how they find candidate sentences and compute the features
 * (the index at query time, or the cartridge's precomputed lists), not in how they rank them.
 */

import type { Features, SequenceFeatures } from './sequence'

/** Weights of the linear scorer; each cartridge carries the copy it was compiled with. */
export interface ScoreWeights {
  /** Query terms found only in the sentence's passage or section title, not the sentence itself. */
  ctx: number
  /** Query terms found only through the sentence's learned expansions. */
  exp: number
  /** Adjacent question terms adjacent in the sentence too (a phrase), per pair, times mean weight. */
  pair: number
  /** The sentence offers a word of the kind the question asks for that the question lacks. */
  type: number
  /** Per log2 of the sentence's content length: long sentences match by chance. */
  len: number
  /** Fraction of the question's weight the sentence covers, squared (rewards complete matches). */
  cover: number
  /** Weight kept by terms the sentence matches outside its densest window (chance matches). */
  far: number
}

/**
 * Hand-set weights. A coordinate search on synthetic questions from the text moved them, but the
 * moves did not carry over to real questions, so these stay the defaults.
 */
export const defaultWeights: ScoreWeights = {
  ctx: 0.5,
  exp: 0.5,
  pair: 0.3,
  type: 1.2,
  len: 0.3,
  cover: 2,
  far: 0.5,
}

/** Sum of the weights of the terms whose bits are set in `mask`. */
export function maskWeight(mask: number, qw: Float64Array): number {
  let s = 0
  for (let m = mask, i = 0; m !== 0; m >>>= 1, i++) if (m & 1) s += qw[i]!
  return s
}

/** The score of one sentence; `total` is the summed weight of all query terms. */
export function scoreSentence(f: Features, qw: Float64Array, total: number, w: ScoreWeights): number {
  return scoreParts(f.hit, f.win, f.ctx, f.exp, f.pairs, f.typeOk, f.len, qw, total, w)
}

/** scoreSentence over the features one by one (the hot path scores each sentence twice). */
function scoreParts(
  hit: number,
  win: number,
  ctxMask: number,
  expMask: number,
  pairs: number,
  typeOk: boolean,
  len: number,
  qw: Float64Array,
  total: number,
  w: ScoreWeights,
): number {
  const direct = maskWeight(win, qw) + w.far * maskWeight(hit & ~win, qw)
  const ctx = maskWeight(ctxMask & ~hit, qw)
  const exp = maskWeight(expMask & ~hit & ~ctxMask, qw)
  const covered = (direct + w.ctx * ctx + w.exp * exp) / (total || 1)
  const mean = total / Math.max(1, qw.length)
  return (
    direct +
    w.ctx * ctx +
    w.exp * exp +
    w.pair * pairs * mean +
    (typeOk ? w.type * mean : 0) -
    w.len * Math.log2(1 + len) +
    w.cover * covered * covered * mean
  )
}

/** Inverse document frequency as BM25 defines it (never negative). */
export function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5))
}

// Weight of question terms found in the sentence just before (same passage) and not in this one: a
// sentence that goes on about what the one before named ("This forced the Emperor ...") answers it.
const NEAR = 0.3
/**
 * A sentence's two scores: for ranking passages, title terms count as matches like any other; for
 * picking the answer sentence inside a document, they are the document's topic, implied by every
 * sentence of it, so they count as context everywhere ("When did Tesla die?" is decided by "die",
 * not by which sentences spell out "Tesla").
 */
export function sentenceScores(...args: Parameters<typeof featureScoresOf>): { rank: number; pick: number } {
  featureScoresOf(...args)
  return { rank: scored.rank, pick: scored.pick }
}

/** sentenceScores with its two scores left in `scored` (no object a sentence: the features unpacked here only). */
export function featureScoresOf(
  f: SequenceFeatures,
  titleMask: number,
  passMask: number,
  exp: number,
  qw: Float64Array,
  total: number,
  w: ScoreWeights,
  near = 0,
): void {
  sentenceScoresOf(
    f.hit,
    f.win,
    f.pairs,
    f.typeOk,
    f.pickTypeOk,
    f.len,
    titleMask,
    passMask,
    exp,
    qw,
    total,
    w,
    near,
  )
}

/** The two scores sentenceScoresOf leaves (one object for every sentence: a search is synchronous). */
export const scored = { rank: 0, pick: 0 }

/** sentenceScores over the features one by one, its two scores left in `scored` (no object a sentence). */
export function sentenceScoresOf(
  hit: number,
  win: number,
  pairs: number,
  typeOk: boolean,
  pickTypeOk: boolean,
  len: number,
  titleMask: number,
  passMask: number,
  exp: number,
  qw: Float64Array,
  total: number,
  w: ScoreWeights,
  near: number,
): void {
  const ctx = passMask | titleMask
  const rank = scoreParts(hit, win, ctx, exp, pairs, typeOk, len, qw, total, w)
  // With no title term among its matches (the window's are among them) and the same type test, the
  // pick is scored from the same parts as the rank.
  const same = ((hit | win) & titleMask) === 0 && typeOk === pickTypeOk
  const pick = same
    ? rank
    : scoreParts(hit & ~titleMask, win & ~titleMask, ctx, exp, pairs, pickTypeOk, len, qw, total, w)
  scored.rank = rank
  scored.pick = pick + NEAR * maskWeight(near & ~hit & ~titleMask, qw)
}
