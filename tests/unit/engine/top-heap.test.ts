import { heapStats } from 'bun:jsc'
import { describe, expect, test } from 'bun:test'
import { TopHeap } from '../../../src/features/engine/common/index'

/** A fixed sequence of pseudo-random integers below `n` (a linear congruential generator). */
function numbers(count: number, n: number, seed = 7): number[] {
  const out: number[] = []
  let x = seed
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31
    out.push(x % n)
  }
  return out
}

describe('the top list of (score, id) pairs', () => {
  test('keeps the best `limit` pairs, higher score first, then lower id, as a full sort does', () => {
    for (const limit of [0, 1, 2, 3, 7, 40, 500]) {
      // Few distinct scores, so ties are many and the id decides.
      const scores = numbers(1000, 25)
      const ids = numbers(1000, 100_000, 11)
      const heap = new TopHeap(limit)
      for (let i = 0; i < scores.length; i++) heap.offer(scores[i]! / 4, ids[i]!)
      const all = scores
        .map((s, i) => ({ id: ids[i]!, score: s / 4 }))
        .sort((a, b) => b.score - a.score || a.id - b.id)
        .slice(0, limit)
      expect(heap.sorted()).toEqual(all)
    }
  })

  test('offering makes no array a step', () => {
    const scores = numbers(20_000, 1_000_000, 3)
    /** Arrays made by offering `n` pairs to a list of 40 (heapStats' own aside, by the difference). */
    const made = (n: number) => {
      const heap = new TopHeap(40)
      Bun.gc(true)
      const before = heapStats().objectTypeCounts.Array ?? 0
      for (let i = 0; i < n; i++) heap.offer(scores[i]!, i)
      return (heapStats().objectTypeCounts.Array ?? 0) - before
    }
    made(20_000)
    // 20,000 offers, thousands of them sifting down five levels: an array a step would be tens of thousands.
    expect(made(20_000) - made(0)).toBeLessThan(100)
  })
})
