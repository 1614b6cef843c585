import { describe, expect, test } from 'bun:test'
import { TokenKind, tokenKind, wordKind } from '../../../src/features/engine/rank/index'
import { nextMark, scanWords, termSlot, type WordInfo } from '../../../src/features/engine/text/index'

/** The scanned words of a text with their offsets. */
function words(text: string): { w: WordInfo; at: number }[] {
  const out: { w: WordInfo; at: number }[] = []
  scanWords(text, 0, text.length, (w, at) => out.push({ w, at }))
  return out
}

describe('scanned words', () => {
  test('every word of a term shares the term slot, also after the tables are trimmed', () => {
    const [tesla, teslas] = words('Tesla teslas')
    expect(tesla!.w.slot).toBe(termSlot('tesla'))
    expect(teslas!.w.slot).toBe(tesla!.w.slot)
    // Fill the slot table past its bound; a new mark trims it, and words find their slots again.
    for (let i = 0; i < 200_001; i++) termSlot(`filler${i}`)
    const before = nextMark()
    expect(nextMark()).toBeGreaterThan(before)
    const [again] = words('Tesla')
    expect(again!.w.slot).toBe(termSlot('tesla'))
    expect(again!.w.slot).not.toBe(tesla!.w.slot)
  })

  test('a word kind is remembered per word, apart for the start of a sentence', () => {
    const text = 'Tesla met Edison in 1884. Tesla left.'
    for (const { w, at } of words(text)) {
      const first = at === 0 || text[at - 2] === '.'
      expect(wordKind(w, text, at, first)).toBe(tokenKind(text, at, w.norm, false, first))
      expect(wordKind(w, text, at, !first)).toBe(tokenKind(text, at, w.norm, false, !first))
    }
    const [tesla, , , , year] = words(text)
    expect(wordKind(tesla!.w, text, 0, false)).toBe(TokenKind.entity)
    expect(wordKind(tesla!.w, text, 0, true)).toBe(0)
    expect(wordKind(year!.w, text, year!.at, false)).toBe(TokenKind.number | TokenKind.date)
  })
})
