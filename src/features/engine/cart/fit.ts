import type { QueryPlan } from '../rank/index'
import { type WarmCartridge, withExpansionLists } from './cartridge'
import { cartEntry, searchCartridges } from './cartsearch'
import { antecedent, isAnaphoric, synthesize } from './synth'

/** The sentence a question lands on within one cartridge (its best sentence overall), or -1. */
export function landsOn(cart: WarmCartridge, plan: QueryPlan): number {
  const top = searchCartridges([cartEntry(null, cart)], plan, 2, {
    respell: false,
    variants: false,
  })
  let best = -1
  let bestScore = Number.NEGATIVE_INFINITY
  for (const p of top)
    for (const s of p.sentences.slice(0, 1))
      if (s.score > bestScore) {
        bestScore = s.score
        best = s.start
      }
  if (best < 0) return -1
  // Sentences are sorted by start: find the one starting there.
  let lo = 0
  let hi = cart.sents.length / 2 - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (cart.sents[2 * mid]! < best) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * Fits a cartridge's expansions on questions synthesised from its own text (the self-study step).
 * For each sentence that refers back ("He moved ...", "The company ..."), a question is written the
 * way a reader would ask it, naming the antecedent; when that question does not land on the
 * sentence, the antecedent's terms become learned expansions of the sentence, and are kept only if
 * the question then lands on it. Returns the refitted cartridge.
 */
export function fitCartridge(cart: WarmCartridge): WarmCartridge {
  const nSents = cart.sents.length / 2
  const learned = new Map<number, number[]>()
  const questions: { q: ReturnType<typeof synthesize>; s: number }[] = []
  // A bounded budget of questions per section keeps onboarding linear in the text.
  let budget = Math.max(8, nSents >> 3)
  for (let s = 0; s < nSents && budget > 0; s++) {
    if (!isAnaphoric(cart, s) || antecedent(cart, s).length === 0) continue
    budget--
    const q = synthesize(cart, s)
    if (q && q.borrowed.length > 0 && landsOn(cart, q.plan) !== s) {
      learned.set(s, q.borrowed)
      questions.push({ q, s })
    }
  }
  if (learned.size === 0) return cart
  const fitted = withExpansions(cart, learned)
  // Keep only the expansions that make their question land.
  const kept = new Map<number, number[]>()
  for (const { q, s } of questions) if (q && landsOn(fitted, q.plan) === s) kept.set(s, learned.get(s)!)
  return kept.size === learned.size ? fitted : kept.size ? withExpansions(cart, kept) : cart
}

function withExpansions(cart: WarmCartridge, exp: Map<number, number[]>): WarmCartridge {
  const nSents = cart.sents.length / 2
  const expOff = new Uint32Array(nSents + 1)
  const terms: number[] = []
  for (let s = 0; s < nSents; s++) {
    for (const t of exp.get(s) ?? []) terms.push(t)
    expOff[s + 1] = terms.length
  }
  return withExpansionLists(cart, Uint32Array.from(terms), expOff)
}

/** Share of synthetic questions (one per sentence that yields one) landing on their own sentence. */
export function selfTest(cart: WarmCartridge): { questions: number; landed: number } {
  let questions = 0
  let landed = 0
  for (let s = 0; s < cart.sents.length / 2; s++) {
    const q = synthesize(cart, s)
    if (!q) continue
    questions++
    if (landsOn(cart, q.plan) === s) landed++
  }
  return { questions, landed }
}
