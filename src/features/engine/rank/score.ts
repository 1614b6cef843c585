/**
 * The sentence scorer both strategies share: a small linear model over features of one sentence for
 * one question. Strategies differ in how they find candidate sentences and compute the features
 * (the index at query time, or the cartridge's precomputed lists), not in how they rank them.
 */

import { AnswerType } from './query'

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

/** Features of one sentence for one question. Bit i of a mask stands for query term i. */
export interface Features {
  hit: number
  /** Bits of the terms inside the sentence's densest window of WINDOW content words. */
  win: number
  ctx: number
  exp: number
  pairs: number
  /** A word of the kind asked for sits near a question term (any kind: for ranking passages). */
  typeOk: boolean
  /** The same without the noun kind (for picking the answer sentence, see AnswerType.noun). */
  pickTypeOk: boolean
  len: number
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

/**
 * Features from a sentence's term sequence already mapped to query-term indexes (-1 for others)
 * and the kinds of its words; `want` is the question's answer type, `qpairs` its adjacent pairs
 * encoded a*64+b.
 */
export function sequenceFeatures(
  qidx: ArrayLike<number>,
  kinds: ArrayLike<number>,
  from: number,
  to: number,
  want: number,
  qpairs: Set<number>,
  qw: Float64Array,
): Omit<Features, 'ctx' | 'exp'> {
  let hit = 0
  let pairs = 0
  let typeOk = false
  let pickTypeOk = false
  let prev = -1
  let lastHit = -1e9
  let lastTyped = -1e9
  let lastPickTyped = -1e9
  const pickWant = want & ~AnswerType.noun
  for (let i = from; i < to; i++) {
    const q = qidx[i]!
    if (q >= 0) {
      hit |= 1 << q
      if (prev >= 0 && qpairs.has(prev * 64 + q)) pairs++
      lastHit = i
      if (i - lastTyped <= TYPE_NEAR) typeOk = true
      if (i - lastPickTyped <= TYPE_NEAR) pickTypeOk = true
    } else if (want !== 0 && (kinds[i]! & want) !== 0) {
      lastTyped = i
      if (i - lastHit <= TYPE_NEAR) typeOk = true
      if ((kinds[i]! & pickWant) !== 0) {
        lastPickTyped = i
        if (i - lastHit <= TYPE_NEAR) pickTypeOk = true
      }
    }
    prev = q
  }
  return {
    hit,
    win: to - from <= WINDOW ? hit : densestWindow(qidx, from, to, qw, hit),
    // Capped at the question's own pair count, so a score has a bound (see scoreBound in rank.ts).
    pairs: Math.min(pairs, qpairs.size),
    typeOk,
    pickTypeOk,
    len: to - from,
  }
}

// A word of the wanted kind counts only this close (in content words) to a question term.
const TYPE_NEAR = 6

// Weight of question terms found in the sentence just before (same passage) and not in this one: a
// sentence that goes on about what the one before named ("This forced the Emperor ...") answers it.
const NEAR = 0.3
/** Content words in the window a question's terms should fall in when the sentence answers it. */
export const WINDOW = 12

/** Occurrences of each query term in the window densestWindow slides (one search at a time: it is synchronous). */
const windowCounts = new Uint8Array(16)

/**
 * Bits of the distinct query terms in the WINDOW-word stretch holding the most query weight, `hit`
 * being the bits of all the sentence's: none when it has none, its one term when that weighs
 * anything (the first window holding it is the densest), else the windows are slid over.
 */
function densestWindow(
  qidx: ArrayLike<number>,
  from: number,
  to: number,
  qw: Float64Array,
  hit: number,
): number {
  if (hit === 0) return 0
  // (Terms past the 16th are not counted: a sentence of one such term has no window.)
  if (hit > 0 && hit < 0x10000 && (hit & (hit - 1)) === 0 && qw[31 - Math.clz32(hit)]! > 0) return hit
  const count = windowCounts.fill(0)
  let mask = 0
  let weight = 0
  let best = -1
  let bestMask = 0
  for (let i = from; i < to; i++) {
    const q = qidx[i]!
    if (q >= 0 && count[q]!++ === 0) {
      mask |= 1 << q
      weight += qw[q]!
    }
    const out = i - WINDOW
    if (out >= from) {
      const o = qidx[out]!
      if (o >= 0 && --count[o]! === 0) {
        mask &= ~(1 << o)
        weight -= qw[o]!
      }
    }
    if (weight > best) {
      best = weight
      bestMask = mask
    }
  }
  return bestMask
}

/**
 * A sentence's two scores: for ranking passages, title terms count as matches like any other; for
 * picking the answer sentence inside a document, they are the document's topic, implied by every
 * sentence of it, so they count as context everywhere ("When did Tesla die?" is decided by "die",
 * not by which sentences spell out "Tesla").
 */
export function sentenceScores(
  f: Omit<Features, 'ctx' | 'exp'>,
  titleMask: number,
  passMask: number,
  exp: number,
  qw: Float64Array,
  total: number,
  w: ScoreWeights,
  near = 0,
): { rank: number; pick: number } {
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
  return { rank: scored.rank, pick: scored.pick }
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
