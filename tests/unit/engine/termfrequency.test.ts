import { describe, expect, test } from 'bun:test'
import { type RankedPassage, withTermFrequency } from '../../../src/features/engine/rank/index'

const passage = (id: string, score: number, tf?: number[], words?: number): RankedPassage<string> => ({
  ref: id,
  ordinal: 0,
  text: '',
  start: 0,
  end: 0,
  score,
  sentences: [],
  tf: tf ? Uint16Array.from(tf) : undefined,
  words,
})

describe('withTermFrequency', () => {
  test('a near-tie goes to the passage that keeps returning to the rarer query term', () => {
    const ranked = withTermFrequency(
      [passage('once', 10.1, [1, 1], 50), passage('often', 10, [1, 4], 50), passage('other', 9, [1, 0], 50)],
      2,
    )
    expect(ranked.map((p) => p.ref)).toEqual(['often', 'once', 'other'])
  })

  test('the same counts weigh less in a longer passage', () => {
    const ranked = withTermFrequency([passage('long', 10, [0, 2], 200), passage('short', 10, [0, 2], 20)], 2)
    expect(ranked.map((p) => p.ref)).toEqual(['short', 'long'])
    expect(ranked[0]!.score).toBeGreaterThan(ranked[1]!.score)
  })

  test('passages without counts keep their scores', () => {
    const ranked = withTermFrequency([passage('a', 5), passage('b', 4)], 2)
    expect(ranked.map((p) => p.score)).toEqual([5, 4])
  })
})
