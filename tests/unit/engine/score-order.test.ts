import { describe, expect, test } from 'bun:test'
import { seededRandom } from '../../../bench/lib/seeded'
import {
  ascending,
  byScore,
  descending,
  type RankedPassage,
  withDocumentPrior,
} from '../../../src/features/engine/rank/index'

// The comparators answer -1, 0 or 1 where the sorts subtracted scores (an int32 for the JIT's
// inlined sort): a pure speed change, so every comparison, and every sort, must come out the same.

/** The sign a sort reads from a comparator's answer (NaN reads as 0, as Array.prototype.sort does). */
const sign = (x: number) => (x > 0 ? 1 : x < 0 ? -1 : 0)

/** Scores as the searches make them, with the values a difference handles specially. */
function scores(random: () => number): number[] {
  const special = [0, -0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.MIN_VALUE]
  const special2 = [-Number.MIN_VALUE, Number.MAX_VALUE, -Number.MAX_VALUE, 1e-300, 5e-324 * 3]
  const pool = [...special, ...special2]
  const n = 1 + Math.floor(random() * 40)
  return Array.from({ length: n }, () => {
    const r = random()
    if (r < 0.1) return pool[Math.floor(random() * pool.length)]!
    // Ties: a few integral scores, and scores shared between passages.
    if (r < 0.35) return Math.floor(random() * 5) - 2
    return (random() - 0.3) * 60
  })
}

describe('the score comparators', () => {
  test('answer the sign of the difference for every pair, NaN, zeros and infinities included', () => {
    const random = seededRandom(2438)
    let pairs = 0
    for (let round = 0; round < 2000; round++) {
      const xs = scores(random)
      for (const x of xs)
        for (const y of xs) {
          expect(descending(x, y)).toBe(sign(y - x))
          expect(ascending(x, y)).toBe(sign(x - y))
          pairs++
        }
    }
    expect(pairs).toBeGreaterThan(100_000)
  })

  test('sort passages, sentences and cart offers exactly as the subtractions did', () => {
    const random = seededRandom(3824)
    for (let round = 0; round < 3000; round++) {
      const items = scores(random).map((score, i) => ({ score, i }))
      // By score, best first, equal scores in the order given (rank.ts, ragsearch.ts, answer.ts).
      const before = items.toSorted((a, b) => b.score - a.score)
      const after = items.toSorted((a, b) => descending(a.score, b.score))
      expect(after.map((x) => x.i)).toEqual(before.map((x) => x.i))
      // The one comparator the searches share for passages and sentences (no closure a sort).
      expect(items.toSorted(byScore).map((x) => x.i)).toEqual(before.map((x) => x.i))
      // Cart's offers: indices by their scores, best first, ties by index (cartscan.ts).
      const s = items.map((x) => x.score)
      const keys = Array.from(s.keys())
      expect(keys.toSorted((a, b) => descending(s[a]!, s[b]!) || a - b)).toEqual(
        keys.toSorted((a, b) => s[b]! - s[a]! || a - b),
      )
      // FTS5's hits: rank ascending, ties by id (engine.topk.ts).
      const hits = items.map((x) => ({ rank: x.score, id: Math.floor(random() * 10), k: x.i }))
      expect(hits.toSorted((a, b) => ascending(a.rank, b.rank) || a.id - b.id).map((h) => h.k)).toEqual(
        hits.toSorted((a, b) => a.rank - b.rank || a.id - b.id).map((h) => h.k),
      )
    }
  })

  test("re-rank by the document's evidence exactly as the sum through `?? 0` and the subtraction did", () => {
    // withDocumentPrior as it was (rank.ts, DOC_W 1 and DOC_T 3).
    const reference = (ps: { ref: string; score: number }[], k: number) => {
      if (ps.length < 2) return ps.slice(0, k)
      const best = ps[0]!.score
      const mass = new Map<string, number>()
      for (const p of ps) mass.set(p.ref, (mass.get(p.ref) ?? 0) + Math.exp((p.score - best) / 3))
      for (const p of ps) p.score += Math.log(mass.get(p.ref)!)
      return ps.sort((a, b) => b.score - a.score).slice(0, k)
    }
    const random = seededRandom(3882)
    for (let round = 0; round < 2000; round++) {
      const pool = scores(random)
        .filter((x) => Number.isFinite(x) && Math.abs(x) < 1e6)
        .sort((a, b) => b - a)
        .map((score, i) => ({ ref: `doc${Math.floor(random() * 6)}`, score, i }))
      const k = 1 + Math.floor(random() * 20)
      const before = reference(
        pool.map((p) => ({ ...p })),
        k,
      )
      const after = withDocumentPrior(
        pool.map((p) => ({ ...p })) as unknown as RankedPassage<string>[],
        (r) => r,
        k,
      ) as unknown as typeof pool
      expect(after.map((p) => [p.i, p.score])).toEqual(
        before.map((p) => [(p as (typeof pool)[0]).i, p.score]),
      )
    }
  })
})
