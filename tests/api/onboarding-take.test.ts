import { afterEach, describe, expect, test } from 'bun:test'
import { indexSection } from '../../src/features/engine/cart/index'
import type { TestApp } from '../helpers/app'
import { createCorpus, upload } from '../helpers/ready-base'
import { authApp, bearer, signUp } from './accounts.fixture'

// Issue 38: a run's batch plans its next groups while it writes one (their texts read, their chunking
// asked of the compile thread), and takes back a group the thread has not started when it is about
// to write it, chunking it on the event loop instead of waiting for the thread.

let t: TestApp
afterEach(() => t.close())

/** Notes of about 8.5 KB (sixteen to a group of 128 KB; 40 are one batch of three groups) or, `long`, 12 KB (32 are one batch of three groups). */
const FILLER = ' The archive keeps this note beside its neighbours for a later reading.'.repeat(120)
const LONG = FILLER.repeat(2).slice(0, 12_000)
const notes = (n: number, filler = FILLER) =>
  Array.from({ length: n }, (_, i) => ({
    path: `n${i}.txt`,
    text: `Note ${i} says the code word is w${i}.${filler}`,
  }))

async function train(n: number, filler = FILLER) {
  const admin = await signUp(t)
  const corpusId = await createCorpus(t, admin.token, 'B')
  await upload(t, admin.token, corpusId, notes(n, filler))
  await t.jobs.scheduler.drain()
  const run = await (
    await t.request(`/v1/corpora/${corpusId}/train`, { method: 'POST', headers: bearer(admin.token) })
  ).json()
  await t.jobs.scheduler.drain()
  const job = await (await t.request(`/v1/jobs/${run.id}`, { headers: bearer(admin.token) })).json()
  return { admin, corpusId, job }
}

describe("a run's groups", () => {
  test('a group no thread has started is taken back when the run is about to write it', async () => {
    t = authApp()
    const engine = t.services.engine
    let taken = 0
    // A thread that never gets to any group: the run would wait for it forever.
    engine.chunkSections = (texts: string[]) => {
      let chunk: () => void = () => {}
      const chunking = new Promise<ReturnType<typeof indexSection>[]>((resolve) => {
        chunk = () => resolve(texts.map((text) => indexSection(text)))
      }) as Promise<ReturnType<typeof indexSection>[]> & { take?: () => void }
      chunking.take = () => {
        taken++
        chunk()
      }
      return chunking
    }
    const { admin, corpusId, job } = await train(40)
    expect(job.status).toBe('succeeded')
    // 40 notes: one batch (under 512 KB) of three groups, 16, 16 and 8.
    expect(taken).toBe(3)
    const answer = await t.request(`/v1/corpora/${corpusId}/chat`, {
      method: 'POST',
      headers: bearer(admin.token),
      json: { question: 'What does note 37 say the code word is?', strategy: 'rag' },
    })
    expect(((await answer.json()) as { answer: string }).answer).toContain('w37')
  })

  test("a batch asks for its next two groups' chunking before it writes the first", async () => {
    t = authApp()
    const engine = t.services.engine
    const events: string[] = []
    const chunk = engine.chunkSections.bind(engine)
    // Every group's chunking is held until the third group's is asked for, so the order does not hang on
    // how fast texts are read (S3 in the PostgreSQL pass) against how fast a thread chunks: a batch that
    // waited on its first group before asking for the next two would never be given it (the test times out).
    let asked: () => void = () => {}
    const allAsked = new Promise<void>((resolve) => {
      asked = resolve
    })
    engine.chunkSections = (texts: string[]) => {
      events.push('chunk')
      if (events.length === 3) asked()
      const chunking = chunk(texts)
      return allAsked.then(() => chunking) as ReturnType<typeof chunk>
    }
    const index = engine.indexSections.bind(engine)
    engine.indexSections = (...a: Parameters<typeof index>) => {
      events.push('write')
      return index(...a)
    }
    const { job } = await train(32, LONG)
    expect(job.status).toBe('succeeded')
    expect(events).toEqual(['chunk', 'chunk', 'chunk', 'write', 'write', 'write'])
  })
  test('on a shared index a batch writes fewer, larger groups: each write there is also a publication', async () => {
    const groups = async (published: boolean) => {
      t = authApp()
      const engine = t.services.engine
      // What a shared index says (engine.service.ts); the groups' sizes follow from it alone.
      if (published) Object.defineProperty(engine, 'writesPublished', { get: () => true })
      const sizes: number[] = []
      const index = engine.indexSections.bind(engine)
      engine.indexSections = (...a: Parameters<typeof index>) => {
        sizes.push(a[0].length)
        return index(...a)
      }
      const { admin, corpusId, job } = await train(40)
      expect(job.status).toBe('succeeded')
      const answer = await t.request(`/v1/corpora/${corpusId}/chat`, {
        method: 'POST',
        headers: bearer(admin.token),
        json: { question: 'What does note 37 say the code word is?', strategy: 'rag' },
      })
      expect(((await answer.json()) as { answer: string }).answer).toContain('w37')
      return sizes
    }
    // 40 notes of 8.5 KB: one batch, in groups of 128 KB alone, in one group of up to a MB when published.
    expect(await groups(false)).toEqual([16, 16, 8])
    t.close()
    expect(await groups(true)).toEqual([40])
  })
})
