import { describe, expect, test } from 'bun:test'
import { seededRandom } from '../../../bench/lib/seeded'
import { onlyAsked } from '../../../src/features/engine/compose/index'
import { contentTerms } from '../../../src/features/engine/text/index'

// A sentence that only restates the question (statement.ts): onlyAsked stops at the first content
// word the question lacks, and must say what the whole scan of `contentTerms` says, on any text.

const WORDS = (
  'the of and a to in is was what who when where which how why did does Denver Broncos won Super Bowl 50 ' +
  "1,000 3.14 U.S. don't Beyoncé's naïve café résumé co-operate e-mail Nikola Tesla's alternating current " +
  'patent patents patented patenting running runs ran 2016 February 7th Levi’s Stadium Santa Clara'
).split(' ')
const GLUE = [' ', ' ', ' ', ', ', '. ', '; ', ' - ', ' (', ') ', '\n', '"', ' [12] ', ':', '?', '…']

function text(r: () => number): string {
  const n = 1 + Math.floor(r() * 24)
  let s = ''
  for (let i = 0; i < n; i++)
    s += WORDS[Math.floor(r() * WORDS.length)]! + GLUE[Math.floor(r() * GLUE.length)]!
  return s
}

describe('onlyAsked', () => {
  test('says what contentTerms(...).every(asked.has) says, on 4,000 seeded texts and ranges', () => {
    const r = seededRandom(38)
    let restating = 0
    for (let k = 0; k < 4_000; k++) {
      const t = text(r)
      const from = r() < 0.3 ? Math.floor(r() * t.length) : 0
      const to = r() < 0.3 ? from + Math.floor(r() * (t.length - from + 1)) : t.length
      const terms = contentTerms(t, from, to)
      // Half the time the question holds every term of the range (the case that must read to the end).
      const asked = new Set(r() < 0.5 ? terms : terms.filter(() => r() < 0.7))
      if (r() < 0.3) asked.add('patent')
      const expected = terms.every((x) => asked.has(x))
      if (expected) restating++
      expect(onlyAsked(t, from, to, asked)).toBe(expected)
    }
    // Both answers are well represented.
    expect(restating).toBeGreaterThan(800)
    expect(restating).toBeLessThan(3_200)
  })

  test('a range without content words restates (nothing new), as an empty term list does', () => {
    expect(onlyAsked('the of and, a.', 0, 14, new Set())).toBe(true)
    expect(onlyAsked('Tesla patented it', 0, 17, new Set(['tesla']))).toBe(false)
    expect(onlyAsked('Tesla patented it', 0, 5, new Set(contentTerms('Tesla')))).toBe(true)
  })
})
