import { localId, type WarmCartridge } from './cartridge'
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
  const asked = termIds(entries, input.terms)
  const { plan, df } =
    opts.respell === false
      ? { plan: input, df: asked.df }
      : respellPlan(input, asked.df, (prefix) => knownTerms(entries, prefix))
  if (opts.evidence)
    Object.assign(opts.evidence, { terms: plan.terms, df, passages: nPassages, soft: plan.soft })
  const { qw, variantIds } = weighTerms(entries, plan, nPassages, df, opts.variants !== false)
  let total = 0
  for (const w of qw) total += w
  const planIds = globalIds(plan.terms)
  // A term respelling left as it was keeps the local ids looked up for the question.
  const localOf = (e: number, q: number) => {
    const g = planIds[q]!
    return g === asked.gs[q] ? asked.local[e * nq + q]! : g < 0 ? -1 : localId(entries[e]!.cart, g)
  }
  const candidates = boundSections(entries, plan, qw, total, variantIds, localOf)
  const pairs = pairSet(plan)
  const kind = plan.kind.length ? kindTest(plan.kind) : null
  const top = new TopK<RankedPassage<R>>(limit)
  // Sections are searched best bound first, and the search stops at the first bound the top list
  // would not take (exact: no section it skips could have entered it).
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

/**
 * Terms' global numbers, their local ids in each cartridge (entry-major) and their passage counts
 * over the base. Global numbers are resolved once per question, not once per cartridge (a string
 * hash each), and the local ids are kept so the search does not look them up again.
 */
function termIds<R>(entries: CartEntry<R>[], terms: string[]) {
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

/** The question's term weights and, per term, the global numbers of its word-family variants. */
function weighTerms<R>(
  entries: CartEntry<R>[],
  plan: QueryPlan,
  nPassages: number,
  df: ArrayLike<number>,
  withVariants: boolean,
): { qw: Float64Array; variantIds: Int32Array[] } {
  const qw = termWeights(plan, nPassages, df)
  const variants = withVariants
    ? variantsOf(plan.terms, termsStartingWith, (c) => c.map((t) => lookupTerm(t) !== undefined))
    : plan.terms.map(() => [])
  // A term the base lacks weighs as its rarest known variant would (its matches stay weak evidence).
  variants.forEach((vs, q) => {
    if (qw[q] !== 0 || vs.length === 0) return
    const vdf = termIds(entries, vs).df.filter((d) => d > 0)
    if (vdf.length) qw[q] = idf(nPassages, Math.min(...vdf))
  })
  return { qw, variantIds: variants.map((vs, q) => (qw[q] === 0 ? new Int32Array(0) : globalIds(vs))) }
}

/**
 * The sections worth searching, best bound first. Indexed loops throughout: this runs once per
 * cartridge of the base for every question. Each section gets an upper bound of the score it could
 * reach from which terms it holds (nothing is allocated per section).
 */
function boundSections<R>(
  entries: CartEntry<R>[],
  plan: QueryPlan,
  qw: Float64Array,
  total: number,
  variantIds: Int32Array[],
  localOf: (e: number, q: number) => number,
): Candidate[] {
  const nq = plan.terms.length
  const termIndex = new Map(plan.terms.map((t, q) => [t, q]))
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
  return candidates.sort((a, b) => b.bound - a.bound)
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
