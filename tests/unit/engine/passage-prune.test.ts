import { describe, expect, test } from 'bun:test'
import { searchCartridges } from '../../../src/features/engine/cart/index'
import { planQuery } from '../../../src/features/engine/rank/index'
import { articleQuestions, articleSections } from './fixture'

// The cart search skips a section whose bound the top list would not take, and within a section it
// scores only the passages whose own bound the list would take. Both are exact: the result, every
// passage's sentences with their scores, and its term counts are the exhaustive search's.

const ARTICLES = ['Nikola_Tesla.txt', 'Oxygen.txt', 'Warsaw.txt', 'Black_Death.txt']

describe('cart search, passages skipped by their bound', () => {
  test('every limit gives the exhaustive search result to the bit', () => {
    const base = articleSections(ARTICLES, 3, 6)
    const questions = articleQuestions(ARTICLES, 4)
    expect(questions.length).toBeGreaterThan(100)
    const whole = (r: ReturnType<typeof searchCartridges<string>>) =>
      r.map((p) => ({
        ref: p.ref,
        ordinal: p.ordinal,
        score: p.score,
        start: p.start,
        end: p.end,
        words: p.words,
        tf: p.tf ? [...p.tf] : null,
        sentences: p.sentences,
      }))
    for (const limit of [1, 5, 20])
      for (const question of questions) {
        const pruned = searchCartridges(base, planQuery(question), limit)
        const full = searchCartridges(base, planQuery(question), limit, { prune: false })
        expect({ question, limit, r: whole(pruned) }).toEqual({ question, limit, r: whole(full) })
        // Asked again, the shared work arrays were left as found.
        expect(whole(searchCartridges(base, planQuery(question), limit))).toEqual(whole(pruned))
      }
  })

  test('a search kept to k passages gives the first k of the unlimited exhaustive one, ties in the order found', () => {
    const base = articleSections(ARTICLES, 2, 4)
    const questions = articleQuestions(ARTICLES, 3)
    const whole = (r: ReturnType<typeof searchCartridges<string>>) =>
      r.map((p) => ({
        ref: p.ref,
        ordinal: p.ordinal,
        score: p.score,
        tf: p.tf ? [...p.tf] : null,
        sentences: p.sentences,
      }))
    for (const question of questions) {
      const all = whole(searchCartridges(base, planQuery(question), 1_000_000, { prune: false }))
      for (const limit of [1, 3, 5, 20])
        expect(whole(searchCartridges(base, planQuery(question), limit))).toEqual(all.slice(0, limit))
    }
  })
})
