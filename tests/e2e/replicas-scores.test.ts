import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { signUpOn } from '../helpers/binary'
import { testPostgres } from '../helpers/postgres'
import { type Replicas, startReplicas, until } from '../helpers/replicas'
import { ask, baseWithFiles, call, ended, ok, squadFiles, squadQuestions, train } from './replicas.fixture'

// Issue 40: every replica gives the same sources and scores for a base of near-identical documents (the
// 24 squad-dev articles eight times, numbers shifted), onboarded through A with all three running jobs.
// Ties between copies are broken by a passage's id, so every replica must hold the passages in the
// writer's order (engine.snapshots.repo.ts) and index the writer's very tokens: before both, one replica's rag
// scores differed from the others' in the third decimal at the same generation, enough to swap copies.

const pg = await testPostgres()

describe.skipIf(!pg.available)('three replicas: the same scores on near-identical documents', () => {
  let set: Replicas
  let auth: { authorization: string }
  let id = ''
  beforeAll(async () => {
    if (!pg.available) return
    set = await startReplicas(pg, { env: { ENGRAM_RATE_LIMITS: 'off' } })
    auth = await signUpOn(set.url(0), 'scores@example.com', 'Scores')
    id = await baseWithFiles(set.url(0), auth, 'Copies', squadFiles(8))
    const run = await train(set.url(0), auth, id)
    expect((await ended(() => set.url(0), auth, run.id)).status).toBe('succeeded')
    await until(
      async () => (await ok(call(set.url(0), `/v1/corpora/${id}`, { auth }))).cart_status === 'ready',
      'the cartridges to be built',
      60_000,
    )
  }, 180_000)
  afterAll(async () => {
    await set?.stop()
  }, 60_000)

  test('every replica the same sources and scores, rag and cart', async () => {
    for (const q of squadQuestions(10)) {
      for (const strategy of ['rag', 'cart'] as const) {
        const r = await Promise.all([0, 1, 2].map((i) => ask(set.url(i), auth, id, q.question, strategy)))
        const [a, b, c] = r.map((x) => ({ answer: x.answer, sources: x.sources.map((s) => [s.id, s.score]) }))
        expect(b).toEqual(a!)
        expect(c).toEqual(a!)
      }
    }
  }, 120_000)
})
