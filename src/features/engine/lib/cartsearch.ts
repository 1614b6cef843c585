import { localId, type WarmCartridge } from './cartridge'
import { type KindTest, kindTest } from './hypernyms'
import { type QueryPlan, TokenKind } from './query'
import {
  pairSet,
  passageScore,
  type RankedPassage,
  type RankedSentence,
  scoreBound,
  sectionPrior,
  TopK,
  termWeights,
} from './rank'
import { idf, sentenceScores, sequenceFeatures } from './score'
import { respellPlan } from './spell'
import type { TermEvidence } from './support'
import { lookupTerm, termsStartingWith } from './terms'
import { variantsOf } from './variants'

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
  input: QueryPlan,
  limit: number,
  opts: {
    respell?: boolean
    variants?: boolean
    prune?: boolean
    stats?: { searched: number }
    /** Filled in with the question's terms as searched and their passage counts (for support.ts). */
    evidence?: TermEvidence
  } = {},
): RankedPassage<R>[] {
  const nq = input.terms.length
  if (nq === 0 || entries.length === 0) return []
  // Base-wide idf from the cartridges' own passage counts; unknown terms get their closest spelling.
  let nPassages = 0
  for (const { cart } of entries) nPassages += cart.passages.length / 2
  // Global term numbers are resolved once per question, not once per cartridge (a string hash each);
  // the question's own local ids are kept per cartridge so the search below does not look them up again.
  const lookUp = (terms: string[]) => {
    const gs = globalIds(terms)
    const local = new Int32Array(entries.length * terms.length)
    const df = terms.map(() => 0)
    for (let e = 0; e < entries.length; e++) {
      const cart = entries[e]!.cart
      for (let q = 0; q < gs.length; q++) {
        const id = gs[q]! < 0 ? -1 : localId(cart, gs[q]!)
        local[e * terms.length + q] = id
        if (id >= 0) df[q]! += cart.passageDf[id]!
      }
    }
    return { gs, local, df }
  }
  const { gs: inputIds, local: inputLocal, df: inputDf } = lookUp(input.terms)
  const { plan, df } =
    opts.respell === false
      ? { plan: input, df: inputDf }
      : respellPlan(input, inputDf, (prefix) => knownTerms(entries, prefix))
  if (opts.evidence)
    Object.assign(opts.evidence, { terms: plan.terms, df, passages: nPassages, soft: plan.soft })
  const qw = termWeights(plan, nPassages, df)
  const variants =
    opts.variants === false
      ? plan.terms.map(() => [])
      : variantsOf(plan.terms, termsStartingWith, (c) => c.map((t) => lookupTerm(t) !== undefined))
  // A term the base lacks weighs as its rarest known variant would (its matches stay weak evidence).
  variants.forEach((vs, q) => {
    if (qw[q] !== 0 || vs.length === 0) return
    const vdf = lookUp(vs).df.filter((d) => d > 0)
    if (vdf.length) qw[q] = idf(nPassages, Math.min(...vdf))
  })
  let total = 0
  for (const w of qw) total += w
  const pairs = pairSet(plan)
  const kind = plan.kind.length ? kindTest(plan.kind) : null
  const top = new TopK<RankedPassage<R>>(limit)
  const planIds = globalIds(plan.terms)
  const termIndex = new Map(plan.terms.map((t, q) => [t, q]))
  const variantIds = variants.map((vs, q) => (qw[q] === 0 ? new Int32Array(0) : globalIds(vs)))
  // Indexed loops throughout: this runs once per cartridge of the base for every question. Each
  // section gets an upper bound of the score it could reach from which terms it holds (nothing is
  // allocated per section); sections are then searched best bound first, and the search stops at
  // the first bound the top list would not take (exact: no section it skips could have entered it).
  const localOf = (e: number, q: number) => {
    const g = planIds[q]!
    return g === inputIds[q] ? inputLocal[e * nq + q]! : g < 0 ? -1 : localId(entries[e]!.cart, g)
  }
  const sentenceCounts = new Uint16Array(nq)
  const candidates: Candidate[] = []
  for (let e = 0; e < entries.length; e++) {
    const entry = entries[e]!
    sentenceCounts.fill(0)
    let mask = 0
    let expMask = 0
    for (let q = 0; q < nq; q++) {
      const id = localOf(e, q)
      if (id >= 0 && qw[q]! > 0) {
        mask |= 1 << q
        sentenceCounts[q] = entry.cart.postOff[id + 1]! - entry.cart.postOff[id]!
      }
      const gs = variantIds[q]!
      for (let i = 0; i < gs.length; i++)
        if (gs[i]! >= 0 && localId(entry.cart, gs[i]!) >= 0) {
          expMask |= 1 << q
          break
        }
    }
    // A section holding no question term and no variant of one has nothing to offer.
    if (mask === 0 && expMask === 0) continue
    let titleMask = 0
    for (let i = 0; i < entry.titleTerms.length; i++) {
      const q = termIndex.get(entry.titleTerms[i]!)
      if (q !== undefined) titleMask |= 1 << q
    }
    const secScore = sectionPrior(sentenceCounts, qw)
    const bound = scoreBound(
      mask,
      titleMask,
      expMask,
      secScore,
      qw,
      total,
      plan.pairs.length,
      entry.cart.weights,
    )
    candidates.push({ e, titleMask, secScore, bound })
  }
  candidates.sort((a, b) => b.bound - a.bound)
  for (const c of candidates) {
    if (opts.prune !== false && !top.accepts(c.bound)) break
    const entry = entries[c.e]!
    const local = Int32Array.from({ length: nq }, (_, q) => localOf(c.e, q))
    const vars = variantIds.map((gs) => {
      const ids: number[] = []
      for (let i = 0; i < gs.length; i++) {
        const v = gs[i]! < 0 ? -1 : localId(entry.cart, gs[i]!)
        if (v >= 0) ids.push(v)
      }
      return ids
    })
    searchOne(entry, local, vars, c, plan, qw, total, pairs, kind, top)
    if (opts.stats) opts.stats.searched++
  }
  return top.sorted()
}

/** A section worth searching for one question: its index in the entries, title terms and score bound. */
interface Candidate {
  e: number
  titleMask: number
  /** The section prior (exact: it depends only on how many sentences hold each term). */
  secScore: number
  bound: number
}

/** The global numbers of terms, -1 for a term no cartridge holds. */
function globalIds(terms: string[]): Int32Array {
  return Int32Array.from(terms, (t) => lookupTerm(t) ?? -1)
}

/** The terms of the cartridges starting with `prefix`, with their passage counts summed. */
function knownTerms<R>(entries: CartEntry<R>[], prefix: string): { term: string; doc: number }[] {
  const df = new Map<string, number>()
  for (const { cart } of entries)
    for (const id of initials(cart).get(prefix[0]!) ?? []) {
      const t = cart.vocab[id]!
      if (t.startsWith(prefix)) df.set(t, (df.get(t) ?? 0) + cart.passageDf[id]!)
    }
  return [...df].map(([term, doc]) => ({ term, doc }))
}

const initialIndex = new WeakMap<WarmCartridge, Map<string, number[]>>()
/** A cartridge's term ids by first character, built on the first misspelt question. */
function initials(cart: WarmCartridge): Map<string, number[]> {
  let m = initialIndex.get(cart)
  if (!m) {
    m = new Map()
    cart.vocab.forEach((t, id) => {
      const list = m!.get(t[0]!)
      if (list) list.push(id)
      else m!.set(t[0]!, [id])
    })
    initialIndex.set(cart, m)
  }
  return m
}

interface Scratch {
  hit: Uint16Array
  exp: Uint16Array
  pass: Uint16Array
  best: Float64Array
  score: Float64Array
  typed: Uint8Array
  qmap: Int8Array
  seq: Int8Array
  kseq: Uint8Array
}
// Per-cartridge work arrays, reused by every query (queries run one at a time on the event loop).
const scratches = new WeakMap<WarmCartridge, Scratch>()

function scratchOf(cart: WarmCartridge): Scratch {
  let s = scratches.get(cart)
  if (!s) {
    const nSents = cart.sents.length / 2
    let longest = 0
    for (let i = 0; i < nSents; i++) longest = Math.max(longest, cart.sentOff[i + 1]! - cart.sentOff[i]!)
    s = {
      hit: new Uint16Array(nSents),
      exp: new Uint16Array(nSents),
      pass: new Uint16Array(cart.passages.length / 2),
      best: new Float64Array(cart.passages.length / 2).fill(Number.NEGATIVE_INFINITY),
      score: new Float64Array(nSents),
      typed: new Uint8Array(nSents),
      qmap: new Int8Array(cart.vocab.length).fill(-1),
      seq: new Int8Array(longest),
      kseq: new Uint8Array(longest),
    }
    scratches.set(cart, s)
  }
  return s
}

function searchOne<R>(
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
  for (const s of touched) {
    const from = cart.sentOff[s]!
    const to = cart.sentOff[s + 1]!
    // Only a word that is no question term, in a sentence holding one, can offer the noun kind.
    const kindHere = x.hit[s] !== 0 ? kind : null
    for (let i = from; i < to; i++) {
      const t = cart.sentTerms[i]!
      const q = x.qmap[t]!
      x.seq[i - from] = q
      x.kseq[i - from] =
        q < 0 && kindHere?.has(cart.vocabSense[t]!) ? cart.sentKinds[i]! | TokenKind.noun : cart.sentKinds[i]!
    }
    const f = sequenceFeatures(x.seq, x.kseq, 0, to - from, plan.want, pairs, qw)
    const p = cart.passageOf[s]!
    const near = s > cart.passages[2 * p]! ? x.hit[s - 1]! : 0
    const { rank, pick } = sentenceScores(f, titleMask, x.pass[p]!, x.exp[s]!, qw, total, cart.weights, near)
    x.score[s] = pick
    x.typed[s] = f.pickTypeOk ? 1 : 0
    if (x.best[p] === Number.NEGATIVE_INFINITY) passages.push(p)
    if (rank > x.best[p]!) x.best[p] = rank
  }
  for (const p of passages) {
    const score = passageScore(x.best[p]!, x.pass[p]!, titleMask, qw) + secScore
    if (!top.accepts(score)) continue
    const first = cart.passages[2 * p]!
    const last = cart.passages[2 * p + 1]!
    const sentences: RankedSentence[] = []
    const tf = new Uint16Array(plan.terms.length)
    for (let s = first; s <= last; s++) {
      if (x.hit[s] === 0 && x.exp[s] === 0) continue
      // Term counts for withTermFrequency: only sentences holding a query term can add to them.
      if (x.hit[s] !== 0)
        for (let i = cart.sentOff[s]!; i < cart.sentOff[s + 1]!; i++) {
          const q = x.qmap[cart.sentTerms[i]!]!
          if (q >= 0) tf[q]!++
        }
      const [start, end] = [cart.sents[2 * s]!, cart.sents[2 * s + 1]!]
      sentences.push({ start, end, score: x.score[s]!, hit: x.hit[s]!, typeOk: x.typed[s] === 1 })
    }
    sentences.sort((a, b) => b.score - a.score)
    const [start, end] = [cart.sents[2 * first]!, cart.sents[2 * last + 1]!]
    const words = cart.sentOff[last + 1]! - cart.sentOff[first]!
    top.push({ ref, ordinal: p, text: cart.text, start, end, score, sentences, tf, words })
  }
  // Reset only what this query touched.
  for (const s of touched) x.hit[s] = x.exp[s] = 0
  for (const p of passages) {
    x.pass[p] = 0
    x.best[p] = Number.NEGATIVE_INFINITY
  }
  for (const id of ids) if (id >= 0) x.qmap[id] = -1
}
