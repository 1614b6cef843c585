import { describe, expect, test } from 'bun:test'
import { chunkSection, splitSentences } from '../../../src/features/engine/text/index'

const spans = (text: string) => splitSentences(text).map((s) => text.slice(s.start, s.end))

describe('sentence splitting', () => {
  test('splits at sentence ends but not after abbreviations, initials or decimals', () => {
    const text = 'J. R. R. Tolkien met Dr. Smith in the U.S. in 1950. Pi is about 3.14 here! Is it? Yes.'
    expect(spans(text)).toEqual([
      'J. R. R. Tolkien met Dr. Smith in the U.S. in 1950.',
      'Pi is about 3.14 here!',
      'Is it?',
      'Yes.',
    ])
  })

  test('a blank line always ends a sentence, and a heading line stands alone', () => {
    expect(spans('History\nThe city was founded early\n\nnext part without a period')).toEqual([
      'History',
      'The city was founded early',
      'next part without a period',
    ])
  })

  test('a run-on text without punctuation is cut into sentences of bounded length', () => {
    const text = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ')
    const out = splitSentences(text)
    expect(out.length).toBeGreaterThan(1)
    for (const s of out) expect(s.end - s.start).toBeLessThanOrEqual(600)
    expect(out.map((s) => text.slice(s.start, s.end)).join(' ')).toBe(text)
  })
})

describe('passage chunking', () => {
  const para = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => `${tag} sentence number ${i} has six words.`).join(' ')

  test('passages follow paragraphs and keep sentence offsets into the text', () => {
    const text = `${para(8, 'Alpha')}\n\n${para(8, 'Beta')}`
    const { sentences, passages } = chunkSection(text)
    expect(passages).toHaveLength(2)
    expect(text.slice(passages[0]!.start, passages[0]!.end)).toBe(para(8, 'Alpha'))
    expect(text.slice(passages[1]!.start, passages[1]!.end)).toBe(para(8, 'Beta'))
    expect(sentences).toHaveLength(16)
    for (const p of passages) {
      expect(sentences[p.first]!.start).toBe(p.start)
      expect(sentences[p.last]!.end).toBe(p.end)
    }
  })

  test('a short heading joins the paragraph after it', () => {
    const text = `Early life\n\n${para(8, 'Alpha')}`
    const { passages } = chunkSection(text)
    expect(passages).toHaveLength(1)
    expect(text.slice(passages[0]!.start, passages[0]!.end).startsWith('Early life')).toBe(true)
  })

  test('a long paragraph is cut at sentence ends into even parts under the limit', () => {
    const text = para(100, 'Gamma') // 600 words
    const { passages, sentences } = chunkSection(text, { maxWords: 250, minWords: 30 })
    expect(passages).toHaveLength(3)
    for (const p of passages) {
      const words = text.slice(p.start, p.end).split(' ').length
      expect(words).toBeGreaterThanOrEqual(180)
      expect(words).toBeLessThanOrEqual(250)
    }
    expect(passages.reduce((n, p) => n + p.last - p.first + 1, 0)).toBe(sentences.length)
  })
})
