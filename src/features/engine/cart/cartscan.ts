import {
  boundable,
  byScore,
  descending,
  featureScoresOf,
  passageScore,
  type QueryPlan,
  type RankedPassage,
  type RankedSentence,
  scored,
  sentenceBound,
  sequenced,
  sequenceFeaturesOf,
  TokenKind,
  type TopK,
} from '../rank/index'
import type { KindTest } from '../text/index'
import type { WarmCartridge } from './cartridge'
import { type Scratch, scratchOf } from './cartscratch'
import { internTerm } from './terms'

// One cartridge searched for one question: the sentences holding its terms (or their expansions)
// are scored, and their passages offered to the question's top list.

/** A warm cartridge and the caller's reference for the section it belongs to. */
export interface CartEntry<R> {
  ref: R
  cart: WarmCartridge
  /** Global numbers of the section title's index terms (its document's name): context for every sentence. */
  titleIds: Uint32Array
}

/** An entry of a cartridge, its caller's reference and its title's index terms. */
export function cartEntry<R>(ref: R, cart: WarmCartridge, titleTerms: string[] = []): CartEntry<R> {
  // Title terms take global numbers too, so a question's term meets them by number.
  return { ref, cart, titleIds: Uint32Array.from(titleTerms, internTerm) }
}

/** What the sentence bound needs of the question: its pairs' term masks and count, and whether it asks a kind. */
export interface SentenceGate {
  pairMasks: number[]
  nPairs: number
  typed: boolean
}

/** What the search of one section needs of its bound: which query terms its title names, and its prior. */
export interface Candidate {
  titleMask: number
  /** The section prior (exact: it depends only on how many sentences hold each term). */
  secScore: number
}

/** Searches one cartridge: marks, scores and offers its passages, then resets what it touched. */
export function searchOne<R>(
  { ref, cart }: CartEntry<R>,
  ids: Int32Array,
  vars: number[][],
  { titleMask, secScore: sectionScore }: Candidate,
  plan: QueryPlan,
  qw: Float64Array,
  total: number,
  pairs: Set<number>,
  kind: KindTest | null,
  top: TopK<RankedPassage<R>>,
  gate?: SentenceGate,
): void {
  const x = scratchOf(cart)
  const touched: number[] = []
  const passages: number[] = []
  for (let q = 0; q < ids.length; q++) {
    const id = ids[q]!
    const bit = 1 << q
    // Word-family variants count as expansions of the term.
    for (const v of vars[q]!)
      for (let i = cart.postOff[v]!; i < cart.postOff[v + 1]!; i++) {
        const s = cart.post[i]!
        if (x.hit[s] === 0 && x.exp[s] === 0) touched.push(s)
        x.exp[s]! |= bit
      }
    if (id < 0 || qw[q] === 0) continue
    x.qmap[id] = q
    for (let i = cart.postOff[id]!; i < cart.postOff[id + 1]!; i++) {
      const s = cart.post[i]!
      if (x.hit[s] === 0 && x.exp[s] === 0) touched.push(s)
      x.hit[s]! |= bit
      x.pass[cart.passageOf[s]!]! |= bit
    }
    for (let i = cart.expPostOff[id]!; i < cart.expPostOff[id + 1]!; i++) {
      const s = cart.expPost[i]!
      if (x.hit[s] === 0 && x.exp[s] === 0) touched.push(s)
      x.exp[s]! |= bit
    }
  }
  const secScore = touched.length ? sectionScore : 0
  // With a bound, each passage's bound is kept too: a passage that cannot enter the top list is not
  // scored (its bound only falls short of more as the list fills).
  const bounded = gate !== undefined && boundable(cart.weights)
  if (gate && !top.accepts(bestBound(cart, touched, x, titleMask, secScore, qw, total, gate))) {
    // No passage of the section can enter the top list: nothing is scored.
    reset(cart, touched, x, ids)
    return
  }
  for (const s of touched) {
    if (bounded && !top.accepts(x.bound[cart.passageOf[s]!]! + secScore)) continue
    const from = cart.sentOff[s]!
    const to = cart.sentOff[s + 1]!
    // Only a word that is no question term, in a sentence holding one, can offer the noun kind; a loop
    // for each case, not `kindHere?.has` (ragsearch.ts: its hoisted type check left optimized code).
    const kindHere = x.hit[s] !== 0 ? kind : null
    if (kindHere === null)
      for (let i = from; i < to; i++) {
        x.seq[i - from] = x.qmap[cart.sentTerms[i]!]!
        x.kseq[i - from] = cart.sentKinds[i]!
      }
    else
      for (let i = from; i < to; i++) {
        const t = cart.sentTerms[i]!
        const q = x.qmap[t]!
        x.seq[i - from] = q
        x.kseq[i - from] =
          q < 0 && kindHere.has(cart.vocabSense[t]!)
            ? cart.sentKinds[i]! | TokenKind.noun
            : cart.sentKinds[i]!
      }
    // Features and scores left in shared objects (sequenced, scored), read at once: no object a sentence.
    sequenceFeaturesOf(x.seq, x.kseq, 0, to - from, plan.want, pairs, qw)
    const p = cart.passageOf[s]!
    const near = s > cart.passages[2 * p]! ? x.hit[s - 1]! : 0
    featureScoresOf(sequenced, titleMask, x.pass[p]!, x.exp[s]!, qw, total, cart.weights, near)
    x.score[s] = scored.pick
    x.typed[s] = sequenced.pickTypeOk ? 1 : 0
    if (x.best[p] === Number.NEGATIVE_INFINITY) passages.push(p)
    if (scored.rank > x.best[p]!) x.best[p] = scored.rank
  }
  pushPassages(cart, ref, passages, x, titleMask, secScore, qw, plan.terms.length, top)
  for (const p of passages) x.best[p] = Number.NEGATIVE_INFINITY
  reset(cart, touched, x, ids)
}

/** Resets only what this query touched (best aside: only scored passages have one). */
function reset(cart: WarmCartridge, touched: number[], x: Scratch, ids: Int32Array): void {
  for (const s of touched) {
    const p = cart.passageOf[s]!
    x.pass[p] = 0
    x.bound[p] = Number.NEGATIVE_INFINITY
    x.hit[s] = x.exp[s] = 0
  }
  for (const id of ids) if (id >= 0) x.qmap[id] = -1
}

/**
 * The best score any passage of the section could reach, from the marked terms of each touched
 * sentence (rank.ts's sentenceBound), or +Infinity when the section's weights allow no bound; each
 * passage's bound (before the prior) is left in `x.bound`.
 */
function bestBound(
  cart: WarmCartridge,
  touched: number[],
  x: Scratch,
  titleMask: number,
  secScore: number,
  qw: Float64Array,
  total: number,
  gate: SentenceGate,
): number {
  if (!boundable(cart.weights)) return Number.POSITIVE_INFINITY
  let best = Number.NEGATIVE_INFINITY
  for (const s of touched) {
    const hit = x.hit[s]!
    const pass = x.pass[cart.passageOf[s]!]!
    let paired = false
    for (let i = 0; i < gate.pairMasks.length && !paired; i++)
      paired = (hit & gate.pairMasks[i]!) === gate.pairMasks[i]!
    const len = cart.sentOff[s + 1]! - cart.sentOff[s]!
    const rank = sentenceBound(
      hit,
      x.exp[s]!,
      pass | titleMask,
      len,
      qw,
      total,
      paired ? gate.nPairs : 0,
      gate.typed,
      cart.weights,
    )
    const p = cart.passageOf[s]!
    const score = passageScore(rank, pass, titleMask, qw)
    if (score > x.bound[p]!) x.bound[p] = score
    if (score > best) best = score
  }
  return best + secScore
}

/**
 * Offers the passages this question touched to the top list, with their matching sentences and term
 * counts. They are offered best first (equal scores in the order touched), so a passage the list
 * would take and then drop for a better one of the same section is never built; the list ends the
 * same, as it keeps the first `k` of its offers in a stable sort by score.
 */
function pushPassages<R>(
  cart: WarmCartridge,
  ref: R,
  passages: number[],
  x: Scratch,
  titleMask: number,
  secScore: number,
  qw: Float64Array,
  nTerms: number,
  top: TopK<RankedPassage<R>>,
): void {
  const scores = passages.map((p) => passageScore(x.best[p]!, x.pass[p]!, titleMask, qw) + secScore)
  const order =
    passages.length > 1
      ? Array.from(passages.keys()).sort((a, b) => descending(scores[a]!, scores[b]!) || a - b)
      : [0]
  for (const at of order) {
    if (at >= passages.length) break
    const p = passages[at]!
    const score = scores[at]!
    // The rest score no higher, and the list only grows harder to enter.
    if (!top.accepts(score)) break
    const first = cart.passages[2 * p]!
    const last = cart.passages[2 * p + 1]!
    const sentences: RankedSentence[] = []
    const tf = new Uint16Array(nTerms)
    for (let s = first; s <= last; s++) {
      if (x.hit[s] === 0 && x.exp[s] === 0) continue
      // Term counts for withTermFrequency: only sentences holding a query term can add to them.
      if (x.hit[s] !== 0)
        for (let i = cart.sentOff[s]!; i < cart.sentOff[s + 1]!; i++) {
          const q = x.qmap[cart.sentTerms[i]!]!
          if (q >= 0) tf[q]!++
        }
      sentences.push({
        start: cart.sents[2 * s]!,
        end: cart.sents[2 * s + 1]!,
        score: x.score[s]!,
        hit: x.hit[s]!,
        typeOk: x.typed[s] === 1,
      })
    }
    sentences.sort(byScore)
    const start = cart.sents[2 * first]!
    const end = cart.sents[2 * last + 1]!
    const words = cart.sentOff[last + 1]! - cart.sentOff[first]!
    top.push({ ref, ordinal: p, text: cart.text, start, end, score, sentences, tf, words })
  }
}
