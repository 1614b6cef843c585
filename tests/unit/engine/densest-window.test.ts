import { describe, expect, test } from 'bun:test'
import { seededRandom } from '../../../bench/lib/seeded'
import { sequenceFeatures, WINDOW } from '../../../src/features/engine/rank/index'

/** The densest window as first written: every WINDOW-word stretch weighed, the first heaviest kept. */
function referenceWindow(qidx: Int8Array, from: number, to: number, qw: Float64Array): number {
  let best = -1
  let bestMask = 0
  for (let end = from; end < to; end++) {
    let mask = 0
    for (let i = Math.max(from, end - WINDOW + 1); i <= end; i++) if (qidx[i]! >= 0) mask |= 1 << qidx[i]!
    let weight = 0
    for (let q = 0; q < 16; q++) if (mask & (1 << q)) weight += qw[q]!
    if (weight > best) [best, bestMask] = [weight, mask]
  }
  return bestMask
}

describe('the densest window of a long sentence', () => {
  test('is the first WINDOW-word stretch holding the most query weight, whatever the terms and weights', () => {
    const random = seededRandom(38)
    let checked = 0
    for (let round = 0; round < 3000; round++) {
      const terms = 1 + Math.floor(random() * 6)
      // Some terms weigh nothing (a term every passage has), as idf gives them.
      const qw = Float64Array.from({ length: terms }, () => (random() < 0.2 ? 0 : random() * 5))
      const len = WINDOW + 1 + Math.floor(random() * 40)
      // Sparse hits, as in most sentences of a pool: none, one term, or several.
      const density = [0, 0.02, 0.1, 0.3][round % 4]!
      const qidx = Int8Array.from({ length: len }, () =>
        random() < density ? Math.floor(random() * terms) : -1,
      )
      const kinds = new Uint8Array(len)
      const f = sequenceFeatures(qidx, kinds, 0, len, 0, new Set(), qw)
      expect(f.win).toBe(referenceWindow(qidx, 0, len, qw))
      checked++
    }
    expect(checked).toBe(3000)
  })

  test('a sentence without a question term has none; one with a single weighing term has it', () => {
    const qw = Float64Array.from([1.5, 0])
    const none = new Int8Array(30).fill(-1)
    expect(sequenceFeatures(none, new Uint8Array(30), 0, 30, 0, new Set(), qw).win).toBe(0)
    const one = new Int8Array(30).fill(-1)
    one[25] = 0
    expect(sequenceFeatures(one, new Uint8Array(30), 0, 30, 0, new Set(), qw).win).toBe(1)
    // A term that weighs nothing counts only where the first window already holds it.
    const free = new Int8Array(30).fill(-1)
    free[25] = 1
    expect(sequenceFeatures(free, new Uint8Array(30), 0, 30, 0, new Set(), qw).win).toBe(0)
    free[0] = 1
    expect(sequenceFeatures(free, new Uint8Array(30), 0, 30, 0, new Set(), qw).win).toBe(2)
  })
})
