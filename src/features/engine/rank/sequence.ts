// A sentence's features for one question from its term sequence (score.ts scores them): which
// question terms it holds, their densest window, the question's pairs it repeats, and whether a word
// of the kind asked for sits near them. Both strategies compute them a sentence at a time.
import { AnswerType } from './query'

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

/** A sentence's features from its term sequence (sequenceFeatures), without the context and expansion marks. */
export type SequenceFeatures = Omit<Features, 'ctx' | 'exp'>

/**
 * Features from a sentence's term sequence already mapped to query-term indexes (-1 for others)
 * and the kinds of its words; `want` is the question's answer type, `qpairs` its adjacent pairs
 * encoded a*64+b.
 */
export function sequenceFeatures(...args: Parameters<typeof sequenceFeaturesOf>): SequenceFeatures {
  sequenceFeaturesOf(...args)
  return { ...sequenced }
}

/**
 * The features sequenceFeaturesOf leaves: one object for every sentence (a search is synchronous),
 * read before the next sentence's.
 */
export const sequenced = { hit: 0, win: 0, pairs: 0, typeOk: false, pickTypeOk: false, len: 0 }

/** sequenceFeatures with its features left in `sequenced` (no object a sentence: the searches score hundreds a question). */
export function sequenceFeaturesOf(
  qidx: ArrayLike<number>,
  kinds: ArrayLike<number>,
  from: number,
  to: number,
  want: number,
  qpairs: Set<number>,
  qw: Float64Array,
): void {
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
  sequenced.hit = hit
  sequenced.win = to - from <= WINDOW ? hit : densestWindow(qidx, from, to, qw, hit)
  // Capped at the question's own pair count, so a score has a bound (see scoreBound in rank.ts).
  sequenced.pairs = Math.min(pairs, qpairs.size)
  sequenced.typeOk = typeOk
  sequenced.pickTypeOk = pickTypeOk
  sequenced.len = to - from
}

// A word of the wanted kind counts only this close (in content words) to a question term.
const TYPE_NEAR = 6

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
