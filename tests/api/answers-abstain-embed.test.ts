import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { NO_ANSWER } from '../../src/features/engine/engine.service'
import { REFERENCE_TEXTS, SUPPORT_THRESHOLD } from '../../src/features/engine/support/index'
import type { TestApp } from '../helpers/app'
import { startEmbedStandin } from '../helpers/embed-standin'
import { type ReadyBase, readyBase } from '../helpers/ready-base'
import { referenceVector, vector } from '../helpers/reference-vectors'
import { authApp, bearer } from './accounts.fixture'
import { TWO_POLICIES } from './texts.fixture'

const FILES = TWO_POLICIES
// The policy holds most of the question's words without saying what it asks (hotels).
const QUESTION = 'How many days before departure do employees book hotels?'

describe('the support check with an embeddings server (ENGRAM_EMBED_URL)', () => {
  // Two servers' models: both place the reference texts as reference-vectors.ts does and the question
  // along axis 1; one puts every passage along axis 2 (far from the question), the other with the
  // question (near).
  const model = (near: boolean) => (t: string) =>
    referenceVector(t) ?? (t === QUESTION || near ? vector(0, 1) : vector(0, 0, 1))
  const far = startEmbedStandin(model(false))
  const near = startEmbedStandin(model(true))
  const apps: TestApp[] = []
  const bases = new Map<string, { t: TestApp; base: ReadyBase }>()
  beforeAll(async () => {
    for (const [name, env] of [
      ['plain', {}],
      ['far', { ENGRAM_EMBED_URL: far.url }],
      ['near', { ENGRAM_EMBED_URL: near.url }],
    ] as const) {
      const t = authApp({ env })
      apps.push(t)
      bases.set(name, { t, base: await readyBase(t, FILES) })
    }
  })
  afterAll(async () => {
    for (const t of apps) t.close()
    await far.stop()
    await near.stop()
  })
  const ask = async (name: string, strategy: 'cart' | 'rag') => {
    const { t, base } = bases.get(name)!
    const res = await t.request(`/v1/corpora/${base.corpusId}/chat`, {
      method: 'POST',
      headers: bearer(base.keys.query),
      json: { question: QUESTION, strategy },
    })
    expect(res.status).toBe(200)
    return (await res.json()) as { answer: string; answered: boolean; metrics: { support: number } }
  }

  for (const strategy of ['cart', 'rag'] as const) {
    test(`${strategy}: the model's meaning decides a passage that shares only some of the question's words`, async () => {
      // Without a server, the shared words are taken for an answer.
      expect(await ask('plain', strategy)).toMatchObject({ answered: true })
      // A model that puts the passage no nearer the question than sentences on no subject: declined.
      const declined = await ask('far', strategy)
      expect(declined).toMatchObject({ answered: false, answer: NO_ANSWER })
      expect(declined.metrics.support).toBeLessThan(SUPPORT_THRESHOLD)
      // A model that puts it near the question: answered, with its citation.
      const answered = await ask('near', strategy)
      expect(answered.answered).toBe(true)
      expect(answered.answer).toContain('14 days before departure')
      expect(answered.metrics.support).toBeGreaterThanOrEqual(SUPPORT_THRESHOLD)
    })
  }

  test('each server embeds the reference texts once, however many questions', () => {
    for (const server of [far, near]) {
      const asked = server.requests.filter((r) => r.input.includes(REFERENCE_TEXTS[0]!))
      expect(asked).toHaveLength(1)
    }
  })
})
