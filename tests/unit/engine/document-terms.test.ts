import { describe, expect, test } from 'bun:test'
import { type RankedPassage, withDocumentTerms } from '../../../src/features/engine/rank/index'

// A candidate passage `id` of document `doc`, with its query-term counts and content-word count.
const passage = (doc: string, id: string, score: number, tf: number[], words: number) =>
  ({
    ref: { doc, id },
    ordinal: 0,
    text: '',
    start: 0,
    end: 0,
    score,
    sentences: [],
    tf: Uint16Array.from(tf),
    words,
  }) as RankedPassage<{ doc: string; id: string }>

const docOf = (r: { doc: string }) => r.doc
const ids = (ranked: RankedPassage<{ doc: string; id: string }>[]) => ranked.map((p) => p.ref.id)

describe('withDocumentTerms', () => {
  test('a near-tie goes to the passage whose document holds the rarer term elsewhere too', () => {
    const ranked = withDocumentTerms(
      [
        passage('a', 'a1', 10.1, [1, 0], 40),
        passage('b', 'b1', 10, [1, 0], 40),
        passage('b', 'b2', 3, [0, 1], 40),
        passage('a', 'a2', 2, [1, 0], 40),
      ],
      docOf,
      [1, 4],
    )
    expect(ids(ranked).slice(0, 2)).toEqual(['b1', 'a1'])
  })

  test('every passage of a document gains the same evidence', () => {
    const ranked = withDocumentTerms(
      [
        passage('a', 'a1', 10, [2, 0], 40),
        passage('a', 'a2', 5, [0, 1], 40),
        passage('b', 'b1', 1, [0, 0], 40),
      ],
      docOf,
      [1, 1],
    )
    const gain = (id: string, before: number) => ranked.find((p) => p.ref.id === id)!.score - before
    expect(gain('a1', 10)).toBeCloseTo(gain('a2', 5), 9)
    expect(gain('a1', 10)).toBeGreaterThan(0)
    expect(gain('b1', 1)).toBe(0)
  })

  test('the same counts weigh less in a longer document', () => {
    const ranked = withDocumentTerms(
      [passage('long', 'l', 10, [0, 2], 400), passage('short', 's', 10, [0, 2], 40)],
      docOf,
      [1, 2],
    )
    expect(ids(ranked)).toEqual(['s', 'l'])
  })

  test('a term the base lacks (weight 0) adds nothing, and one candidate is left as it is', () => {
    const two = withDocumentTerms(
      [passage('a', 'a1', 2, [3], 40), passage('b', 'b1', 1, [0], 40)],
      docOf,
      [0],
    )
    expect(two.map((p) => p.score)).toEqual([2, 1])
    const one = withDocumentTerms([passage('a', 'a1', 2, [3], 40)], docOf, [5])
    expect(one.map((p) => p.score)).toEqual([2])
  })
})
