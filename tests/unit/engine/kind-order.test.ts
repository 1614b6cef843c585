import { describe, expect, test } from 'bun:test'
import { migrations } from '../../../migrations/index'
import { Engine } from '../../../src/features/engine/engine.service'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { articleTexts, memoryStore, onboardDoc } from './fixture'

// Questions asking for a kind of answer (a language, a city, an element: the WordNet kind test) and
// questions asking for none: the search keeps a loop for each case (rag's rankPassage, cart's
// searchOne), so that the optimizing compiler's hoisted type check of the kind never changes. Each
// question's answer must not depend on which came before it.
const QUESTIONS = [
  'What language did Tesla speak at home?',
  'When was Tesla born?',
  'Which city is the capital of Poland?',
  'What is the atomic number of oxygen?',
  'Which country did Tesla move to in 1884?',
  'What element did Priestley discover?',
  'How many people live in Warsaw?',
  'Which river flows through Warsaw?',
  'Who discovered oxygen?',
  'What company did Tesla work for in Paris?',
  'What university did Tesla attend?',
  'Which scientist named oxygen?',
]

async function engine() {
  const db = openDatabase(':memory:')
  migrate(db, migrations)
  const e = new Engine({ db, store: memoryStore(), cacheBytes: 1 << 24, now: () => 0, encoder: null })
  for (const [i, text] of articleTexts.entries())
    await onboardDoc(e, 'cor_1', { id: `doc_${i}`, title: `Article ${i}`, filename: `a${i}.txt`, text })
  return e
}

/** A seeded shuffle (mulberry32). */
function shuffled<T>(xs: T[], seed: number): T[] {
  let a = seed
  const rand = () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const out = [...xs]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

describe('questions with and without a kind of answer, in any order', () => {
  for (const strategy of ['rag', 'cart'] as const)
    test(`${strategy}: each question's passages and answer are the same whichever came before`, async () => {
      const alone = new Map<string, unknown>()
      for (const q of QUESTIONS) {
        const { sources, answer, answered } = await (await engine()).ask('cor_1', { question: q, strategy })
        alone.set(q, { sources, answer, answered })
      }
      const e = await engine()
      for (let seed = 1; seed <= 20; seed++)
        for (const q of shuffled(QUESTIONS, seed)) {
          const { sources, answer, answered } = await e.ask('cor_1', { question: q, strategy })
          expect<unknown[]>([q, { sources, answer, answered }]).toEqual([q, alone.get(q)])
        }
    }, 60_000)
})
