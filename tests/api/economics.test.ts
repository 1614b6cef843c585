import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { TestApp } from '../helpers/app'
import { type ReadyBase, readyBase, train, upload } from '../helpers/ready-base'
import { authApp, bearer, mintKey, signUp } from './accounts.fixture'
import { FILES, GB, near } from './compare.fixture'

const CPU_USD = 0.001
const MEM_USD = 2

let t: TestApp
let b: ReadyBase
beforeAll(async () => {
  t = authApp({
    env: { ENGRAM_RATE_CPU_SECOND_USD: String(CPU_USD), ENGRAM_RATE_MEMORY_GB_MONTH_USD: String(MEM_USD) },
  })
  b = await readyBase(t, FILES)
})
afterAll(() => t.close())

const economics = (query = '', key = b.keys.query, prefix = '/v1', corpusId = b.corpusId) =>
  t.request(`${prefix}/corpora/${corpusId}/economics${query}`, { headers: bearer(key) })

interface Economics {
  trained: boolean
  n_cartridges: number
  corpus_tokens: number
  train_seconds: number
  train_cost: number
  queries_per_month: number
  per_query: { cart: number; rag: number }
  per_month: { cart: number; rag: number }
  breakeven_vs_rag: number | null
  rate_card: Record<string, number>
  measured: {
    queries: number
    generator: string
    warm_bytes: number
    cart: { cpu_ms: number; context_tokens: number; output_tokens: number }
    rag: { cpu_ms: number; context_tokens: number; output_tokens: number }
  }
}

describe('economics', () => {
  test('prices measured work per strategy, the measured onboarding and the break-even', async () => {
    const res = await economics()
    expect(res.status).toBe(200)
    const e = (await res.json()) as Economics
    expect(e.trained).toBe(true)
    expect(e.n_cartridges).toBe(3)
    expect(e.corpus_tokens).toBe(FILES.reduce((a, f) => a + Math.ceil(f.text.length / 4), 0))
    expect(e.queries_per_month).toBe(100_000)
    expect(e.rate_card).toMatchObject({ cpu_second_usd: CPU_USD, memory_gb_month_usd: MEM_USD })
    // Onboarding: measured CPU-seconds of the run that built the base, at the CPU price.
    expect(e.train_seconds).toBeGreaterThan(0)
    expect(near(e.train_cost, e.train_seconds * CPU_USD, 1e-3, 2e-9)).toBe(true)
    expect(e.measured.queries).toBeGreaterThan(0)
    expect(e.measured.generator).toBe('extractive')
    expect(e.measured.warm_bytes).toBeGreaterThan(0)
    // Per query: CPU at the CPU price, and for cart the warm cartridges' month spread over the queries.
    const rag = (e.measured.rag.cpu_ms / 1000) * CPU_USD
    const cart =
      (e.measured.cart.cpu_ms / 1000) * CPU_USD + ((e.measured.warm_bytes / GB) * MEM_USD) / 100_000
    expect(near(e.per_query.rag, rag, 1e-3, 2e-9)).toBe(true)
    expect(near(e.per_query.cart, cart, 1e-3, 2e-9)).toBe(true)
    expect(near(e.per_month.cart, e.per_query.cart * 100_000)).toBe(true)
    expect(near(e.per_month.rag, e.per_query.rag * 100_000)).toBe(true)
    if (e.per_query.cart < e.per_query.rag) {
      const expected = e.train_cost / (e.per_query.rag - e.per_query.cart)
      expect(near(e.breakeven_vs_rag!, Math.ceil(expected), 1e-2)).toBe(true)
    } else {
      expect(e.breakeven_vs_rag).toBeNull()
    }
  })

  test('warm memory dominates at one query a month, so cart never pays off: break-even is null', async () => {
    const e = (await (await economics('?queries_per_month=1')).json()) as Economics
    expect(e.queries_per_month).toBe(1)
    expect(e.per_query.cart).toBeGreaterThan(e.per_query.rag)
    expect(e.breakeven_vs_rag).toBeNull()
    expect(near(e.per_month.cart, e.per_query.cart)).toBe(true)
  })

  test('retraining without force adds its measured time; a forced retrain replaces it', async () => {
    // The CPU time each finished run measured, oldest first, as the onboarding feature stored it.
    const runCpu = async () =>
      (await t.jobs.queue.repo.listBySubject(b.workspaceId, b.corpusId))
        .filter((j) => j.kind === 'train')
        .reverse()
        .map((j) => (j.result as { cpuMs: number }).cpuMs / 1000)
    const seconds = async () => ((await (await economics()).json()) as Economics).train_seconds
    expect(near(await seconds(), (await runCpu())[0]!, 1e-5, 2e-6)).toBe(true)
    await upload(t, b.adminToken, b.corpusId, [
      { path: 'extra.txt', text: 'Warsaw is the capital and largest city of Poland, on the Vistula river.' },
    ])
    await train(t, b.adminToken, b.corpusId)
    const [first, second] = (await runCpu()) as [number, number]
    expect(second).toBeGreaterThan(0)
    expect(near(await seconds(), first + second, 1e-5, 2e-6)).toBe(true)
    await train(t, b.adminToken, b.corpusId, true)
    const forced = (await runCpu())[2]!
    expect(near(await seconds(), forced, 1e-5, 2e-6)).toBe(true)
    const e = (await (await economics()).json()) as Economics
    expect(e.n_cartridges).toBe(4)
  })

  test('out-of-range queries_per_month is a 422 on both mounts', async () => {
    for (const q of [
      '?queries_per_month=0',
      '?queries_per_month=100000001',
      '?queries_per_month=abc',
      '?x=1',
    ]) {
      const v1 = await economics(q)
      expect(v1.status).toBe(422)
      expect((await v1.json()).error).toMatchObject({ code: 'validation_error', status: 422 })
      const frozen = await economics(q, b.keys.query, '')
      expect(frozen.status).toBe(422)
      expect((await frozen.json()).detail[0].loc[0]).toBe('query')
    }
    expect((await economics('?queries_per_month=100000000')).status).toBe(200)
  })

  test('needs the query scope and a credential; another workspace sees a 404; a raw base is a 409', async () => {
    const res = await economics('', b.keys.ingest)
    expect(res.status).toBe(403)
    expect((await res.json()).error.message).toBe('API key missing required scope: query')
    expect((await t.request(`/v1/corpora/${b.corpusId}/economics`)).status).toBe(401)
    const other = await signUp(t)
    const key = (await mintKey(t, other.token, ['query'])).key
    expect((await economics('', key)).status).toBe(404)
    expect((await economics('', key, '')).status).toBe(404)
    const raw = (await (
      await t.request('/v1/corpora', { method: 'POST', headers: bearer(b.adminToken), json: { name: 'raw' } })
    ).json()) as { id: string }
    const notReady = await economics('', b.keys.query, '/v1', raw.id)
    expect(notReady.status).toBe(409)
    expect((await notReady.json()).error.code).toBe('corpus_not_ready')
    const frozen = await economics('', b.keys.query, '', raw.id)
    expect(frozen.status).toBe(409)
    expect((await frozen.json()).detail).toContain('not ready')
  })
})
