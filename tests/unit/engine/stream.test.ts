import { describe, expect, test } from 'bun:test'
import { answerPieces, streamAnswer } from '../../../src/features/engine/compose/index'

describe('the answer streamer', () => {
  test('pieces join back to exactly the answer, a few words each', async () => {
    const answer =
      'Carl Wilhelm Scheele discovered oxygen in Uppsala by 1773. [1] Priestley published in 1774. [2]'
    const pieces: string[] = []
    for await (const p of streamAnswer(answer, 3)) pieces.push(p)
    expect(pieces.join('')).toBe(answer)
    expect(pieces.length).toBeGreaterThan(3)
    for (const p of pieces)
      expect(
        p
          .trim()
          .split(/\s+/)
          .filter((w) => !/^\[\d+\]$/.test(w)).length,
      ).toBeLessThanOrEqual(3)
  })

  test('a citation travels with the word before it', () => {
    const pieces = [...answerPieces('one two three. [1] four', 3)]
    expect(pieces).toEqual(['one two three. [1]', ' four'])
  })
})
