import type { WarmCartridge } from './cartridge'
import { termString } from './terms'

/**
 * A base's index over its cartridges: for each term (by global number) the sections holding it, the
 * term's local id in each, and its passage count over the base. The cart search reads it to visit
 * only the sections a question reaches and to weigh its terms, instead of asking every cartridge of
 * the base for every term (on a base of 5,000 small files that was most of a question's time).
 * Built once from a base's warm cartridges, in their order, and kept until the base changes.
 */
export interface CartRoute {
  /** The terms the base holds, by global number, sorted. */
  terms: Uint32Array
  /** CSR by term row: `off[r]..off[r+1]` indexes `entry` and `local`. */
  off: Uint32Array
  /** Index of the section in the base's entries, and the term's local id in its cartridge. */
  entry: Uint32Array
  local: Uint32Array
  /** How many of the section's sentences hold the term (at most 65,535). */
  count: Uint16Array
  /** Passages holding each term, summed over the base's cartridges. */
  df: Uint32Array
  /** Passages of the base. */
  passages: number
  /** Content words of each section's shortest sentence (the length the cart search's bound assumes). */
  shortest: Uint16Array
}

/** Builds the route of a base's cartridges, in the order the search is given them. */
export function routeCartridges(carts: WarmCartridge[]): CartRoute {
  let maxG = -1
  let pairs = 0
  let passages = 0
  for (const c of carts) {
    passages += c.passages.length / 2
    const n = c.gSorted.length
    pairs += n
    if (n > 0) maxG = Math.max(maxG, c.gSorted[n - 1]!)
  }
  // Counted densely by global number, then compacted to the terms present.
  const count = new Uint32Array(maxG + 1)
  for (const c of carts) for (let i = 0; i < c.gSorted.length; i++) count[c.gSorted[i]!]!++
  let nTerms = 0
  for (let g = 0; g <= maxG; g++) if (count[g]! > 0) nTerms++
  const terms = new Uint32Array(nTerms)
  const off = new Uint32Array(nTerms + 1)
  const rowOf = new Int32Array(maxG + 1)
  for (let g = 0, r = 0; g <= maxG; g++)
    if (count[g]! > 0) {
      terms[r] = g
      rowOf[g] = r
      off[r + 1] = off[r]! + count[g]!
      r++
    }
  const entry = new Uint32Array(pairs)
  const local = new Uint32Array(pairs)
  const sents = new Uint16Array(pairs)
  const df = new Uint32Array(nTerms)
  const fill = off.slice(0, nTerms)
  carts.forEach((c, e) => {
    for (let i = 0; i < c.gSorted.length; i++) {
      const r = rowOf[c.gSorted[i]!]!
      const at = fill[r]!++
      const id = c.gLocal[i]!
      entry[at] = e
      local[at] = id
      sents[at] = Math.min(65_535, c.postOff[id + 1]! - c.postOff[id]!)
      df[r]! += c.passageDf[id]!
    }
  })
  const shortest = Uint16Array.from(carts, (c) => Math.min(65_535, shortestSentence(c)))
  return { terms, off, entry, local, count: sents, df, passages, shortest }
}

/** The bytes a route holds. */
export function routeSize(route: CartRoute): number {
  const arrays = [route.terms, route.off, route.entry, route.local, route.count, route.df, route.shortest]
  return arrays.reduce((n, a) => n + a.byteLength, 0)
}

/** The content words of a cartridge's shortest sentence (0 for one without sentences). */
export function shortestSentence(cart: WarmCartridge): number {
  let n = Number.POSITIVE_INFINITY
  for (let s = 0; s + 1 < cart.sentOff.length; s++) n = Math.min(n, cart.sentOff[s + 1]! - cart.sentOff[s]!)
  return Number.isFinite(n) ? n : 0
}

/** The row of a global term number in the route, or -1 when no section of the base holds it. */
export function routeRow(route: CartRoute, g: number): number {
  if (g < 0) return -1
  let lo = 0
  let hi = route.terms.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const v = route.terms[mid]!
    if (v === g) return mid
    if (v < g) lo = mid + 1
    else hi = mid - 1
  }
  return -1
}

/** The passage counts of terms (by global number, -1 for unknown) over the base. */
export function routeDf(route: CartRoute, gs: ArrayLike<number>): number[] {
  return Array.from({ length: gs.length }, (_, q) => {
    const r = routeRow(route, gs[q]!)
    return r < 0 ? 0 : route.df[r]!
  })
}

const initialIndex = new WeakMap<CartRoute, Map<string, number[]>>()
/** The base's terms starting with `prefix` and their passage counts (for respelling an unknown word). */
export function routeKnownTerms(route: CartRoute, prefix: string): { term: string; doc: number }[] {
  let byInitial = initialIndex.get(route)
  if (!byInitial) {
    byInitial = new Map()
    for (let r = 0; r < route.terms.length; r++) {
      const first = termString(route.terms[r]!)[0]!
      const rows = byInitial.get(first)
      if (rows) rows.push(r)
      else byInitial.set(first, [r])
    }
    initialIndex.set(route, byInitial)
  }
  const out: { term: string; doc: number }[] = []
  for (const r of byInitial.get(prefix[0]!) ?? []) {
    const term = termString(route.terms[r]!)
    if (term.startsWith(prefix)) out.push({ term, doc: route.df[r]! })
  }
  return out
}
