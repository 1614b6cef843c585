import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseSse } from '../../src/platform/http/sse'
import type { TestApp } from '../helpers/app'
import { startLlmStandin } from '../helpers/llm-standin'
import { type ReadyBase, readyBase, upload } from '../helpers/ready-base'
import { authApp, bearer, mintKey, signUp } from './accounts.fixture'
import { FILES, GB, near } from './compare.fixture'

const RATES = {
  ENGRAM_RATE_CPU_SECOND_USD: '0.001',
  ENGRAM_RATE_MEMORY_GB_MONTH_USD: '2',
  ENGRAM_RATE_GPU_HOUR_USD: '3.6',
  ENGRAM_RATE_PREFILL_TOKENS_PER_SECOND: '1000',
  ENGRAM_RATE_DECODE_TOKENS_PER_SECOND: '100',
  ENGRAM_RATE_UTILISATION: '0.5',
}

let t: TestApp
let b: ReadyBase
beforeAll(async () => {
  t = authApp({ env: RATES })
  b = await readyBase(t, FILES)
})
afterAll(() => t.close())

const QUESTION = { question: 'When did the 1973 oil crisis begin?' }

const compare = (query = '', json: unknown = QUESTION, key = b.keys.query, prefix = '/v1') =>
  t.request(`${prefix}/corpora/${b.corpusId}/compare${query}`, { method: 'POST', headers: bearer(key), json })

// Compare's questions measure the strategies: usage counts them apart from people's questions.
const queriesServed = async () =>
  Number(
    (await t.sql.get<{ n: number | string | null }>('SELECT sum(compare_queries) AS n FROM usage_daily'))!
      .n ?? 0,
  )

type Strat = {
  key: string
  answer: string
  latency_ms: number
  ttft_ms: number
  context_tokens: number
  used_docs: string[]
  sources: { filename: string }[]
  cost_per_query: number
  cost_per_month: number
  cpu_ms: number
  cost_breakdown: { cpu: number; memory: number; gpu: number }
}

describe('compare', () => {
  test('runs the question through both strategies and prices each from its measured work', async () => {
    const res = await compare()
    expect(res.status).toBe(200)
    const body = (await res.json()) as {
      strategies: Strat[]
      summary: { cheaper_than_rag_x: number; faster_than_rag_x: number }
      queries_per_month: number
      side: string
      generator: string
      rate_card: Record<string, number>
    }
    expect(body.queries_per_month).toBe(100_000)
    expect(body.side).toBe('both')
    expect(body.generator).toBe('extractive')
    expect(body.rate_card).toEqual({
      cpu_second_usd: 0.001,
      memory_gb_month_usd: 2,
      gpu_hour_usd: 3.6,
      prefill_tokens_per_second: 1000,
      decode_tokens_per_second: 100,
      utilisation: 0.5,
    })
    expect(body.strategies.map((s) => s.key)).toEqual(['cart', 'rag'])
    const eco = (await (
      await t.request(`/v1/corpora/${b.corpusId}/economics`, { headers: bearer(b.keys.query) })
    ).json()) as { measured: { warm_bytes: number } }
    for (const s of body.strategies) {
      expect(s.answer).toContain('October 1973')
      expect(s.sources[0]!.filename).toBe('oil.txt')
      expect(s.used_docs).toContain(b.docs['oil.txt']!)
      expect(s.latency_ms).toBeGreaterThan(0)
      expect(s.ttft_ms).toBeGreaterThan(0)
      expect(s.context_tokens).toBeGreaterThan(0)
      // The rate card applied to the measured figures, part by part.
      expect(near(s.cost_breakdown.cpu, (s.cpu_ms / 1000) * 0.001, 1e-3, 2e-9)).toBe(true)
      expect(s.cost_breakdown.gpu).toBe(0)
      const memory = s.key === 'cart' ? ((eco.measured.warm_bytes / GB) * 2) / 100_000 : 0
      expect(near(s.cost_breakdown.memory, memory)).toBe(true)
      if (s.key === 'cart') expect(s.cost_breakdown.memory).toBeGreaterThan(0)
      expect(near(s.cost_per_query, s.cost_breakdown.cpu + s.cost_breakdown.memory)).toBe(true)
      expect(near(s.cost_per_month, s.cost_per_query * 100_000)).toBe(true)
    }
    expect(eco.measured.warm_bytes).toBeGreaterThan(0)
    const [cart, rag] = body.strategies as [Strat, Strat]
    expect(near(body.summary.cheaper_than_rag_x, rag.cost_per_query / cart.cost_per_query, 1e-2)).toBe(true)
    expect(near(body.summary.faster_than_rag_x, rag.latency_ms / cart.latency_ms, 1e-2)).toBe(true)
  })

  test('one side runs only that strategy, and the summary has no ratios', async () => {
    for (const side of ['cart', 'rag'] as const) {
      const body = await (await compare(`?side=${side}&queries_per_month=10`)).json()
      expect(body.strategies.map((s: Strat) => s.key)).toEqual([side])
      expect(body.summary).toEqual({ cheaper_than_rag_x: null, faster_than_rag_x: null })
      expect(body.queries_per_month).toBe(10)
      expect(near(body.strategies[0].cost_per_month, body.strategies[0].cost_per_query * 10)).toBe(true)
    }
  })

  test('out-of-range queries_per_month and an unknown side are 422 on both mounts, and nothing runs', async () => {
    const before = await queriesServed()
    for (const q of [
      '?queries_per_month=0',
      '?queries_per_month=100000001',
      '?queries_per_month=x',
      '?side=all',
    ]) {
      const v1 = await compare(q)
      expect(v1.status).toBe(422)
      const err = (await v1.json()).error
      expect(err.code).toBe('validation_error')
      expect(err.details[0].loc[0]).toBe('query')
      const frozen = await compare(q, QUESTION, b.keys.query, '')
      expect(frozen.status).toBe(422)
      expect((await frozen.json()).detail[0].loc[0]).toBe('query')
    }
    expect((await compare('?queries_per_month=100000000')).status).toBe(200)
    expect((await compare('', { question: '' })).status).toBe(422)
    expect(await queriesServed()).toBe(before + 2)
  })

  test('needs the query scope and a credential; another workspace sees a 404; a raw base is a 409', async () => {
    const res = await compare('', QUESTION, b.keys.ingest)
    expect(res.status).toBe(403)
    expect((await res.json()).error.message).toBe('API key missing required scope: query')
    const anon = await t.request(`/v1/corpora/${b.corpusId}/compare`, { method: 'POST', json: QUESTION })
    expect(anon.status).toBe(401)
    const other = await signUp(t)
    const key = (await mintKey(t, other.token, ['query'])).key
    const foreign = await compare('', QUESTION, key)
    expect(foreign.status).toBe(404)
    expect((await compare('', QUESTION, key, '')).status).toBe(404)
    const raw = (await (
      await t.request('/v1/corpora', { method: 'POST', headers: bearer(b.adminToken), json: { name: 'raw' } })
    ).json()) as { id: string }
    await upload(t, b.adminToken, raw.id, [{ path: 'a.txt', text: 'Something to say here.' }])
    for (const path of [`/v1/corpora/${raw.id}/compare`, `/corpora/${raw.id}/compare/stream`]) {
      const r = await t.request(path, { method: 'POST', headers: bearer(b.keys.query), json: QUESTION })
      expect(r.status).toBe(409)
    }
    const v1 = await t.request(`/v1/corpora/${raw.id}/compare`, {
      method: 'POST',
      headers: bearer(b.keys.query),
      json: QUESTION,
    })
    expect((await v1.json()).error.code).toBe('corpus_not_ready')
  })
})

describe('compare stream', () => {
  const stream = (query = '', json: unknown = QUESTION, prefix = '/v1') =>
    t.request(`${prefix}/corpora/${b.corpusId}/compare/stream${query}`, {
      method: 'POST',
      headers: bearer(b.keys.query),
      json,
    })

  test('sends head, deltas, then one summary with measured metrics and the cost per query', async () => {
    const res = await stream()
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/event-stream')
    const events = parseSse(await res.text())
    const names = events.map((e) => e.event)
    expect(names[0]).toBe('head')
    expect(names.at(-1)).toBe('summary')
    expect(names.slice(1, -1).every((n) => n === 'delta')).toBe(true)
    expect(names.filter((n) => n === 'summary' || n === 'error')).toEqual(['summary'])
    const text = events
      .filter((e) => e.event === 'delta')
      .map((e) => (e.data as { delta: string }).delta)
      .join('')
    expect(text).toContain('October 1973')
    const summary = events.at(-1)!.data as {
      summary: boolean
      key: string
      metrics: Record<string, unknown>
      cost_per_query: number
      cost_per_month: number
      cost_breakdown: { cpu: number; memory: number; gpu: number }
      queries_per_month: number
    }
    expect(summary).toMatchObject({ summary: true, key: 'cart', queries_per_month: 100_000 })
    expect(summary.metrics).toMatchObject({ strategy: 'cart', generator: 'extractive' })
    for (const k of ['latency_ms', 'ttft_ms', 'context_tokens', 'cpu_ms']) {
      expect(summary.metrics[k]).toBeNumber()
    }
    expect(summary.cost_per_query).toBeGreaterThan(0)
    expect(summary.cost_breakdown.memory).toBeGreaterThan(0)
    expect(
      near(summary.cost_breakdown.cpu, ((summary.metrics.cpu_ms as number) / 1000) * 0.001, 1e-3, 2e-9),
    ).toBe(true)
  })

  test('side=rag streams rag; side=both is a 422 (one strategy per stream)', async () => {
    const events = parseSse(await (await stream('?side=rag', QUESTION, '')).text())
    expect(events.at(-1)).toMatchObject({
      event: 'summary',
      data: { key: 'rag', metrics: { strategy: 'rag' } },
    })
    expect((events.at(-1)!.data as { cost_breakdown: { memory: number } }).cost_breakdown.memory).toBe(0)
    const bad = await stream('?side=both')
    expect(bad.status).toBe(422)
    expect((await stream('?side=both', QUESTION, '')).status).toBe(422)
  })
})

describe('compare with a model server', () => {
  const standin = startLlmStandin(() => 'It began in October 1973 [1].')
  let tm: TestApp
  let bm: ReadyBase
  beforeAll(async () => {
    tm = authApp({ env: { ...RATES, ENGRAM_LLM_URL: standin.url, ENGRAM_LLM_MODEL: 'tiny' } })
    bm = await readyBase(tm, FILES)
  })
  afterAll(async () => {
    tm.close()
    await standin.stop()
  })

  test('GPU time is charged from the context read and the answer written', async () => {
    const res = await tm.request(`/v1/corpora/${bm.corpusId}/compare?side=rag`, {
      method: 'POST',
      headers: bearer(bm.keys.query),
      json: QUESTION,
    })
    const body = await res.json()
    expect(body.generator).toBe('llm')
    const s = body.strategies[0] as Strat
    expect(s.answer).toBe('It began in October 1973 [1].')
    // (context / 1000 + ceil(29 chars / 4) / 100) s / 0.5 utilisation, at $3.6 an hour.
    const gpuSeconds = (s.context_tokens / 1000 + 8 / 100) / 0.5
    expect(near(s.cost_breakdown.gpu, (gpuSeconds / 3600) * 3.6)).toBe(true)
  })
})
