import { describe, expect, test } from 'bun:test'
import { compareTimeId } from '../../src/platform/paging/paging'

describe('compareTimeId', () => {
  test('orders by time first, then by id in code-point order', () => {
    const rows = [
      { at: 2, id: 'b' },
      { at: 1, id: 'z' },
      { at: 2, id: 'B' },
      { at: 2, id: 'a' },
      { at: 1, id: 'y' },
    ]
    rows.sort((x, y) => compareTimeId(x.at, x.id, y.at, y.id))
    // 'B' (66) before 'a' (97) before 'b' (98): code points, not a case-folding collation.
    expect(rows.map((r) => `${r.at}${r.id}`)).toEqual(['1y', '1z', '2B', '2a', '2b'])
  })

  test('swapped arguments give newest first, and equal rows compare equal', () => {
    const rows = [
      { at: 1, id: 'a' },
      { at: 3, id: 'a' },
      { at: 3, id: 'b' },
    ]
    rows.sort((x, y) => compareTimeId(y.at, y.id, x.at, x.id))
    expect(rows.map((r) => `${r.at}${r.id}`)).toEqual(['3b', '3a', '1a'])
    expect(compareTimeId(5, 'x', 5, 'x')).toBe(0)
  })
})
