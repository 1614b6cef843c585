import { heapStats } from 'bun:jsc'
import { describe, expect, test } from 'bun:test'
import {
  candidateSpans,
  FEATURES,
  shortAnswer,
  shortQuestion,
  shortWeights,
  spanFeatures,
  spanSentence,
  spanValues,
  spanWords,
} from '../../../src/features/engine/compose/index'

const QUESTION = 'Who founded the Bank of England in London in 1694?'
const SENTENCE =
  'The Bank of England, the central bank of London, was founded by William Paterson and Michael Godfrey in London in 1694, when the bank lent money to the government of England.'

/** A span's values from its own fresh reading of the sentence, as an array in FEATURES' order. */
function alone(question: string, sentence: string, i: number): number[] | null {
  const words = spanWords(sentence)
  const s = candidateSpans(words)[i]!
  const f = spanFeatures(words, s, shortQuestion(question), 1)
  return f === null ? null : FEATURES.map((name) => f[name])
}

describe('a span’s features without an object a span', () => {
  test('every span of a sentence scored in turn on one reading gets what it gets alone', () => {
    // The terms counted once (a mark a scan) must not carry over from one span to the next.
    const long = `${SENTENCE} ${'Later the bank of England moved from London to Threadneedle Street, near the old city, '.repeat(4)}in 1734.`
    for (const sentence of [SENTENCE, long]) {
      const words = spanWords(sentence)
      const spans = candidateSpans(words)
      const reading = spanSentence(words, shortQuestion(QUESTION))
      const f = new Float64Array(FEATURES.length)
      expect(spans.length).toBeGreaterThan(10)
      spans.forEach((s, i) => {
        const got = spanValues(reading, s, 1, f) ? [...f] : null
        expect(got).toEqual(alone(QUESTION, sentence, i))
      })
    }
  })

  test('a term repeated in the sentence counts once, by its nearest use', () => {
    const words = spanWords(SENTENCE)
    const at = candidateSpans(words).find(
      (s) => SENTENCE.slice(words[s.from]!.start, words[s.to - 1]!.end) === 'William Paterson',
    )!
    const f = spanFeatures(words, at, shortQuestion(QUESTION), 0)!
    // The question's terms: found, bank, england, london (1694 is a value, a term too): all in the sentence.
    const terms = shortQuestion(QUESTION).terms.size
    expect(f.found).toBe(Math.min(terms, 5) / terms)
    // "bank" (three uses) and "england" (two) each count once on the side the question puts them.
    expect(f.sideOk + f.sideBad).toBe(1)
  })

  test('scoring spans allocates no object a span', () => {
    const words = spanWords(SENTENCE)
    const spans = candidateSpans(words)
    const reading = spanSentence(words, shortQuestion(QUESTION))
    const f = new Float64Array(FEATURES.length)
    /** Cells made by `rounds` rounds of every span (heapStats' own objects included). */
    const made = (rounds: number) => {
      for (const s of spans) spanValues(reading, s, 0, f)
      Bun.gc(true)
      const before = heapStats().objectTypeCounts
      for (let r = 0; r < rounds; r++) for (const s of spans) spanValues(reading, s, 0, f)
      const after = heapStats().objectTypeCounts
      let n = 0
      for (const type of ['Object', 'Array', 'Map', 'Set', 'string', 'Uint8Array', 'Int32Array'])
        n += (after[type] ?? 0) - (before[type] ?? 0)
      return n
    }
    // 50 rounds of every span: an object, array or string a span would be a thousand at least.
    expect(made(50) - made(0)).toBeLessThan(50)
  })

  test('the short answer is the best-scored span, as the features weigh it', () => {
    const sentences = [SENTENCE, 'Paterson had proposed a bank to the government in 1691.']
    let best: string | null = null
    let top = Number.NEGATIVE_INFINITY
    sentences.forEach((text, rank) => {
      const words = spanWords(text)
      for (const s of candidateSpans(words)) {
        const f = spanFeatures(words, s, shortQuestion(QUESTION), rank)
        if (f === null) continue
        let score = 0
        for (const name of FEATURES) score += shortWeights[name] * f[name]
        if (score > top) [top, best] = [score, text.slice(words[s.from]!.start, words[s.to - 1]!.end)]
      }
    })
    expect(best).not.toBeNull()
    expect(shortAnswer(QUESTION, sentences)).toBe(best)
  })
})

describe('the punctuation between two words, read without a string', () => {
  /** broken and comma as they were read from the gap's text (a regular expression and trim). */
  function reference(text: string): [boolean, boolean][] {
    const words = spanWords(text)
    return words.map((w, i) => {
      const gap = i === 0 ? '' : text.slice(words[i - 1]!.end, w.start)
      return [i > 0 && /[^\s]/.test(gap), i > 0 && gap.trim() === ',']
    })
  }

  test('white space of every kind around a comma, two marks, a dash, a bracket', () => {
    for (const text of [
      'Paris , France and\u00a0,\u00a0Lyon',
      'one ,, two ; three',
      'war\u2003,\u2003famine\u3000and weather',
      'in 1914 — 1918 (the war) ended',
      'x\u200b,y',
      '$12 , 40% ,\tthen',
    ]) {
      const words = spanWords(text)
      expect(words.map((w) => [w.broken, w.comma])).toEqual(reference(text))
    }
    const words = spanWords('Paris\u00a0,\u2003France, Lyon ;Nice')
    expect(words.map((w) => w.comma)).toEqual([false, true, true, false])
    expect(words.map((w) => w.broken)).toEqual([false, true, true, true])
  })
})
