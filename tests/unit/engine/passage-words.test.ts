import { describe, expect, test } from 'bun:test'
import {
  decodePassageWords,
  encodePassageWords,
  scanPassageWords,
  TermTags,
  TokenKind,
  termHash,
} from '../../../src/features/engine/rank/index'
import { contentTerms } from '../../../src/features/engine/text/index'

const TEXT = 'Tesla was born in 1856. In Smiljan, the village, he learned of the river.'
const SENTS = Uint32Array.from([0, 23, 24, TEXT.length])

describe('a passage stored words', () => {
  test('are its content words by sentence, with their terms, kinds and noun senses', () => {
    const w = scanPassageWords(TEXT, SENTS)
    expect([...w.off]).toEqual([0, 3, 3 + contentTerms(TEXT, 24).length])
    expect([...w.terms]).toEqual(contentTerms(TEXT).map(termHash))
    // "Tesla" opens its sentence (no entity); "Smiljan" does not; "1856" is a date and a number.
    expect(w.kinds[0]! & TokenKind.entity).toBe(0)
    expect(w.kinds[2]).toBe(TokenKind.date | TokenKind.number)
    expect(w.kinds[3]! & TokenKind.entity).toBe(TokenKind.entity)
    expect(w.senses[contentTerms(TEXT).indexOf('villag')]).toBeGreaterThanOrEqual(0)
  })

  test('read back as written, at any byte offset; another version or none reads as null', () => {
    const w = scanPassageWords(TEXT, SENTS)
    const blob = encodePassageWords(w)
    const shifted = new Uint8Array(blob.length + 1)
    shifted.set(blob, 1)
    for (const b of [blob, shifted.subarray(1)]) {
      const r = decodePassageWords(b)!
      expect([...r.off]).toEqual([...w.off])
      expect([...r.terms]).toEqual([...w.terms])
      expect([...r.senses]).toEqual([...w.senses])
      expect([...r.kinds]).toEqual([...w.kinds])
    }
    const other = blob.slice()
    other[0] = 99
    expect(decodePassageWords(other)).toBeNull()
    expect(decodePassageWords(null)).toBeNull()
  })
})

describe('term tags', () => {
  test('keep the first question term and the first term a variant belongs to, past growing', () => {
    const tags = new TermTags()
    const terms = Array.from({ length: 100 }, (_, i) => `term${i}`)
    for (const [i, t] of terms.entries()) tags.tag(t, i % 16, 0)
    tags.tag('term3', 5, 0)
    tags.tag('term3', 7, 8)
    tags.tag('term3', 9, 8)
    expect(tags.get(termHash('term3'))).toBe(4 | (8 << 8))
    expect(tags.get(termHash('term99'))).toBe((99 % 16) + 1)
    expect(tags.get(termHash('absent'))).toBe(0)
  })
})
