import { describe, expect, test } from 'bun:test'
import { batchesOf } from '../../src/features/onboarding/onboarding.jobs'

const units = (chars: number[]) => chars.map((c, i) => ({ id: `u${i}`, parentId: null, textChars: c }))
const sizes = (chars: number[], size = 16) => batchesOf(units(chars), size).map((b) => b.length)

describe('a run split into batches', () => {
  test('large units go `size` to a batch, the last one holding the rest', () => {
    expect(sizes(Array(40).fill(40_000))).toEqual([16, 16, 8])
  })

  test('small units share a batch up to 512 KB of text', () => {
    expect(sizes(Array(600).fill(2048))).toEqual([256, 256, 88])
  })

  test('a batch of tiny units holds at most 512 of them', () => {
    expect(sizes(Array(1200).fill(40))).toEqual([512, 512, 176])
  })

  test('every unit is in exactly one batch, in order', () => {
    const chars = Array.from({ length: 500 }, (_, i) => (i * 7919) % 30_000)
    const all = units(chars)
    expect(batchesOf(all, 16).flat()).toEqual(all)
  })
})
