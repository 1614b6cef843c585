import { describe, expect, test } from 'bun:test'
import {
  answerKind,
  KindTest,
  kindTest,
  prepareHypernyms,
  tokenize,
} from '../../../src/features/engine/text/index'

const SENSES = prepareHypernyms().upOff.length - 1

describe("the kind tests' memos", () => {
  test('two hundred kinds asked once each are all kept, not cleared at 64', () => {
    const kinds = Array.from({ length: 200 }, (_, i) => [1 + i * 37])
    const first = kinds.map((k) => kindTest(k))
    expect(kinds.map((k, i) => kindTest(k) === first[i])).toEqual(kinds.map(() => true))
  })

  test('a memo grows with the senses asked, never past a byte per WordNet sense', () => {
    const t = new KindTest(answerKind(tokenize('Who found the body?')))
    expect(t.bytes).toBeLessThan(1024)
    for (let s = 0; s < SENSES; s += 3) t.has(s)
    expect(t.bytes).toBeLessThanOrEqual(SENSES)
  })

  test('a test made before others asked more senses answers as a fresh one', () => {
    const kind = answerKind(tokenize('Which city hosted the games?'))
    const early = new KindTest(kind)
    const some = Array.from({ length: 50 }, (_, i) => i * 997)
    const before = some.map((s) => early.has(s))
    // Other kinds' tests give slots to thousands of senses the early one has never seen.
    const other = new KindTest(answerKind(tokenize('Who wrote it?')))
    for (let s = 0; s < SENSES; s += 13) other.has(s)
    const all = Array.from({ length: Math.floor(SENSES / 13) }, (_, i) => i * 13 + 5)
    const fresh = new KindTest(kind)
    expect(all.map((s) => early.has(s))).toEqual(all.map((s) => fresh.has(s)))
    expect(some.map((s) => early.has(s))).toEqual(before)
    expect(all.filter((s) => fresh.has(s)).length).toBeGreaterThan(10)
  })

  test('the memos are bounded: past four megabytes the least recently asked kinds go first', () => {
    const kinds = Array.from({ length: 400 }, (_, i) => [2 + i * 41])
    const made = kinds.map((k) => {
      const t = kindTest(k)
      for (let s = 0; s < SENSES; s += 4) t.has(s)
      return t
    })
    let kept = 0
    for (const t of made) kept += t.bytes
    expect(kept).toBeGreaterThan(6 << 20)
    expect(kindTest(kinds[399]!)).toBe(made[399]!)
    expect(kindTest(kinds[0]!)).not.toBe(made[0]!)
    const still = kinds.filter((k, i) => kindTest(k) === made[i]).length
    expect(still).toBeLessThan(400)
  })
})
