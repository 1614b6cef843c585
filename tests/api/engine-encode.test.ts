import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ENCODE_DELAY_MS, ENCODE_KIND } from '../../src/features/engine/engine.jobs'
import type { TestApp } from '../helpers/app'
import { type ReadyBase, readyBase } from '../helpers/ready-base'
import { authApp, bearer } from './accounts.fixture'
import { TWO_POLICIES } from './texts.fixture'

// Its words are all in the policies ("approves", "travel"), what it asks is not: the word-level
// check is unsure of it, and the built-in encoder declines it (answers-abstain-encoder.test.ts).
const FOREIGN = 'Who approves the travel budget?'

describe("the engine's encode job: passages encoded once after an onboarding run", () => {
  let t: TestApp
  let base: ReadyBase
  const count = (sql: string) => (t.db.$client.query(sql).get() as { n: number }).n
  const encodeJobs = async () =>
    (await t.jobs.queue.repo.listBySubject(base.workspaceId, base.corpusId)).filter(
      (j) => j.kind === ENCODE_KIND,
    )

  beforeAll(async () => {
    t = authApp()
    base = await readyBase(t, TWO_POLICIES)
    // The run's onboarding.finished reaches the engine's subscriber.
    await t.events.dispatcher.drain()
  })
  afterAll(() => t.close())

  test('the finished run queued one encode job, due a little later; the base answers meanwhile', async () => {
    const jobs = await encodeJobs()
    expect(jobs.map((j) => j.status)).toEqual(['pending'])
    expect(jobs[0]!.runAt).toBe(t.clock.now().getTime() + ENCODE_DELAY_MS)
    await t.jobs.scheduler.drain()
    expect((await encodeJobs())[0]!.status).toBe('pending')
    expect(count('SELECT count(*) AS n FROM engine_encodings')).toBe(0)
    // Not encoded yet: the passages are embedded with the question, and it is declined as before.
    const before = await ask()
    expect(before.answered).toBe(false)
    expect(t.services.engine.encodings.stats()).toMatchObject({ asked: 1, stored: 0 })
  })

  test('once due it encodes every passage; the question then reads them stored and decides the same', async () => {
    t.clock.advance(ENCODE_DELAY_MS)
    await t.jobs.scheduler.drain()
    expect((await encodeJobs()).map((j) => j.status)).toEqual(['succeeded'])
    const passages = count('SELECT count(*) AS n FROM engine_passages')
    expect(passages).toBeGreaterThan(0)
    expect(count('SELECT count(*) AS n FROM engine_encodings')).toBe(passages)
    const before = t.services.engine.encodings.stats()
    const after = await ask()
    expect(after.answered).toBe(false)
    const stats = t.services.engine.encodings.stats()
    // The passages come stored; the question's vector is kept from its first time: no pass at all.
    expect(stats.passes).toBe(before.passes)
    expect(stats.embedded).toBe(before.embedded)
    expect(stats.stored).toBeGreaterThan(0)
    expect(stats.timedOut).toBe(0)
  })

  async function ask() {
    const res = await t.request(`/v1/corpora/${base.corpusId}/chat`, {
      method: 'POST',
      headers: bearer(base.keys.query),
      json: { question: FOREIGN },
    })
    expect(res.status).toBe(200)
    return (await res.json()) as { answered: boolean }
  }
})
