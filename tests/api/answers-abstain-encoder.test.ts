import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { NO_ANSWER } from '../../src/features/engine/engine.service'
import { SUPPORT_THRESHOLD } from '../../src/features/engine/support/index'
import type { TestApp } from '../helpers/app'
import { type ReadyBase, readyBase } from '../helpers/ready-base'
import { authApp, bearer } from './accounts.fixture'
import { TWO_POLICIES } from './texts.fixture'

const FILES = TWO_POLICIES
// Its words are all in the policies ("approves", "travel"), what it asks is not.
const FOREIGN = 'Who approves the travel budget?'
const OWN = 'How many days before departure do employees book flights?'

describe('the support check with the built-in encoder (the default, no model server)', () => {
  const bases = new Map<string, { t: TestApp; base: ReadyBase }>()
  beforeAll(async () => {
    for (const [name, env] of [
      ['default', {}],
      ['off', { ENGRAM_EMBED_ENCODER: 'false' }],
    ] as const) {
      const t = authApp({ env })
      bases.set(name, { t, base: await readyBase(t, FILES) })
    }
  })
  afterAll(() => {
    for (const { t } of bases.values()) t.close()
  })
  const ask = async (name: string, question: string, strategy: 'cart' | 'rag') => {
    const { t, base } = bases.get(name)!
    const res = await t.request(`/v1/corpora/${base.corpusId}/chat`, {
      method: 'POST',
      headers: bearer(base.keys.query),
      json: { question, strategy },
    })
    expect(res.status).toBe(200)
    return (await res.json()) as {
      answer: string
      answered: boolean
      used_docs: string[]
      sources: unknown[]
      metrics: { support: number }
    }
  }

  for (const strategy of ['cart', 'rag'] as const) {
    test(`${strategy}: a question that only shares the base's words is declined, its own questions still answered`, async () => {
      // Word-level only, the shared words are taken for an answer.
      const words = await ask('off', FOREIGN, strategy)
      expect(words.answered).toBe(true)
      const declined = await ask('default', FOREIGN, strategy)
      expect(declined).toMatchObject({ answered: false, answer: NO_ANSWER, used_docs: [] })
      expect(declined.metrics.support).toBeLessThan(SUPPORT_THRESHOLD)
      // The closest passages are still listed, for a client to show.
      expect(declined.sources.length).toBeGreaterThan(0)
      const own = await ask('default', OWN, strategy)
      expect(own.answered).toBe(true)
      expect(own.answer).toContain('14 days before departure')
    })
  }

  test('the encoder ran on its thread: no failure was logged', () => {
    const { t } = bases.get('default')!
    expect(t.log.lines.filter((l) => String(l.msg).includes('built-in encoder'))).toEqual([])
  })
})
