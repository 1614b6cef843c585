import { afterEach, describe, expect, test } from 'bun:test'
import type { TestApp } from '../helpers/app'
import { upload } from '../helpers/ready-base'
import { authApp, bearer, mintKey, rows, signUp } from './accounts.fixture'
import { getJson, uploadedBase } from './deferred.fixture'

// Issue 38: a run makes the base answerable by rag as soon as its text is indexed; its cartridges
// and built-in vectors follow in a `train_deferred` job. Jobs are stepped by hand (tick, idle), so
// that questions are asked between the run's end and the deferred build.

let t: TestApp
afterEach(() => t.close())

const get = (path: string, token: string) => getJson(t, path, token)
const uploaded = () => uploadedBase(t)

/** Starts a run and runs the jobs due until it has ended, leaving the deferred job queued, not run. */
async function runOnly(corpusId: string, token: string, force = false) {
  const run = await (
    await t.request(`/v1/corpora/${corpusId}/train${force ? '?force=true' : ''}`, {
      method: 'POST',
      headers: bearer(token),
    })
  ).json()
  for (let i = 0; i < 20; i++) {
    if ((await get(`/v1/jobs/${run.id}`, token)).status !== 'running') break
    // Only the run's batches: a deferred job queued by the first batch waits.
    const claimable = await t.jobs.queue.repo.listBySubject(
      (await t.jobs.queue.repo.get(run.id))!.workspaceId,
      corpusId,
    )
    if (!claimable.some((j) => j.kind === 'train_batch' && j.status === 'pending')) break
    await t.jobs.scheduler.step()
    await t.jobs.scheduler.idle()
  }
  return run
}

const deferred = async (corpusId: string, workspaceId: string) =>
  (await t.jobs.queue.repo.listBySubject(workspaceId, corpusId)).filter((j) => j.kind === 'train_deferred')

async function ask(corpusId: string, key: string, strategy?: 'cart' | 'rag') {
  const res = await t.request(`/v1/corpora/${corpusId}/chat`, {
    method: 'POST',
    headers: bearer(key),
    json: { question: 'When did the 1973 oil crisis begin?', k: 2, ...(strategy ? { strategy } : {}) },
  })
  expect(res.status).toBe(200)
  return res.json()
}

describe('onboarding in two parts', () => {
  test('the base answers by rag before its cartridges exist, says so, and answers by cart once they are built', async () => {
    t = authApp({ env: { ENGRAM_JOB_WORKERS: '1' } })
    const { admin, query, corpusId } = await uploaded()
    expect((await get(`/v1/corpora/${corpusId}`, admin.token)).cart_status).toBe('none')
    const run = await runOnly(corpusId, admin.token)
    expect((await get(`/v1/jobs/${run.id}`, admin.token)).status).toBe('succeeded')
    const base = await get(`/v1/corpora/${corpusId}`, admin.token)
    expect(base).toMatchObject({ status: 'ready', documents_ready: 3, cart_status: 'building' })
    // Text indexed, nothing compiled: no cartridge, no vector yet.
    expect(await rows(t, 'engine_passages')).toBeGreaterThan(0)
    expect(await rows(t, 'engine_sections', "cart_key LIKE 'pending:%'")).toBe(3)
    expect(await rows(t, 'engine_vectors')).toBe(0)
    expect((await deferred(corpusId, admin.workspaceId)).map((j) => j.status)).toEqual(['pending'])

    // Cart asked for (and by default): answered by rag, and the answer says so.
    for (const strategy of ['cart', undefined] as const) {
      const meanwhile = await ask(corpusId, query, strategy)
      expect(meanwhile.strategy).toBe('rag')
      expect(meanwhile.metrics.strategy).toBe('rag')
      expect(meanwhile.answer).toContain('October 1973')
    }
    const byRag = await ask(corpusId, query, 'rag')
    expect(byRag.strategy).toBe('rag')

    // The cartridges are loaded warm before the base says cart is ready: a client that waits for
    // `ready` does not wait for the loads on its first cart question.
    const engine = t.services.engine
    const warmBase = engine.warmBase.bind(engine)
    const seenWhenWarm: string[] = []
    engine.warmBase = async (id: string) => {
      await warmBase(id)
      seenWhenWarm.push((await get(`/v1/corpora/${id}`, admin.token)).cart_status)
    }
    await t.jobs.scheduler.drain()
    expect(seenWhenWarm).toEqual(['building'])
    expect((await get(`/v1/corpora/${corpusId}`, admin.token)).cart_status).toBe('ready')
    expect((await deferred(corpusId, admin.workspaceId)).every((j) => j.status === 'succeeded')).toBe(true)
    expect(await rows(t, 'engine_sections', "cart_key LIKE 'pending:%'")).toBe(0)
    // The built-in vectors came with the cartridges.
    expect(await rows(t, 'engine_vectors', "model = 'engram-static-1'")).toBe(
      await rows(t, 'engine_passages'),
    )
    const byCart = await ask(corpusId, query, 'cart')
    expect(byCart.strategy).toBe('cart')
    expect(byCart.metrics.strategy).toBe('cart')
    expect(byCart.answer).toContain('October 1973')
    // rag's answer is the same before and after the build.
    expect((await ask(corpusId, query, 'rag')).answer).toBe(byRag.answer)
    // The corpus listing carries the field too.
    const list = await get('/v1/corpora', admin.token)
    expect(list.items[0].cart_status).toBe('ready')
  })

  test('a forced run of unchanged text keeps the cartridges: cart stays ready, nothing is left to build', async () => {
    t = authApp({ env: { ENGRAM_JOB_WORKERS: '1' } })
    const { admin, query, corpusId } = await uploaded()
    await runOnly(corpusId, admin.token)
    await t.jobs.scheduler.drain()
    const keys = await rows(t, 'engine_sections', "cart_key NOT LIKE 'pending:%'")
    expect(keys).toBe(3)
    await runOnly(corpusId, admin.token, true)
    expect(await rows(t, 'engine_sections', "cart_key LIKE 'pending:%'")).toBe(0)
    expect((await get(`/v1/corpora/${corpusId}`, admin.token)).cart_status).toBe('ready')
    expect(await rows(t, 'engine_vectors', "model = 'engram-static-1'")).toBe(
      await rows(t, 'engine_passages'),
    )
    expect((await ask(corpusId, query, 'cart')).strategy).toBe('cart')
  })

  test('a deferred build whose worker died is resumed after its lease and finishes', async () => {
    t = authApp({ env: { ENGRAM_JOB_WORKERS: '1' } })
    const { admin, query, corpusId } = await uploaded()
    await runOnly(corpusId, admin.token)
    const claimed = await t.jobs.queue.leaseRepo.claim(['train_deferred'], 'crashed-process', 60_000, 10)
    expect(claimed).toHaveLength(1)
    await t.jobs.scheduler.drain()
    expect((await get(`/v1/corpora/${corpusId}`, admin.token)).cart_status).toBe('building')
    expect((await ask(corpusId, query, 'cart')).strategy).toBe('rag')
    t.clock.advance(61_000)
    await t.jobs.scheduler.drain()
    expect((await get(`/v1/corpora/${corpusId}`, admin.token)).cart_status).toBe('ready')
    expect((await ask(corpusId, query, 'cart')).strategy).toBe('cart')
  })

  test('at start-up a base whose build was lost (its job gone) gets a deferred job again', async () => {
    t = authApp({ env: { ENGRAM_JOB_WORKERS: '1' } })
    const { admin, corpusId } = await uploaded()
    await runOnly(corpusId, admin.token)
    // As if the process stopped before the job was recorded: the sections wait, no job does.
    await t.sql.run("DELETE FROM jobs WHERE kind = 'train_deferred'")
    expect(await t.services.onboarding.buildMissing()).toBe(1)
    expect(await t.services.onboarding.buildMissing()).toBe(0)
    await t.jobs.scheduler.drain()
    expect(await t.services.onboarding.buildMissing()).toBe(0)
    expect((await get(`/v1/corpora/${corpusId}`, admin.token)).cart_status).toBe('ready')
  })

  test('a canceled run leaves its indexed sections answering by rag, and their cartridges still get built', async () => {
    t = authApp({ env: { ENGRAM_JOB_WORKERS: '1' } })
    const admin = await signUp(t)
    const query = (await mintKey(t, admin.token, ['query'])).key
    const res = await t.request('/v1/corpora', {
      method: 'POST',
      headers: bearer(admin.token),
      json: { name: 'B' },
    })
    const corpusId = ((await res.json()) as { id: string }).id
    const FILLER = ' The archive keeps this note beside its neighbours for a later reading.'.repeat(240)
    const notes = Array.from({ length: 40 }, (_, i) => ({
      path: `notes/n${i}.txt`,
      text: `Note number ${i} says the code word is w${i}.${FILLER}`,
    }))
    await upload(t, admin.token, corpusId, notes)
    await t.jobs.scheduler.drain()
    const run = await (
      await t.request(`/v1/corpora/${corpusId}/train`, { method: 'POST', headers: bearer(admin.token) })
    ).json()
    await t.jobs.scheduler.step() // the first batch starts
    await t.jobs.scheduler.idle()
    expect(
      (await t.request(`/v1/corpora/${corpusId}/cancel`, { method: 'POST', headers: bearer(admin.token) }))
        .status,
    ).toBe(200)
    await t.jobs.scheduler.drain()
    expect((await get(`/v1/jobs/${run.id}`, admin.token)).status).toBe('canceled')
    const base = await get(`/v1/corpora/${corpusId}`, admin.token)
    expect(base.documents_ready).toBeGreaterThan(0)
    expect(base.documents_ready).toBeLessThan(40)
    expect(base.cart_status).toBe('ready')
    expect(await rows(t, 'engine_sections', "cart_key LIKE 'pending:%'")).toBe(0)
    expect(await rows(t, 'engine_sections')).toBe(base.documents_ready)
    const chat = await t.request(`/v1/corpora/${corpusId}/chat`, {
      method: 'POST',
      headers: bearer(query),
      json: { question: 'What code word does note number 3 give?', strategy: 'cart' },
    })
    expect((await chat.json()).strategy).toBe('cart')
  })
})
