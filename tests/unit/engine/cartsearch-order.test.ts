import { describe, expect, test } from 'bun:test'
import { seededRandom } from '../../../bench/lib/seeded'
import { BoundQueue, routeCartridges, searchCartridges } from '../../../src/features/engine/cart/index'
import { planQuery } from '../../../src/features/engine/rank/index'
import { articleQuestions, articleSections } from './fixture'

const ARTICLES = ['Nikola_Tesla.txt', 'Oxygen.txt', 'Warsaw.txt']
const questions = articleQuestions(ARTICLES, 5)

describe('the bound queue', () => {
  test('gives positions by bound, best first, equal bounds by section index, as a full sort would', () => {
    const next = seededRandom(7)
    for (let round = 0; round < 50; round++) {
      const n = Math.floor(next() * 200)
      // Few distinct bounds, so that ties are common; section indexes in no order.
      const bounds = Float64Array.from({ length: n }, () => Math.floor(next() * 8))
      const ids = Array.from({ length: n }, (_, i) => i).sort(() => next() - 0.5)
      const queue = new BoundQueue(ids, bounds)
      const popped: number[] = []
      for (let at = queue.pop(); at >= 0; at = queue.pop()) popped.push(at)
      const sorted = [...popped].sort((a, b) => bounds[b]! - bounds[a]! || ids[a]! - ids[b]!)
      expect(popped).toEqual(sorted)
      expect(new Set(popped).size).toBe(n)
      expect(queue.peek()).toBe(-1)
    }
  })
})

describe('cart searches one after another', () => {
  test('a search finds the same whatever was searched before it, on bases of other sizes', () => {
    // Sections of one paragraph and of eight: the work arrays the searches share grow and shrink in use.
    const small = articleSections(ARTICLES, 1, 1)
    const large = articleSections(ARTICLES, 1, 8)
    const bases = [small, large].map((entries) => ({
      entries,
      route: routeCartridges(entries.map((e) => e.cart)),
    }))
    const shape = (r: ReturnType<typeof searchCartridges<string>>) =>
      r.map((p) => ({
        ref: p.ref,
        ordinal: p.ordinal,
        score: p.score,
        sentences: p.sentences.map((s) => s.start),
      }))
    const ask = (b: number, q: string) =>
      shape(searchCartridges(bases[b]!.entries, planQuery(q), 10, { route: bases[b]!.route }))
    const forward = questions.map((q, i) => ask(i % 2, q))
    const interleaved = questions.map((q, i) => {
      // Another search of the other base, and of the same base with another question, in between.
      ask(1 - (i % 2), questions[(i + 1) % questions.length]!)
      ask(i % 2, questions[(i + 7) % questions.length]!)
      return ask(i % 2, q)
    })
    expect(questions.length).toBeGreaterThan(50)
    expect(interleaved).toEqual(forward)
    expect(forward.every((r) => r.length > 0)).toBe(true)
  })

  test('a search cut short by an error leaves the searches after it unchanged', () => {
    const entries = articleSections(ARTICLES, 1, 2)
    const route = routeCartridges(entries.map((e) => e.cart))
    const ask = (list: typeof entries, q: string) =>
      searchCartridges(list, planQuery(q), 10, { route }).map((p) => ({ ref: p.ref, score: p.score }))
    const before = questions.slice(0, 20).map((q) => ask(entries, q))
    // Every section's cartridge can be read once (for its bound), and the search of it then fails.
    const failing = entries.map((e) => {
      let reads = 0
      return {
        ...e,
        get cart() {
          if (++reads > 1) throw new Error('cartridge unreadable')
          return e.cart
        },
      }
    })
    expect(() => ask(failing, questions[0]!)).toThrow('cartridge unreadable')
    expect(questions.slice(0, 20).map((q) => ask(entries, q))).toEqual(before)
  })
})
