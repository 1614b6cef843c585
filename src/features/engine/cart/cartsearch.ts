import {
  idf,
  pairSet,
  type QueryPlan,
  type RankedPassage,
  respellPlan,
  scoreBound,
  sectionPrior,
  TopK,
  termWeights,
} from '../rank/index'
import type { TermEvidence } from '../support/index'
import { kindTest, variantsOf } from '../text/index'
import { BoundQueue } from './boundqueue'
import { type Reach, releaseReach, routeReach, scanReach } from './cartreach'
import { localId, type WarmCartridge } from './cartridge'
import { type CartRoute, routeDf, routeKnownTerms, shortestSentence } from './cartroute'
import { type CartEntry, searchOne } from './cartscan'
import { forgetScratch } from './cartscratch'
import { lookupTerm, termsStartingWith } from './terms'

export { type CartEntry, cartEntry } from './cartscan'

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
  const bounds = boundSections(entries, plan, gs, qw, total, reach, route)
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
  try {
    for (let at = bounds.queue.pop(); at >= 0; at = bounds.queue.pop()) {
      if (opts.prune !== false && !top.accepts(bounds.bound[at]!)) break
      const e = reach.touched[at]!
      const local = reach.local.subarray(e * nq, e * nq + nq)
      const c = { titleMask: bounds.titleMask[at]!, secScore: bounds.secScore[at]! }
      searchOne(entries[e]!, local, reach.variants(e), c, plan, qw, total, pairs, kind, top, gate)
      if (opts.stats) opts.stats.searched++
    }
  } catch (err) {
    // A search cut short leaves marks in the shared work arrays: the next one starts afresh.
    forgetScratch()
    throw err
  } finally {
    releaseReach(reach, nq)
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

/** The sections a question reached, each with what its bound needs, in a queue by bound (by position in `touched`). */
interface Bounds {
  queue: BoundQueue
  bound: Float64Array
  titleMask: Int32Array
  secScore: Float64Array
}

/**
 * The sections worth searching, best bound first: each reached section gets an upper bound of the
 * score it could reach from which terms it holds.
 */
function boundSections<R>(
  entries: CartEntry<R>[],
  plan: QueryPlan,
  gs: Int32Array,
  qw: Float64Array,
  total: number,
  reach: Reach,
  route: CartRoute | undefined,
): Bounds {
  const nq = plan.terms.length
  const n = reach.touched.length
  const out = {
    bound: new Float64Array(n),
    titleMask: new Int32Array(n),
    secScore: new Float64Array(n),
  }
  // A phrase pair counts only where both its terms occur (then as often as the question has pairs).
  const nPairs = pairSet(plan).size
  const pairMasks = plan.pairs.map(([a, b]) => (1 << a) | (1 << b))
  const typed = plan.want !== 0
  for (let at = 0; at < n; at++) {
    const e = reach.touched[at]!
    const entry = entries[e]!
    let titleMask = 0
    const title = entry.titleIds
    for (let i = 0; i < title.length; i++)
      for (let q = 0; q < nq; q++) if (gs[q] === title[i]) titleMask |= 1 << q
    const secScore = sectionPrior(reach.counts, qw, e * nq)
    const mask = reach.mask[e]!
    let paired = false
    for (const m of pairMasks) paired ||= (mask & m) === m
    out.bound[at] = scoreBound(
      mask,
      titleMask,
      reach.expMask[e]!,
      secScore,
      qw,
      total,
      paired ? nPairs : 0,
      typed,
      route ? route.shortest[e]! : shortestSentence(entry.cart),
      entry.cart.weights,
    )
    out.titleMask[at] = titleMask
    out.secScore[at] = secScore
  }
  return { ...out, queue: new BoundQueue(reach.touched, out.bound) }
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
