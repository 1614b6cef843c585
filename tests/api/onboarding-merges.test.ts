import { afterEach, describe, expect, test } from 'bun:test'
import type { TestApp } from '../helpers/app'
import { authApp, bearer } from './accounts.fixture'
import { getJson, uploadedBase } from './deferred.fixture'

// Issue 38: a run's groups commit their FTS5 segments without merging them (engine.merges.repo.ts); the
// base's deferred job merges them after, a bounded step at a time. Jobs are stepped by hand.

let t: TestApp
afterEach(() => t.close())

const get = (path: string, token: string) => getJson(t, path, token)

/** The base's own FTS5 table's automerge as FTS5 keeps it (null: never set, FTS5's default 4). */
function automerge(corpusId: string): number | null {
  const c = t.db.$client
  const { key } = c.query('SELECT key FROM engine_bases WHERE base_id = ?').get(corpusId) as { key: number }
  const row = c.query(`SELECT v FROM engine_fts_${key}_config WHERE k = 'automerge'`).get() as {
    v: number
  } | null
  return row?.v ?? null
}

describe("a run's index merges", () => {
  test('are held while the run writes and done by the deferred job, the answer the same', async () => {
    t = authApp({ env: { ENGRAM_JOB_WORKERS: '1' } })
    const { admin, query, corpusId } = await uploadedBase(t)
    const run = await (
      await t.request(`/v1/corpora/${corpusId}/train`, { method: 'POST', headers: bearer(admin.token) })
    ).json()
    // Only the run's batches: the deferred job it queues as it ends waits.
    for (let i = 0; i < 20 && (await get(`/v1/jobs/${run.id}`, admin.token)).status === 'running'; i++) {
      const jobs = await t.jobs.queue.repo.listBySubject(admin.workspaceId, corpusId)
      if (!jobs.some((j) => j.kind === 'train_batch' && j.status === 'pending')) break
      await t.jobs.scheduler.step()
      await t.jobs.scheduler.idle()
    }
    expect((await get(`/v1/jobs/${run.id}`, admin.token)).status).toBe('succeeded')
    expect(automerge(corpusId)).toBe(0)
    const ask = async () => {
      const res = await t.request(`/v1/corpora/${corpusId}/chat`, {
        method: 'POST',
        headers: bearer(query),
        json: { question: 'When did the 1973 oil crisis begin?', k: 2, strategy: 'rag' },
      })
      expect(res.status).toBe(200)
      const body = await res.json()
      return { answer: body.answer, sources: body.sources }
    }
    const held = await ask()
    expect(held.answer).toContain('October 1973')
    await t.jobs.scheduler.drain()
    const deferred = (await t.jobs.queue.repo.listBySubject(admin.workspaceId, corpusId)).filter(
      (j) => j.kind === 'train_deferred',
    )
    expect(deferred.length).toBeGreaterThan(0)
    expect(deferred.every((j) => j.status === 'succeeded')).toBe(true)
    expect(automerge(corpusId)).toBe(4)
    // Its cartridges and vectors built meanwhile move scores; what it cites and says stay.
    const merged = await ask()
    expect(merged.answer).toBe(held.answer)
    const docs = (a: typeof held) => a.sources.map((s: { document_id: string }) => s.document_id)
    expect(docs(merged)).toEqual(docs(held))
  })
})
