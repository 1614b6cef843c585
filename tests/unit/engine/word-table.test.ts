import { describe, expect, test } from 'bun:test'
import {
  FNV_OFFSET,
  FNV_PRIME,
  ftsTerms,
  scanWords,
  WordTable,
  wordEnd,
} from '../../../src/features/engine/text/index'

// The words a scan has seen, found by their characters (text/word-table.ts): every word once, its
// index for good until cleared, whatever the hashes or the table's growth.

/** FNV-1a over a word's UTF-16 units, as the scanner hashes it. */
function hashOf(word: string): number {
  let h = FNV_OFFSET
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), FNV_PRIME)
  return h
}

describe('the word table', () => {
  test('finds a word added, at any offset of any text, and nothing else', () => {
    const t = new WordTable()
    const text = 'the harbour of Kestrel'
    expect(t.find(text, 4, 11, hashOf('harbour'))).toBe(-1)
    const at = t.add(text, 4, 11, hashOf('harbour'))
    expect(at).toBe(0)
    expect(t.find('a harbour', 2, 9, hashOf('harbour'))).toBe(0)
    // The same hash with other characters, or other lengths, is not the word.
    expect(t.find('harbours', 0, 8, hashOf('harbour'))).toBe(-1)
    expect(t.find('harboul', 0, 7, hashOf('harbour'))).toBe(-1)
    expect(t.find('Kestrel', 0, 7, hashOf('Kestrel'))).toBe(-1)
    expect(t.size).toBe(1)
  })

  test('words whose hashes collide each keep their own index', () => {
    const t = new WordTable()
    // Forced collisions: three words under one hash, and one under the hash of the slot after.
    const a = t.add('alpha', 0, 5, 7)
    const b = t.add('beta', 0, 4, 7)
    const c = t.add('gamma', 0, 5, 7)
    const d = t.add('delta', 0, 5, 8)
    expect([a, b, c, d]).toEqual([0, 1, 2, 3])
    expect(t.find('gamma', 0, 5, 7)).toBe(2)
    expect(t.find('beta', 0, 4, 7)).toBe(1)
    expect(t.find('delta', 0, 5, 8)).toBe(3)
    expect(t.find('delta', 0, 5, 7)).toBe(-1)
  })

  test('keeps every word through its growth (slots, characters, indexes), and clear forgets them', () => {
    const t = new WordTable()
    const words = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}ünïcode${'x'.repeat(i % 40)}`)
    for (const [i, w] of words.entries()) expect(t.add(w, 0, w.length, hashOf(w))).toBe(i)
    for (const [i, w] of words.entries()) expect(t.find(w, 0, w.length, hashOf(w))).toBe(i)
    expect(t.size).toBe(words.length)
    t.clear()
    expect(t.size).toBe(0)
    expect(t.find(words[5]!, 0, words[5]!.length, hashOf(words[5]!))).toBe(-1)
    expect(t.add(words[5]!, 0, words[5]!.length, hashOf(words[5]!))).toBe(0)
  })

  test("holds a surrogate pair's units as the scanner hashes them", () => {
    const text = 'x 𝔘nicode y'
    const start = 2
    const end = wordEnd(text, start)
    const t = new WordTable()
    t.add(text, start, end, hashOf(text.slice(start, end)))
    expect(t.find(`${text.slice(start, end)}!`, 0, end - start, hashOf(text.slice(start, end)))).toBe(0)
  })
})

describe('scans through the table', () => {
  test("the FTS5 terms and the scanned words of a text are its words', in order, seen or not", () => {
    const text = "Tesla's 1,000 coils. The U.S. rules; tesla's coil, Gospić and Gospic: 3.5 km."
    const scanned: string[] = []
    scanWords(text, 0, text.length, (w, start, end) => scanned.push(`${w.raw}@${start}-${end}:${w.stop}`))
    const fts: string[] = []
    ftsTerms(text, 0, text.length, fts)
    // Again, every word now cached: the same.
    const again: string[] = []
    scanWords(text, 0, text.length, (w, start, end) => again.push(`${w.raw}@${start}-${end}:${w.stop}`))
    const fts2: string[] = []
    ftsTerms(text, 0, text.length, fts2)
    expect(again).toEqual(scanned)
    expect(fts2).toEqual(fts)
    expect(scanned[0]).toBe("Tesla's@0-7:false")
    expect(fts.join(' ')).toBe('tesla 1000 coil us rule tesla coil gospic gospic 35 km')
  })
})
