import { describe, expect, test } from 'bun:test'
import { seededRandom } from '../../../bench/lib/seeded'
import { withoutEndMarks } from '../../../src/features/engine/compose/index'
import {
  defaultWeights,
  scored,
  scoreSentence,
  sentenceScores,
  sentenceScoresOf,
  sequenceFeatures,
} from '../../../src/features/engine/rank/index'

// Work a question skips because its result is known without it: the word kinds of a sentence with
// no question term (ragsearch.ts), the end-mark pattern on a sentence that cannot end in one
// (statement.ts), and a sentence's pick score when it is its rank score (score.ts). Each must give
// what the full work gives, to the bit.

describe('a sentence without a question term', () => {
  test('has no features but its length, whatever its words are and whatever the question wants', () => {
    const r = seededRandom(38)
    for (let k = 0; k < 2_000; k++) {
      const len = Math.floor(r() * 40)
      const qidx = new Int8Array(len).fill(-1)
      const kinds = Uint8Array.from({ length: len }, () => Math.floor(r() * 256))
      const want = Math.floor(r() * 256)
      const qw = Float64Array.from({ length: 1 + Math.floor(r() * 6) }, () => r())
      const pairs = new Set([1, 65, 130])
      expect(sequenceFeatures(qidx, kinds, 0, len, want, pairs, qw)).toEqual({
        hit: 0,
        win: 0,
        pairs: 0,
        typeOk: false,
        pickTypeOk: false,
        len,
      })
    }
  })
})

describe("a sentence's end marks", () => {
  const MARKS = /(?:\[[^\]\n]{1,40}\]|:\d+(?:[–-]\d+)?|\*\*|__)+$/u
  test('are taken off as the pattern takes them, on 5,000 seeded sentences', () => {
    const r = seededRandom(7)
    const PARTS = [
      'word',
      ' ',
      '.',
      '[7]',
      '[citation needed]',
      ':4–5',
      ':33',
      '**',
      '__',
      '?',
      ')',
      '"',
      '9',
      '\n',
      '_',
      '*',
      ']',
      '[',
      ':',
    ]
    for (let k = 0; k < 5_000; k++) {
      let s = ''
      const n = Math.floor(r() * 12)
      for (let i = 0; i < n; i++) s += PARTS[Math.floor(r() * PARTS.length)]!
      expect(withoutEndMarks(s)).toBe(s.replace(MARKS, ''))
    }
    expect(withoutEndMarks('It was built in 1901.[12]')).toBe('It was built in 1901.')
    expect(withoutEndMarks('**Install.**')).toBe('**Install.')
    expect(withoutEndMarks('')).toBe('')
  })
})

describe("a sentence's two scores", () => {
  test('are each what scoring its parts gives, when the pick reuses the rank and when it does not', () => {
    const r = seededRandom(23)
    let reused = 0
    for (let k = 0; k < 5_000; k++) {
      const terms = 1 + Math.floor(r() * 6)
      const all = (1 << terms) - 1
      const hit = Math.floor(r() * (all + 1))
      const win = hit & Math.floor(r() * (all + 1))
      const f = {
        hit,
        win,
        pairs: Math.floor(r() * 3),
        typeOk: r() < 0.5,
        pickTypeOk: r() < 0.5,
        len: 1 + Math.floor(r() * 40),
      }
      const title = r() < 0.5 ? 0 : Math.floor(r() * (all + 1))
      const pass = hit | Math.floor(r() * (all + 1))
      const exp = Math.floor(r() * (all + 1))
      const qw = Float64Array.from({ length: terms }, () => r() * 4)
      let total = 0
      for (const w of qw) total += w
      const ctx = pass | title
      const rank = scoreSentence({ ...f, ctx, exp }, qw, total, defaultWeights)
      const pick = scoreSentence(
        { ...f, hit: hit & ~title, win: win & ~title, typeOk: f.pickTypeOk, ctx, exp },
        qw,
        total,
        defaultWeights,
      )
      if (((hit | win) & title) === 0 && f.typeOk === f.pickTypeOk) reused++
      expect(sentenceScores(f, title, pass, exp, qw, total, defaultWeights)).toEqual({ rank, pick })
      // Rag's search scores a sentence from its features one by one, the scores left in `scored`:
      // the same two numbers, with the sentence before's terms (`near`) as well.
      const near = Math.floor(r() * (all + 1))
      const both = sentenceScores(f, title, pass, exp, qw, total, defaultWeights, near)
      const { hit: h, win: w, pairs, typeOk, pickTypeOk, len } = f
      sentenceScoresOf(
        h,
        w,
        pairs,
        typeOk,
        pickTypeOk,
        len,
        title,
        pass,
        exp,
        qw,
        total,
        defaultWeights,
        near,
      )
      expect(scored).toEqual(both)
    }
    expect(reused).toBeGreaterThan(500)
  })
})
