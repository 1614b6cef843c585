import { describe, expect, test } from 'bun:test'
import { seededRandom } from '../../../bench/lib/seeded'
import {
  cosine,
  passageVector,
  passageVectorsHeld,
  supportQuestion,
  supportSignals,
} from '../../../src/features/engine/support/index'
import { prepareStaticVectors, staticVector } from '../../../src/features/engine/text/index'

prepareStaticVectors()

// The support check's passage vectors, kept by text: the same values as worked out afresh, within
// their budget.

const WORDS =
  'the school was founded in year river city oxygen electric current Warsaw Tesla born army war king ' +
  'church music water gold company people 1871 Harwell village club bus stops every grown since then'
const rand = seededRandom(23)
const vocab = WORDS.split(' ')
function text(n: number): string {
  return Array.from({ length: n }, () => vocab[Math.floor(rand() * vocab.length)]!).join(
    rand() < 0.5 ? ' ' : ', ',
  )
}

describe('passage vectors for the support check', () => {
  test('are the static vectors, bit for bit, asked once or again', () => {
    const texts = Array.from({ length: 200 }, () => `${text(2)}\n${text(5 + Math.floor(rand() * 60))}`)
    for (let round = 0; round < 2; round++)
      for (const t of texts) expect(Array.from(passageVector(t))).toEqual(Array.from(staticVector(t)))
    // Asked again, a text's vector is the one kept, not worked out again.
    expect(passageVector(texts[199]!)).toBe(passageVector(texts[199]!))
    const q = supportQuestion('In what year was the Harwell school founded?', {
      terms: ['year', 'harwel', 'school', 'found'],
      df: [80, 3, 40, 60],
      passages: 1000,
      soft: 0,
    })
    for (const t of texts.slice(0, 20)) {
      const [title, passage] = t.split('\n') as [string, string]
      expect(supportSignals(q, passage, title).meaning).toBe(cosine(q.vector, staticVector(t)))
    }
  })

  test('stay within their budget, the least recently asked out first', () => {
    const first = `${text(3)}\n${text(400)}`
    const v = passageVector(first)
    const { budget } = passageVectorsHeld()
    let asked = 0
    const last: string[] = []
    while (asked < (3 * budget) / 1000) {
      const t = `${text(3)}\n${text(200)} ${asked}`
      passageVector(t)
      last.push(t)
      asked++
    }
    const held = passageVectorsHeld()
    expect(held.bytes).toBeLessThanOrEqual(budget)
    expect(held.entries).toBeLessThan(asked)
    // The last asked is kept; the first, asked before thousands of others, was let go.
    const end = last[last.length - 1]!
    expect(passageVector(end)).toBe(passageVector(end))
    const again = passageVector(first)
    expect(again).not.toBe(v)
    expect(Array.from(again)).toEqual(Array.from(v))
  })
})
