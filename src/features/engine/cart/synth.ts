import { AnswerType, type QueryPlan, TokenKind } from '../rank/index'
import type { WarmCartridge } from './cartridge'

/** A question synthesised from one sentence of a section, with the sentence it is about. */
export interface SyntheticQuestion {
  sentence: number
  plan: QueryPlan
  /** Term ids the question borrowed from the sentence's antecedent (not in the sentence itself). */
  borrowed: number[]
}

// A synthetic question keeps about three fifths of its sentence's other words, six at most.
const KEEP = 3
const MAX_TERMS = 6
// Sentence openings that refer back to something named earlier: "He ...", "The company ...".
const ANAPHORA = /^(he|she|it|they|this|these|those|its|his|her|their|the|such|there)\b/i

/** A deterministic hash of two integers, for reproducible subsampling. */
function mix(a: number, b: number): number {
  let h = (a * 0x9e3779b1) ^ (b * 0x85ebca77)
  h ^= h >>> 15
  h = Math.imul(h, 0x2c1b3c6d)
  h ^= h >>> 12
  return h >>> 0
}

/** Whether a sentence opens with a reference back (pronoun or definite noun phrase). */
export function isAnaphoric(cart: WarmCartridge, s: number): boolean {
  return ANAPHORA.test(cart.text.slice(cart.sents[2 * s]!, cart.sents[2 * s]! + 12))
}

/**
 * The named thing a sentence most likely refers back to: the first proper-name run of the closest
 * earlier sentence of the same passage that has one (up to three term ids).
 */
export function antecedent(cart: WarmCartridge, s: number): number[] {
  const p = cart.passageOf[s]!
  const first = cart.passages[2 * p]!
  for (let t = s - 1; t >= first; t--) {
    const out: number[] = []
    for (let i = cart.sentOff[t]!; i < cart.sentOff[t + 1]!; i++) {
      if (cart.sentKinds[i]! & TokenKind.entity) out.push(cart.sentTerms[i]!)
      else if (out.length) break
      if (out.length === 3) break
    }
    if (out.length) return out
  }
  return []
}

/**
 * A cloze-style question about sentence `s`: one answer span is masked (a date, a number or a name,
 * which sets the wh-type), and about two thirds of the remaining content words are kept, in order,
 * the way people paraphrase when they ask. A sentence that refers back gets its antecedent's name,
 * as a person asking would write it.
 */
export function synthesize(cart: WarmCartridge, s: number): SyntheticQuestion | null {
  const from = cart.sentOff[s]!
  const to = cart.sentOff[s + 1]!
  if (to - from < 3) return null
  let answer = -1
  let want: number = AnswerType.none
  for (let i = from; i < to && answer < 0; i++) {
    const k = cart.sentKinds[i]!
    if (k & TokenKind.date) [answer, want] = [i, AnswerType.date]
    else if (k & TokenKind.number) [answer, want] = [i, AnswerType.number]
  }
  for (let i = from; i < to && answer < 0; i++)
    if (cart.sentKinds[i]! & TokenKind.entity) [answer, want] = [i, AnswerType.entity]
  if (answer < 0) answer = to - 1
  const ids: number[] = []
  for (let i = from; i < to; i++) {
    if (i === answer || (i > answer && i - answer < 2 && cart.sentKinds[i] === cart.sentKinds[answer]))
      continue
    const id = cart.sentTerms[i]!
    if (!ids.includes(id) && mix(s, i) % 5 < KEEP) ids.push(id)
  }
  const borrowed: number[] = []
  if (isAnaphoric(cart, s))
    for (const id of antecedent(cart, s)) {
      if (ids.includes(id)) continue
      ids.unshift(id)
      borrowed.push(id)
    }
  if (ids.length < 2) return null
  const terms = ids.slice(0, MAX_TERMS).map((id) => cart.vocab[id]!)
  const pairs: [number, number][] = []
  for (let i = 1; i < terms.length; i++) pairs.push([i - 1, i])
  return { sentence: s, plan: { terms, pairs, want, soft: 0, kind: [] }, borrowed }
}
