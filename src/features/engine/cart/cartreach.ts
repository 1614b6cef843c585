import { localId } from './cartridge'
import { type CartRoute, routeRow } from './cartroute'
import type { CartEntry } from './cartscan'

// Which sections of a base one question reaches, found by asking every cartridge (a scan) or from
// the base's route (cartroute.ts); the cart search bounds and searches only these.

/**
 * Which sections a question reaches: for each, the terms it holds (`mask`), the terms it holds a
 * variant of (`expMask`), and per term (entry-major, `nq` a section) its local id, -1 when absent, and
 * how many of its sentences hold it. `touched` lists the sections reached, each once.
 */
export interface Reach {
  /** In no particular order: the search orders sections by bound, then by index. */
  touched: number[]
  mask: Int32Array
  expMask: Int32Array
  local: Int32Array
  counts: Uint16Array
  /** A section's local ids of each term's variants. */
  variants(e: number): number[][]
}

// The arrays of a reach, reused by every question (questions run one at a time on the event loop)
// and grown to the largest base asked. Outside the sections a question touched they hold their
// defaults (local -1, the rest 0); releaseReach restores those when the search is done.
let pool = {
  mask: new Int32Array(0),
  expMask: new Int32Array(0),
  local: new Int32Array(0),
  counts: new Uint16Array(0),
}

function emptyReach(nEntries: number, nq: number, variants: (e: number) => number[][]): Reach {
  if (pool.mask.length < nEntries || pool.local.length < nEntries * nq) {
    const n = Math.max(nEntries, pool.mask.length)
    const cells = Math.max(nEntries * nq, pool.local.length)
    pool = {
      mask: new Int32Array(n),
      expMask: new Int32Array(n),
      local: new Int32Array(cells).fill(-1),
      counts: new Uint16Array(cells),
    }
  }
  return { touched: [], ...pool, variants }
}

// Each section's first and last variant of a route reach, -1 outside the sections a question
// touched (pooled as the reach's arrays are).
let ends = { head: new Int32Array(0), tail: new Int32Array(0) }

function chainEnds(nEntries: number): { head: Int32Array; tail: Int32Array } {
  if (ends.head.length < nEntries)
    ends = { head: new Int32Array(nEntries).fill(-1), tail: new Int32Array(nEntries).fill(-1) }
  return ends
}

/** Gives a reach's arrays back, as the next question expects them. */
export function releaseReach(r: Reach, nq: number): void {
  for (const e of r.touched) {
    if (e < ends.head.length) ends.head[e] = ends.tail[e] = -1
    r.mask[e] = r.expMask[e] = 0
    r.local.fill(-1, e * nq, e * nq + nq)
    r.counts.fill(0, e * nq, e * nq + nq)
  }
}

/** The reach of a question by asking every cartridge for every term and variant (bases without a route). */
export function scanReach<R>(
  entries: CartEntry<R>[],
  gs: Int32Array,
  qw: Float64Array,
  variantIds: Int32Array[],
): Reach {
  const nq = gs.length
  const r = emptyReach(entries.length, nq, (e) =>
    variantIds.map((vs) => {
      const ids: number[] = []
      for (let i = 0; i < vs.length; i++) {
        const v = vs[i]! < 0 ? -1 : localId(entries[e]!.cart, vs[i]!)
        if (v >= 0) ids.push(v)
      }
      return ids
    }),
  )
  for (let e = 0; e < entries.length; e++) {
    const cart = entries[e]!.cart
    for (let q = 0; q < nq; q++) {
      const id = gs[q]! < 0 ? -1 : localId(cart, gs[q]!)
      if (id >= 0 && qw[q]! > 0) {
        r.local[e * nq + q] = id
        r.mask[e]! |= 1 << q
        r.counts[e * nq + q] = cart.postOff[id + 1]! - cart.postOff[id]!
      }
      const vs = variantIds[q]!
      for (let i = 0; i < vs.length; i++)
        if (vs[i]! >= 0 && localId(cart, vs[i]!) >= 0) {
          r.expMask[e]! |= 1 << q
          break
        }
    }
    if (r.mask[e] !== 0 || r.expMask[e] !== 0) r.touched.push(e)
  }
  return r
}

/** The reach of a question from the base's route: only the sections its terms and variants name. */
export function routeReach(
  route: CartRoute,
  nEntries: number,
  gs: Int32Array,
  qw: Float64Array,
  variantIds: Int32Array[],
): Reach {
  const nq = gs.length
  // Each section's variant ids as the route lists them: a chain per section through `next`, in the
  // order they were asked (head and tail per section, -1 where none; reset by releaseReach).
  const ends = chainEnds(nEntries)
  const next: number[] = []
  const varTerm: number[] = []
  const varLocal: number[] = []
  const r = emptyReach(nEntries, nq, (e) => {
    const out: number[][] = []
    for (let q = 0; q < nq; q++) out.push([])
    for (let at = ends.head[e]!; at >= 0; at = next[at]!) out[varTerm[at]!]!.push(varLocal[at]!)
    return out
  })
  const touch = (e: number) => {
    if (r.mask[e] === 0 && r.expMask[e] === 0) r.touched.push(e)
  }
  for (let q = 0; q < nq; q++) {
    const row = routeRow(route, gs[q]!)
    if (row >= 0 && qw[q]! > 0)
      for (let i = route.off[row]!; i < route.off[row + 1]!; i++) {
        const e = route.entry[i]!
        touch(e)
        r.local[e * nq + q] = route.local[i]!
        r.mask[e]! |= 1 << q
        r.counts[e * nq + q] = route.count[i]!
      }
    const vs = variantIds[q]!
    for (let v = 0; v < vs.length; v++) {
      const vrow = routeRow(route, vs[v]!)
      if (vrow < 0) continue
      for (let i = route.off[vrow]!; i < route.off[vrow + 1]!; i++) {
        const e = route.entry[i]!
        touch(e)
        r.expMask[e]! |= 1 << q
        const at = varTerm.push(q) - 1
        varLocal.push(route.local[i]!)
        next.push(-1)
        if (ends.head[e]! < 0) ends.head[e] = at
        else next[ends.tail[e]!] = at
        ends.tail[e] = at
      }
    }
  }
  return r
}
