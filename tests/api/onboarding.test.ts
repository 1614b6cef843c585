import { afterEach, describe, expect, test } from 'bun:test'
import { createApp } from '../../src/app'
import { OnboardingJobs } from '../../src/features/onboarding/onboarding.jobs'
import { loadConfig } from '../../src/platform/config/config.load'
import type { TestApp } from '../helpers/app'
import { startEmbedStandin } from '../helpers/embed-standin'
import { type FixtureFile, readyBase, train, upload } from '../helpers/ready-base'
import { authApp, bearer, mintKey, rows, signUp } from './accounts.fixture'

let t: TestApp
afterEach(() => t.close())

const FILES: FixtureFile[] = [
  {
    path: 'oil.txt',
    text: 'The 1973 oil crisis began in October 1973 when OAPEC proclaimed an oil embargo.',
  },
  {
    path: 'plague.txt',
    text: 'The Black Death was a bubonic plague pandemic that peaked in Europe from 1347 to 1351.',
  },
]

/** Filler that makes a note large enough (17 KB) for runs to batch notes 32 at a time, as they do large files. */
const FILLER = ' The archive keeps this note beside its neighbours for a later reading.'.repeat(240)
const many = (n: number): FixtureFile[] =>
  Array.from({ length: n }, (_, i) => ({
    path: `notes/n${i}.txt`,
    text: `Note number ${i} says the code word is w${i}.${FILLER}`,
  }))

async function newBase(t: TestApp, token: string) {
  const res = await t.request('/v1/corpora', { method: 'POST', headers: bearer(token), json: { name: 'B' } })
  return ((await res.json()) as { id: string }).id
}

// biome-ignore lint/suspicious/noExplicitAny: the bodies of several routes, read field by field
const get = async (t: TestApp, token: string, path: string): Promise<any> =>
  (await t.request(path, { headers: bearer(token) })).json()

describe('onboarding runs', () => {
  test('a run onboards every document, then the base and documents are ready and the run succeeded', async () => {
    t = authApp()
    const admin = await signUp(t)
    const corpusId = await newBase(t, admin.token)
    await upload(t, admin.token, corpusId, FILES)
    await t.jobs.scheduler.drain()
    const started = await t.request(`/v1/corpora/${corpusId}/train`, {
      method: 'POST',
      headers: bearer(admin.token),
    })
    expect(started.status).toBe(200)
    const run = await started.json()
    expect(run).toMatchObject({
      corpus_id: corpusId,
      kind: 'train',
      status: 'running',
      parent_id: null,
      progress: 0,
    })
    expect((await get(t, admin.token, `/v1/corpora/${corpusId}`)).status).toBe('training')
    await t.jobs.scheduler.drain()
    const done = await get(t, admin.token, `/v1/jobs/${run.id}`)
    expect(done).toMatchObject({ status: 'succeeded', progress: 1, eta_seconds: 0, error: null })
    expect(done.finished_at).toBeString()
    const base = await get(t, admin.token, `/v1/corpora/${corpusId}`)
    expect(base).toMatchObject({
      status: 'ready',
      n_documents: 2,
      documents_ready: 2,
      documents_onboarding: 0,
    })
    const docs = (await get(t, admin.token, `/v1/corpora/${corpusId}/documents`)).items as {
      status: string
    }[]
    expect(docs.map((d) => d.status)).toEqual(['ready', 'ready'])
  })

  test('the jobs of a base list the run and its batches newest first, and a job shows its progress', async () => {
    t = authApp()
    const b = await readyBase(t, many(40))
    const list = (await (
      await t.request(`/corpora/${b.corpusId}/jobs`, { headers: bearer(b.adminToken) })
    ).json()) as {
      id: string
      kind: string
      parent_id: string | null
      status: string
      created_at: string
    }[]
    // The built-in word vectors (on by default) embed passages as they are indexed: no embed job.
    // The base's background work (its cartridges' build, its passages' encoding) is listed too.
    const runs = list.filter((j) => j.kind === 'train' || j.kind === 'train_batch')
    expect(runs.map((j) => j.kind).sort()).toEqual(['train', 'train_batch', 'train_batch'])
    expect(list.some((j) => j.kind === 'train_deferred')).toBe(true)
    expect(await rows(t, 'engine_vectors', "model = 'engram-static-1'")).toBe(
      await rows(t, 'engine_passages'),
    )
    expect(list.map((j) => j.created_at)).toEqual(
      list
        .map((j) => j.created_at)
        .sort()
        .reverse(),
    )
    const run = list.find((j) => j.kind === 'train')!
    const batches = list.filter((j) => j.kind === 'train_batch')
    expect(batches.every((j) => j.parent_id === run.id && j.status === 'succeeded')).toBe(true)
    const page = await t.request(`/v1/corpora/${b.corpusId}/jobs?limit=2`, { headers: bearer(b.adminToken) })
    const body = await page.json()
    expect(body.items.map((j: { id: string }) => j.id)).toEqual(list.slice(0, 2).map((j) => j.id))
    expect(page.headers.get('x-total-count')).toBe(String(list.length))
    const rest = await (
      await t.request(`/v1/corpora/${b.corpusId}/jobs?cursor=${body.next_cursor}`, {
        headers: bearer(b.adminToken),
      })
    ).json()
    expect(rest.items.map((j: { id: string }) => j.id)).toEqual(list.slice(2).map((j) => j.id))
  })

  test("a batch's groups let the event loop turn between them (a poll or a question waits one group, not a batch)", async () => {
    t = authApp()
    const admin = await signUp(t)
    const corpusId = await newBase(t, admin.token)
    // Twenty-four 17 KB notes: one batch (under 32 units and 512 KB of text), a group each 128 KB or so.
    await upload(t, admin.token, corpusId, many(24))
    const jobs = OnboardingJobs.prototype as unknown as { onboardGroup: (...a: unknown[]) => Promise<void> }
    const onboardGroup = jobs.onboardGroup
    let groups = 0
    // After each group a turn of the loop is asked for; it records how many groups had run when it came.
    const turns: number[] = []
    jobs.onboardGroup = async function (this: unknown, ...a: unknown[]) {
      await onboardGroup.apply(this, a)
      groups++
      setImmediate(() => turns.push(groups))
    }
    try {
      await train(t, admin.token, corpusId)
    } finally {
      jobs.onboardGroup = onboardGroup
    }
    expect(groups).toBeGreaterThanOrEqual(3)
    expect(turns).toEqual(Array.from({ length: groups }, (_, i) => i + 1))
    expect((await get(t, admin.token, `/v1/corpora/${corpusId}`)).documents_ready).toBe(24)
  })

  test('a base with no documents cannot be trained, and nothing is written', async () => {
    t = authApp()
    const admin = await signUp(t)
    const corpusId = await newBase(t, admin.token)
    const v1 = await t.request(`/v1/corpora/${corpusId}/train`, {
      method: 'POST',
      headers: bearer(admin.token),
    })
    expect(v1.status).toBe(409)
    expect((await v1.json()).error.code).toBe('corpus_empty')
    const frozen = await t.request(`/corpora/${corpusId}/train`, {
      method: 'POST',
      headers: bearer(admin.token),
    })
    expect(frozen.status).toBe(409)
    expect((await frozen.json()).detail).toContain('no documents')
    expect(await rows(t, 'jobs')).toBe(0)
  })

  test('a second run while one is in flight is refused', async () => {
    t = authApp()
    const admin = await signUp(t)
    const corpusId = await newBase(t, admin.token)
    await upload(t, admin.token, corpusId, FILES)
    await t.jobs.scheduler.drain()
    await t.request(`/v1/corpora/${corpusId}/train`, { method: 'POST', headers: bearer(admin.token) })
    const again = await t.request(`/v1/corpora/${corpusId}/train`, {
      method: 'POST',
      headers: bearer(admin.token),
    })
    expect(again.status).toBe(409)
    expect((await again.json()).error.code).toBe('training_in_progress')
    await t.jobs.scheduler.drain()
  })

  test('retraining after new uploads only touches the new documents; force redoes them all', async () => {
    t = authApp()
    const b = await readyBase(t, FILES)
    const none = await t.request(`/v1/corpora/${b.corpusId}/train`, {
      method: 'POST',
      headers: bearer(b.adminToken),
    })
    expect((await none.json()).error.code).toBe('nothing_to_train')
    const before = (await get(t, b.adminToken, `/v1/corpora/${b.corpusId}/documents`)).items as {
      id: string
      updated_at: string
    }[]
    t.clock.advance(60_000)
    await upload(t, b.adminToken, b.corpusId, [
      { path: 'new.txt', text: 'A brand new document about volcanoes.' },
    ])
    const run = await train(t, b.adminToken, b.corpusId)
    const after = (await get(t, b.adminToken, `/v1/jobs/${run.id}`)) as { detail: string }
    expect(after.detail).toStartWith('1 section(s) onboarded')
    const docs = (await get(t, b.adminToken, `/v1/corpora/${b.corpusId}/documents`)).items as {
      id: string
      updated_at: string
      status: string
    }[]
    for (const d of before) expect(docs.find((x) => x.id === d.id)?.updated_at).toBe(d.updated_at)
    expect(docs.every((d) => d.status === 'ready')).toBe(true)
    const forced = await train(t, b.adminToken, b.corpusId, true)
    expect(((await get(t, b.adminToken, `/v1/jobs/${forced.id}`)) as { detail: string }).detail).toStartWith(
      '3 section(s) onboarded',
    )
  })

  test('cancel stops the run between units and leaves the base and documents consistent', async () => {
    t = authApp({ env: { ENGRAM_JOB_WORKERS: '1' } })
    const admin = await signUp(t)
    const corpusId = await newBase(t, admin.token)
    await upload(t, admin.token, corpusId, many(40))
    await t.jobs.scheduler.drain()
    const run = await (
      await t.request(`/v1/corpora/${corpusId}/train`, { method: 'POST', headers: bearer(admin.token) })
    ).json()
    await t.jobs.scheduler.step() // the first batch starts
    const canceled = await t.request(`/v1/corpora/${corpusId}/cancel`, {
      method: 'POST',
      headers: bearer(admin.token),
    })
    expect(canceled.status).toBe(200)
    await t.jobs.scheduler.drain()
    const final = await get(t, admin.token, `/v1/jobs/${run.id}`)
    expect(final.status).toBe('canceled')
    const batches = (await get(t, admin.token, `/corpora/${corpusId}/jobs`)) as unknown as {
      kind: string
      status: string
    }[]
    expect(batches.filter((j) => j.kind === 'train_batch').every((j) => j.status === 'canceled')).toBe(true)
    const docs = (await get(t, admin.token, `/v1/corpora/${corpusId}/documents?limit=500`)).items as {
      status: string
    }[]
    expect(docs.some((d) => d.status === 'onboarding')).toBe(false)
    const ready = docs.filter((d) => d.status === 'ready').length
    expect(ready).toBeLessThan(40)
    expect(ready + docs.filter((d) => d.status === 'pending').length).toBe(40)
    const base = await get(t, admin.token, `/v1/corpora/${corpusId}`)
    expect(base.status).toBe(ready > 0 ? 'ready' : 'new')
    // What was left behind is picked up by the next run.
    await train(t, admin.token, corpusId)
    expect((await get(t, admin.token, `/v1/corpora/${corpusId}`)).documents_ready).toBe(40)
  })

  test('cancel with no run in flight is a 409', async () => {
    t = authApp()
    const b = await readyBase(t, FILES)
    const res = await t.request(`/v1/corpora/${b.corpusId}/cancel`, {
      method: 'POST',
      headers: bearer(b.adminToken),
    })
    expect(res.status).toBe(409)
    expect((await res.json()).error.code).toBe('no_training_in_progress')
  })

  test('a run whose worker died is resumed after its lease expires and finishes', async () => {
    t = authApp()
    const admin = await signUp(t)
    const corpusId = await newBase(t, admin.token)
    await upload(t, admin.token, corpusId, FILES)
    await t.jobs.scheduler.drain()
    const run = await (
      await t.request(`/v1/corpora/${corpusId}/train`, { method: 'POST', headers: bearer(admin.token) })
    ).json()
    // Another process claims the batch and dies without finishing it.
    const claimed = await t.jobs.queue.leaseRepo.claim(['train_batch'], 'crashed-process', 60_000, 10)
    expect(claimed).toHaveLength(1)
    await t.jobs.scheduler.drain()
    expect((await get(t, admin.token, `/v1/jobs/${run.id}`)).status).toBe('running')
    t.clock.advance(61_000)
    await t.jobs.scheduler.drain()
    expect((await get(t, admin.token, `/v1/jobs/${run.id}`)).status).toBe('succeeded')
    expect((await get(t, admin.token, `/v1/corpora/${corpusId}`)).documents_ready).toBe(2)
  })

  test('with an embeddings server down, a run still ends ready; its embed job retries until the server is back', async () => {
    const standin = startEmbedStandin((text) => [text.length, 1])
    try {
      t = authApp({ env: { ENGRAM_EMBED_URL: standin.url, ENGRAM_EMBED_TIMEOUT_MS: '1000' } })
      const admin = await signUp(t)
      const corpusId = await newBase(t, admin.token)
      await upload(t, admin.token, corpusId, FILES)
      standin.setMode('error500')
      const run = await train(t, admin.token, corpusId)
      expect((await get(t, admin.token, `/v1/jobs/${run.id}`)).status).toBe('succeeded')
      expect(await get(t, admin.token, `/v1/corpora/${corpusId}`)).toMatchObject({
        status: 'ready',
        documents_ready: 2,
      })
      // The base answers at once, lexically; the embedding waits for the server.
      const ask = async () => {
        const chat = await t.request(`/v1/corpora/${corpusId}/chat`, {
          method: 'POST',
          headers: bearer(admin.token),
          json: { question: 'When did the oil crisis begin?', strategy: 'rag' },
        })
        expect(chat.status).toBe(200)
        return ((await chat.json()) as { answer: string }).answer
      }
      expect(await ask()).toContain('October 1973')
      const jobs = (await get(t, admin.token, `/v1/corpora/${corpusId}/jobs`)).items as {
        id: string
        kind: string
        status: string
      }[]
      const embed = jobs.find((j) => j.kind === 'embed')!
      expect(embed).toMatchObject({ status: 'pending' })
      expect(jobs[0]!.id).toBe(embed.id)
      expect(await rows(t, 'engine_vectors')).toBe(0)
      standin.setMode('ok')
      t.clock.advance(10 * 60_000)
      await t.jobs.scheduler.drain()
      expect(await get(t, admin.token, `/v1/jobs/${embed.id}`)).toMatchObject({
        status: 'succeeded',
        progress: 1,
      })
      expect(await rows(t, 'engine_vectors', "model = 'default'")).toBe(await rows(t, 'engine_passages'))
      const sent = standin.requests.filter((r) => r.input.some((x) => x.includes('oil embargo')))
      expect(sent.at(-1)?.model).toBe('default')
      expect(await ask()).toContain('October 1973')
      // Each later run queues an embed job, but never a second one while one waits.
      standin.setMode('error500')
      for (const n of [1, 2]) {
        await upload(t, admin.token, corpusId, [{ path: `more${n}.txt`, text: `More text number ${n}.` }])
        await train(t, admin.token, corpusId)
      }
      expect(await rows(t, 'jobs', "kind = 'embed' AND status = 'pending'")).toBe(1)
      standin.setMode('ok')
      t.clock.advance(10 * 60_000)
      await t.jobs.scheduler.drain()
      expect(await rows(t, 'engine_vectors')).toBe(await rows(t, 'engine_passages'))
      expect(await rows(t, 'jobs', "kind = 'embed' AND status = 'succeeded'")).toBe(2)
    } finally {
      await standin.stop()
    }
  })

  test('bases embedded by the built-in vectors are embedded again at start-up, once, when a server is plugged in', async () => {
    const standin = startEmbedStandin((text) => [text.length, 1])
    try {
      t = authApp()
      const admin = await signUp(t)
      const corpusId = await newBase(t, admin.token)
      await upload(t, admin.token, corpusId, FILES)
      await train(t, admin.token, corpusId)
      await train(t, admin.token, corpusId, true)
      // Embedded as they were indexed, re-onboarding included, with no embed job.
      expect(await rows(t, 'jobs', "kind = 'embed'")).toBe(0)
      expect(await rows(t, 'engine_vectors', "model = 'engram-static-1'")).toBe(
        await rows(t, 'engine_passages'),
      )
      expect(await t.services.onboarding.embedMissing()).toBe(0)
      const env = { ENGRAM_DATA_DIR: t.dataDir, ENGRAM_RATE_LIMITS: 'off', ENGRAM_EMBED_URL: standin.url }
      const restarted = createApp({ ...t.deps, config: loadConfig({ env, readFile: () => null }) })
      expect(await restarted.services.onboarding.embedMissing()).toBe(1)
      expect(await restarted.services.onboarding.embedMissing()).toBe(0)
      await restarted.jobs.scheduler.drain()
      expect(await rows(t, 'engine_vectors', "model = 'default'")).toBe(await rows(t, 'engine_passages'))
      expect(await restarted.services.onboarding.embedMissing()).toBe(0)
    } finally {
      await standin.stop()
    }
  })

  test('a document whose text cannot be extracted fails on its own; the others are onboarded', async () => {
    t = authApp()
    const admin = await signUp(t)
    const corpusId = await newBase(t, admin.token)
    const form = new FormData()
    form.append('files', new File([FILES[0]!.text], 'oil.txt', { type: 'text/plain' }))
    form.append('files', new File([new Uint8Array(0)], 'empty.txt', { type: 'text/plain' }))
    await t.request(`/v1/corpora/${corpusId}/documents`, {
      method: 'POST',
      headers: bearer(admin.token),
      body: form,
    })
    await train(t, admin.token, corpusId)
    const docs = (await get(t, admin.token, `/v1/corpora/${corpusId}/documents`)).items as {
      filename: string
      status: string
      error: string | null
    }[]
    expect(docs.find((d) => d.filename === 'oil.txt')?.status).toBe('ready')
    const empty = docs.find((d) => d.filename === 'empty.txt')
    expect(empty?.status).toBe('failed')
    expect(empty?.error).toBeString()
    expect((await get(t, admin.token, `/v1/corpora/${corpusId}`)).status).toBe('ready')
  })

  test('training needs the ingest scope; jobs of another workspace are 404', async () => {
    t = authApp()
    const b = await readyBase(t, FILES)
    const res = await t.request(`/v1/corpora/${b.corpusId}/train?force=true`, {
      method: 'POST',
      headers: bearer(b.keys.query),
    })
    expect(res.status).toBe(403)
    expect((await res.json()).error.message).toBe('API key missing required scope: ingest')
    const run = (await get(t, b.adminToken, `/corpora/${b.corpusId}/jobs`)) as unknown as { id: string }[]
    const other = await signUp(t)
    const otherKey = (await mintKey(t, other.token, ['admin', 'ingest', 'query'])).key
    for (const path of [`/v1/jobs/${run[0]!.id}`, `/jobs/${run[0]!.id}`, `/v1/corpora/${b.corpusId}/jobs`]) {
      expect((await t.request(path, { headers: bearer(otherKey) })).status).toBe(404)
    }
    for (const path of [`/v1/corpora/${b.corpusId}/train`, `/v1/corpora/${b.corpusId}/cancel`]) {
      expect((await t.request(path, { method: 'POST', headers: bearer(other.token) })).status).toBe(404)
    }
    expect((await t.request(`/v1/jobs/${run[0]!.id}`)).status).toBe(401)
  })
})
