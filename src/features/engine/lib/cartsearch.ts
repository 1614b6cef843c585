import type { WarmCartridge } from './cartridge'
import type { QueryPlan } from './query'
import { pairSet, passageScore, type RankedPassage, type RankedSentence, TopK, termWeights } from './rank'
import { scoreSentence, sequenceFeatures } from './score'

const SEC_K = Number(process.env.SEC_K ?? 2)
const SEC_W = Number(process.env.SEC_W ?? 0.6)
/** A warm cartridge and the caller's reference for the section it belongs to. */
export interface CartEntry<R> {
  ref: R
  cart: WarmCartridge
  /** Index terms of the section's title (its document's name): context for every sentence. */
  titleTerms: string[]
}

/**
 * The cart strategy's retrieval: scores the sentences of every given cartridge that share a term
 * with the question (or with a learned expansion), and returns the `limit` best passages. It reads
 * only the warm cartridges, never the index.
 */
export function searchCartridges<R>(
  entries: CartEntry<R>[],
  plan: QueryPlan,
  limit: number,
): RankedPassage<R>[] {
  const nq = plan.terms.length
  if (nq === 0 || entries.length === 0) return []
  // Base-wide idf from the cartridges' own passage counts.
  const df = new Float64Array(nq)
  let nPassages = 0
  const local: Int32Array[] = entries.map(({ cart }) => {
    nPassages += cart.passages.length / 2
    const ids = new Int32Array(nq)
    for (let q = 0; q < nq; q++) {
      const id = cart.termId.get(plan.terms[q]!)
      ids[q] = id ?? -1
      if (id !== undefined) df[q]! += cart.passageDf[id]!
    }
    return ids
  })
  const qw = termWeights(plan, nPassages, df)
  let total = 0
  for (const w of qw) total += w
  const pairs = pairSet(plan)
  const top = new TopK<RankedPassage<R>>(limit)
  entries.forEach((entry, e) => searchOne(entry, local[e]!, plan, qw, total, pairs, top))
  return top.sorted()
}

function searchOne<R>(
  { ref, cart, titleTerms }: CartEntry<R>,
  ids: Int32Array,
  plan: QueryPlan,
  qw: Float64Array,
  total: number,
  pairs: Set<number>,
  top: TopK<RankedPassage<R>>,
): void {
  const hit = new Map<number, number>()
  const exp = new Map<number, number>()
  const passMask = new Map<number, number>()
  const qmap = new Map<number, number>()
  let titleMask = 0
  for (let q = 0; q < plan.terms.length; q++) if (titleTerms.includes(plan.terms[q]!)) titleMask |= 1 << q
  for (let q = 0; q < ids.length; q++) {
    const id = ids[q]!
    if (id < 0 || qw[q] === 0) continue
    const bit = 1 << q
    qmap.set(id, q)
    for (let i = cart.postOff[id]!; i < cart.postOff[id + 1]!; i++) {
      const s = cart.post[i]!
      hit.set(s, (hit.get(s) ?? 0) | bit)
      const p = cart.passageOf[s]!
      passMask.set(p, (passMask.get(p) ?? 0) | bit)
    }
    for (let i = cart.expPostOff[id]!; i < cart.expPostOff[id + 1]!; i++) {
      const s = cart.expPost[i]!
      exp.set(s, (exp.get(s) ?? 0) | bit)
    }
  }
  if (hit.size === 0 && exp.size === 0) return
  const qidx = (i: number) => qmap.get(cart.sentTerms[i]!) ?? -1
  const byPassage = new Map<number, RankedSentence[]>()
  const candidates = new Set<number>([...hit.keys(), ...exp.keys()])
  for (const s of candidates) {
    const from = cart.sentOff[s]!
    const to = cart.sentOff[s + 1]!
    const mapped = new Int8Array(to - from)
    for (let i = from; i < to; i++) mapped[i - from] = qidx(i)
    const f = sequenceFeatures(mapped, cart.sentKinds.subarray(from, to), 0, to - from, plan.want, pairs, qw)
    const p = cart.passageOf[s]!
    const score = scoreSentence(
      { ...f, ctx: (passMask.get(p) ?? 0) | titleMask, exp: exp.get(s) ?? 0 },
      qw,
      total,
      cart.weights,
    )
    const sent: RankedSentence = { start: cart.sents[2 * s]!, end: cart.sents[2 * s + 1]!, score, hit: f.hit }
    const list = byPassage.get(p)
    if (list) list.push(sent)
    else byPassage.set(p, [sent])
  }
  let secScore = 0
  for (let q = 0; q < ids.length; q++) {
    const id = ids[q]!
    if (id < 0) continue
    const c = cart.postOff[id + 1]! - cart.postOff[id]!
    secScore += qw[q]! * (c / (c + SEC_K))
  }
  secScore *= SEC_W
  for (const [p, sentences] of byPassage) {
    sentences.sort((a, b) => b.score - a.score)
    const first = cart.passages[2 * p]!
    const last = cart.passages[2 * p + 1]!
    top.push({
      ref,
      ordinal: p,
      text: cart.text,
      start: cart.sents[2 * first]!,
      end: cart.sents[2 * last + 1]!,
      score: passageScore(sentences, passMask.get(p) ?? 0, titleMask, qw) + secScore,
      sentences,
    })
  }
}
