import { describe, expect, test } from 'bun:test'
import {
  lookupTerm,
  routeCartridges,
  routeDf,
  routeKnownTerms,
  routeRow,
  searchCartridges,
} from '../../../src/features/engine/cart/index'
import { planQuery } from '../../../src/features/engine/rank/index'
import type { TermEvidence } from '../../../src/features/engine/support/index'
import { articleQuestions, articleSections } from './fixture'

const ARTICLES = ['Nikola_Tesla.txt', 'Oxygen.txt', 'Warsaw.txt']

const questions = articleQuestions(ARTICLES, 3)

describe('the route over a base’s cartridges', () => {
  const base = articleSections(ARTICLES, 2, 1)
  const route = routeCartridges(base.map((e) => e.cart))

  test('lists, for a term, exactly the sections holding it, with its local id and passage count', () => {
    for (const term of ['tesla', 'oxygen', 'warsaw', 'current', 'river']) {
      const g = lookupTerm(term)!
      const row = routeRow(route, g)
      expect(row).toBeGreaterThanOrEqual(0)
      const listed = new Map<number, number>()
      for (let i = route.off[row]!; i < route.off[row + 1]!; i++) listed.set(route.entry[i]!, route.local[i]!)
      let df = 0
      base.forEach(({ cart }, e) => {
        const id = cart.vocab.indexOf(term)
        expect(listed.get(e) ?? -1).toBe(id)
        if (id >= 0) df += cart.passageDf[id]!
      })
      expect(routeDf(route, [g])).toEqual([df])
    }
    expect(routeRow(route, -1)).toBe(-1)
    expect(routeDf(route, [-1])).toEqual([0])
    expect(routeKnownTerms(route, 'oxyg').map((t) => t.term)).toContain('oxygen')
  })

  test('a search through the route finds the same passages, scores and evidence as one asking every cartridge', () => {
    const shape = (r: ReturnType<typeof searchCartridges<string>>) =>
      r.map((p) => ({ ref: p.ref, ordinal: p.ordinal, score: p.score, sentences: p.sentences }))
    let searched = 0
    // A misspelt question goes through the respelling of unknown words too.
    for (const question of [...questions, 'Where was Teslla born?']) {
      const stats = { searched: 0 }
      const routed: TermEvidence = { terms: [], df: [], passages: 0, soft: 0 }
      const scanned: TermEvidence = { terms: [], df: [], passages: 0, soft: 0 }
      const a = searchCartridges(base, planQuery(question), 20, { route, evidence: routed, stats })
      const b = searchCartridges(base, planQuery(question), 20, { evidence: scanned })
      expect(shape(a)).toEqual(shape(b))
      expect(routed).toEqual(scanned)
      searched += stats.searched
    }
    expect(questions.length).toBeGreaterThan(150)
    // Most sections are never searched: the bound stops the search long before.
    expect(searched / questions.length).toBeLessThan(base.length / 4)
  })
})
