import { describe, expect, test } from 'bun:test'
import { searchCartridges } from '../../../src/features/engine/cart/index'
import { planQuery } from '../../../src/features/engine/rank/index'
import { articleQuestions, articleSections } from './fixture'

const ARTICLES = ['Nikola_Tesla.txt', 'Oxygen.txt', 'Warsaw.txt']

const questions = articleQuestions(ARTICLES, 4)

describe('cart search pruning', () => {
  test('skipping sections by their score bound never changes the passages found or their scores', () => {
    const base = articleSections(ARTICLES, 3, 6)
    const shape = (r: ReturnType<typeof searchCartridges<string>>) =>
      r.map((p) => ({ ref: p.ref, ordinal: p.ordinal, score: p.score, first: p.sentences[0]?.start }))
    let searched = 0
    let candidates = 0
    for (const question of questions) {
      const pruned = { searched: 0 }
      const full = { searched: 0 }
      const a = searchCartridges(base, planQuery(question), 20, { stats: pruned })
      const b = searchCartridges(base, planQuery(question), 20, { prune: false, stats: full })
      expect(shape(a)).toEqual(shape(b))
      searched += pruned.searched
      candidates += full.searched
    }
    expect(questions.length).toBeGreaterThan(100)
    // The bound does skip sections even on a base this small (on large bases it skips most of them).
    expect(searched).toBeLessThan(candidates)
  })
})
