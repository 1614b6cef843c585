import { describe, expect, test } from 'bun:test'
import { seededRandom } from '../../../bench/lib/seeded'
import { releaseReach, routeCartridges, routeReach, scanReach } from '../../../src/features/engine/cart/index'
import { articleSections } from './fixture'

// The route's reach (cartreach.ts) against the scan's, which asks every cartridge: the same sections,
// masks, local ids, counts and, per section and term, the same variant ids in the same order.

const ARTICLES = ['Nikola_Tesla.txt', 'Oxygen.txt', 'Warsaw.txt']

describe('a question’s reach through the route', () => {
  const base = articleSections(ARTICLES, 2, 1)
  const carts = base.map((e) => e.cart)
  const route = routeCartridges(carts)
  // Global ids of the base's terms, and a few no cartridge holds.
  const known = [...new Set(carts.flatMap((c) => [...c.gSorted]))]
  const rand = seededRandom(38)
  const pick = () => (rand() < 0.1 ? -1 : known[Math.floor(rand() * known.length)]!)
  // A term's variants drawn from one section's terms, so that sections often hold several of them.
  const pickFrom = (ids: Uint32Array) => (rand() < 0.1 ? -1 : ids[Math.floor(rand() * ids.length)]!)

  function snapshot(r: ReturnType<typeof scanReach>, nq: number) {
    return [...r.touched]
      .sort((a, b) => a - b)
      .map((e) => ({
        e,
        mask: r.mask[e],
        expMask: r.expMask[e],
        local: [...r.local.subarray(e * nq, e * nq + nq)],
        counts: [...r.counts.subarray(e * nq, e * nq + nq)],
        variants: r.variants(e),
      }))
  }

  test('gives the scan’s sections, terms and variants, in the order asked, question after question', () => {
    let withVariants = 0
    for (let n = 0; n < 300; n++) {
      const nq = 1 + Math.floor(rand() * 6)
      const gs = Int32Array.from({ length: nq }, pick)
      const qw = Float64Array.from({ length: nq }, () => (rand() < 0.15 ? 0 : 0.5 + rand()))
      const variantIds = Array.from({ length: nq }, () => {
        const from = carts[Math.floor(rand() * carts.length)]!.gSorted
        return Int32Array.from({ length: Math.floor(rand() * 5) }, () => pickFrom(from))
      })
      const routed = routeReach(route, base.length, gs, qw, variantIds)
      const a = snapshot(routed, nq)
      // Read twice: the lists do not depend on being read before.
      expect(snapshot(routed, nq)).toEqual(a)
      releaseReach(routed, nq)
      const scanned = scanReach(base, gs, qw, variantIds)
      const b = snapshot(scanned, nq)
      releaseReach(scanned, nq)
      expect(a).toEqual(b)
      withVariants += a.filter((s) => s.variants.some((v) => v.length > 1)).length
    }
    // The draws reach sections with more than one variant of a term, whose order is what is compared.
    expect(withVariants).toBeGreaterThan(50)
  })
})
