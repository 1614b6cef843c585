import { describe, expect, test } from 'bun:test'
import { newId, newSortableId, seededRandom } from '../../src/platform/crypto/random'

describe('sortable ids', () => {
  test("have newId's shape: the prefix and 20 base62 characters", () => {
    const random = seededRandom(7)
    const id = newSortableId(random, 'doc', Date.UTC(2026, 11, 2))
    expect(id).toMatch(/^doc_[0-9A-Za-z]{20}$/)
    expect(id.length).toBe(newId(random, 'doc').length)
  })

  test('sort as their times do, whatever their random part; one millisecond gives distinct ids', () => {
    const random = seededRandom(11)
    const times = [
      0,
      1,
      61,
      62,
      3_843,
      1_700_000_000_000,
      1_700_000_000_001,
      Date.UTC(2026, 11, 2),
      62 ** 8 - 1,
    ]
    const ids = times.map((t) => newSortableId(random, 'doc', t))
    expect([...ids].sort()).toEqual(ids)
    const same = Array.from({ length: 1_000 }, () => newSortableId(random, 'doc', 1_700_000_000_000))
    expect(new Set(same).size).toBe(1_000)
    expect(new Set(same.map((id) => id.slice(0, 12))).size).toBe(1)
    // Later than every one of them, earlier than every id a millisecond on.
    const next = newSortableId(random, 'doc', 1_700_000_000_001)
    expect(same.every((id) => id < next)).toBe(true)
  })

  test('are reproducible from the injected clock and randomness', () => {
    const a = newSortableId(seededRandom(3), 'doc', 1_234_567)
    expect(newSortableId(seededRandom(3), 'doc', 1_234_567)).toBe(a)
    expect(newSortableId(seededRandom(3), 'doc', 1_234_568)).not.toBe(a)
  })
})
