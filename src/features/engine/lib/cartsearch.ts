import { type Reach, routeReach, scanReach } from './cartreach'
import { localId, type WarmCartridge } from './cartridge'
import { type CartRoute, routeDf, routeKnownTerms } from './cartroute'
import { type Candidate, type CartEntry, searchOne } from './cartscan'
import { kindTest } from './hypernyms'
import type { QueryPlan } from './query'
import { pairSet, type RankedPassage, scoreBound, sectionPrior, TopK, termWeights } from './rank'
import { idf } from './score'
import { respellPlan } from './spell'
import type { TermEvidence } from './support'
import { lookupTerm, termsStartingWith } from './terms'
import { variantsOf } from './variants'

export type { CartEntry } from './cartscan'

/**
 * The cart strategy's retrieval: scores the sentences that share a term with the question (or with
 * a learned expansion) in the cartridges it reaches (found through the base's route when given, else
 * by asking each), and returns the `limit` best passages. It reads only the warm cartridges, never
 * the index.
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
    /** The base's index over these entries (in this order): the sections a term reaches are looked up, not scanned. */
    route?: CartRoute
  } = {},
): RankedPassage<R>[] {
  if (input.terms.length === 0 || entries.length === 0) return []
  const route = opts.route
  // Base-wide idf from the cartridges' own passage counts; unknown terms get their closest spelling.
  let nPassages = route?.passages ?? 0
  if (!route) for (const { cart } of entries) nPassages += cart.passages.length / 2
  const dfOf = (gs: Int32Array) => (route ? routeDf(route, gs) : scanDf(entries, gs))
  const asked = dfOf(globalIds(input.terms))
  const { plan, df } =
    opts.respell === false
      ? { plan: input, df: asked }
      : respellPlan(input, asked, (prefix) =>
          route ? routeKnownTerms(route, prefix) : knownTerms(entries, prefix),
        )
  if (opts.evidence)
    Object.assign(opts.evidence, { terms: plan.terms, df, passages: nPassages, soft: plan.soft })
  const { qw, variantIds } = weighTerms(plan, nPassages, df, dfOf, opts.variants !== false)
  let total = 0
  for (const w of qw) total += w
  const gs = globalIds(plan.terms)
  const reach = route
    ? routeReach(route, entries.length, gs, qw, variantIds)
    : scanReach(entries, gs, qw, variantIds)
  const candidates = boundSections(entries, plan, qw, total, reach)
  const pairs = pairSet(plan)
  const kind = plan.kind.length ? kindTest(plan.kind) : null
  const top = new TopK<RankedPassage<R>>(limit)
  // A section whose marked sentences cannot beat the top list is not scored (pruning only: a search
  // without it is the exhaustive one the tests compare against).
  const gate =
    opts.prune === false
      ? undefined
      : {
          pairMasks: plan.pairs.map(([a, b]) => (1 << a) | (1 << b)),
          nPairs: pairs.size,
          typed: plan.want !== 0,
        }
  const nq = plan.terms.length
  // Sections are searched best bound first, and the search stops at the first bound the top list
  // would not take (exact: no section it skips could have entered it).
  for (const c of candidates) {
    if (opts.prune !== false && !top.accepts(c.bound)) break
    const entry = entries[c.e]!
    const local = reach.local.slice(c.e * nq, c.e * nq + nq)
    searchOne(entry, local, reach.variants(c.e), c, plan, qw, total, pairs, kind, top, gate)
    if (opts.stats) opts.stats.searched++
  }
  return top.sorted()
}

/** Terms' passage counts over the base, asking each cartridge. */
function scanDf<R>(entries: CartEntry<R>[], gs: Int32Array): number[] {
  const df = Array.from(gs, () => 0)
  for (const { cart } of entries)
    for (let q = 0; q < gs.length; q++) {
      const id = gs[q]! < 0 ? -1 : localId(cart, gs[q]!)
      if (id >= 0) df[q]! += cart.passageDf[id]!
    }
  return df
}

/** The question's term weights and, per term, the global numbers of its word-family variants. */
function weighTerms(
  plan: QueryPlan,
  nPassages: number,
  df: ArrayLike<number>,
  dfOf: (gs: Int32Array) => number[],
  withVariants: boolean,
): { qw: Float64Array; variantIds: Int32Array[] } {
  const qw = termWeights(plan, nPassages, df)
  const variants = withVariants
    ? variantsOf(plan.terms, termsStartingWith, (c) => c.map((t) => lookupTerm(t) !== undefined))
    : plan.terms.map(() => [])
  // A term the base lacks weighs as its rarest known variant would (its matches stay weak evidence).
  variants.forEach((vs, q) => {
    if (qw[q] !== 0 || vs.length === 0) return
    const vdf = dfOf(globalIds(vs)).filter((d) => d > 0)
    if (vdf.length) qw[q] = idf(nPassages, Math.min(...vdf))
  })
  return { qw, variantIds: variants.map((vs, q) => (qw[q] === 0 ? new Int32Array(0) : globalIds(vs))) }
}

/**
 * The sections worth searching, best bound first: each reached section gets an upper bound of the
 * score it could reach from which terms it holds.
 */
function boundSections<R>(
  entries: CartEntry<R>[],
  plan: QueryPlan,
  qw: Float64Array,
  total: number,
  reach: Reach,
): Candidate[] {
  const nq = plan.terms.length
  const termIndex = new Map(plan.terms.map((t, q) => [t, q]))
  const candidates: Candidate[] = []
  // A phrase pair counts only where both its terms occur (then as often as the question has pairs).
  const nPairs = pairSet(plan).size
  const pairMasks = plan.pairs.map(([a, b]) => (1 << a) | (1 << b))
  const typed = plan.want !== 0
  for (const e of reach.touched) {
    const entry = entries[e]!
    let titleMask = 0
    for (let i = 0; i < entry.titleTerms.length; i++) {
      const q = termIndex.get(entry.titleTerms[i]!)
      if (q !== undefined) titleMask |= 1 << q
    }
    const secScore = sectionPrior(reach.counts.subarray(e * nq, e * nq + nq), qw)
    const mask = reach.mask[e]!
    const paired = pairMasks.some((m) => (mask & m) === m)
    const bound = scoreBound(
      mask,
      titleMask,
      reach.expMask[e]!,
      secScore,
      qw,
      total,
      paired ? nPairs : 0,
      typed,
      shortestSentence(entry.cart),
      entry.cart.weights,
    )
    candidates.push({ e, titleMask, secScore, bound })
  }
  return candidates.sort((a, b) => b.bound - a.bound)
}

const shortest = new WeakMap<WarmCartridge, number>()
/** The content words of a cartridge's shortest sentence (the length the score bound assumes). */
function shortestSentence(cart: WarmCartridge): number {
  let n = shortest.get(cart)
  if (n === undefined) {
    n = Number.POSITIVE_INFINITY
    for (let s = 0; s + 1 < cart.sentOff.length; s++) n = Math.min(n, cart.sentOff[s + 1]! - cart.sentOff[s]!)
    n = Number.isFinite(n) ? n : 0
    shortest.set(cart, n)
  }
  return n
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
