import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseSse, type SseEvent } from '../../src/platform/http/sse'
import type { TestApp } from '../helpers/app'
import { type ReadyBase, readyBase, upload } from '../helpers/ready-base'
import { authApp, bearer, mintKey, rows, signUp } from './accounts.fixture'
import { FILES } from './compare.fixture'

let t: TestApp
let b: ReadyBase
beforeAll(async () => {
  t = authApp({ env: { ENGRAM_SCALE_TEST_MAX_REQUESTS_PER_LEVEL: '6' } })
  b = await readyBase(t, FILES)
})
afterAll(() => t.close())

const scaleTest = (json: unknown, key = b.keys.query, prefix = '/v1', corpusId = b.corpusId) =>
  t.request(`${prefix}/corpora/${corpusId}/scale-test/stream`, { method: 'POST', headers: bearer(key), json })

// The load a scale test sends is counted apart from the questions people ask.
const queriesServed = async (app = t) =>
  Number(
    (await app.sql.get<{ n: number | string | null }>('SELECT sum(load_test_queries) AS n FROM usage_daily'))!
      .n ?? 0,
  )

type Stats = {
  qps: number
  ok: number
  reqs: number
  ttft: number
  ttft_p95: number
  lat: number
  lat_p95: number
}
type LevelRecord = { level: number; cart: Stats; rag: Stats }

describe('scale test', () => {
  test('streams start, one record per level halving from the maximum, then done', async () => {
    const queries = ['When did the 1973 oil crisis begin?', 'Where does the Rhine begin?']
    const res = await scaleTest({ queries, max_concurrency: 4 })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/event-stream')
    const events = parseSse(await res.text())
    expect(events.map((e) => e.event)).toEqual(['start', 'level', 'level', 'level', 'done'])
    expect(events[0]!.data).toMatchObject({
      start: true,
      queries,
      levels: [4, 2, 1],
      transport: 'in_process',
    })
    const records = events.slice(1, 4).map((e) => e.data as LevelRecord)
    expect(records.map((r) => r.level)).toEqual([4, 2, 1])
    for (const r of records) {
      for (const s of [r.cart, r.rag]) {
        // Every query was answered, within the configured cap of 6 a level.
        expect(s.reqs).toBe(6)
        expect(s.ok).toBe(6)
        expect(s.qps).toBeGreaterThan(0)
        expect(s.lat).toBeGreaterThan(0)
        expect(s.lat_p95).toBeGreaterThanOrEqual(s.lat)
        expect(s.ttft).toBeLessThanOrEqual(s.lat)
        expect(s.ttft_p95).toBeGreaterThanOrEqual(s.ttft)
      }
    }
    expect(events[4]!.data).toMatchObject({ done: true, stopped: 'complete', levels_run: 3 })
  })

  test('with no queries given, it samples them from the base’s own text', async () => {
    const events = parseSse(await (await scaleTest({ max_concurrency: 1 }, b.keys.query, '')).text())
    const start = events[0]!.data as { queries: string[]; levels: number[] }
    expect(start.levels).toEqual([1])
    expect(start.queries.length).toBeGreaterThan(0)
    const all = FILES.map((f) => f.text.replace(/[^\p{L}\p{N}\s'-]+/gu, ' ').replace(/\s+/g, ' ')).join(' ')
    for (const q of start.queries) expect(all).toContain(q)
    expect(events.at(-1)!.event).toBe('done')
  })

  test('out-of-range concurrency and too many queries are 422 on both mounts', async () => {
    const before = await queriesServed()
    for (const json of [
      { max_concurrency: 0 },
      { max_concurrency: 65 },
      { queries: Array.from({ length: 33 }, () => 'q?') },
      { queries: [''] },
    ]) {
      const v1 = await scaleTest(json)
      expect(v1.status).toBe(422)
      expect((await v1.json()).error.code).toBe('validation_error')
      const frozen = await scaleTest(json, b.keys.query, '')
      expect(frozen.status).toBe(422)
      expect((await frozen.json()).detail[0].loc[0]).toBe('body')
    }
    expect(await queriesServed()).toBe(before)
  })

  test('one test at a time per workspace; a client that goes away stops its test and frees the slot', async () => {
    const before = await queriesServed()
    const first = await scaleTest({ queries: ['Where does the Rhine begin?'], max_concurrency: 64 })
    expect(first.status).toBe(200)
    const reader = first.body!.getReader()
    const chunk = new TextDecoder().decode((await reader.read()).value)
    expect(chunk).toContain('event: start')
    const busy = await scaleTest({ max_concurrency: 1 })
    expect(busy.status).toBe(409)
    expect((await busy.json()).error.code).toBe('scale_test_in_progress')
    await reader.cancel()
    // The test ends once the questions it had in flight have settled (each counted as it opened).
    await t.services.scale.settled()
    const served = await queriesServed()
    // Stopped early: fewer than the 84 questions a whole run sends (how many phases began before the
    // stop reached it depends on the machine's load), and nothing more once it has ended.
    expect(served - before).toBeLessThan(84)
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r))
    expect(await queriesServed()).toBe(served)
    const again = await scaleTest({ queries: ['Where does the Rhine begin?'], max_concurrency: 1 })
    expect(again.status).toBe(200)
    expect(parseSse(await again.text()).at(-1)!.event).toBe('done')
  })

  test('a workspace starts at most max_per_hour tests an hour: then 429 with Retry-After, others unaffected', async () => {
    const own = authApp({
      env: { ENGRAM_SCALE_TEST_MAX_PER_HOUR: '2', ENGRAM_SCALE_TEST_MAX_REQUESTS_PER_LEVEL: '1' },
    })
    try {
      const [mine, theirs] = [await readyBase(own, FILES), await readyBase(own, FILES)]
      const run = (base: ReadyBase) =>
        own.request(`/v1/corpora/${base.corpusId}/scale-test/stream`, {
          method: 'POST',
          headers: bearer(base.keys.query),
          json: { queries: ['Where does the Rhine begin?'], max_concurrency: 1 },
        })
      for (let i = 0; i < 2; i++) {
        const res = await run(mine)
        expect(parseSse(await res.text()).at(-1)!.event).toBe('done')
        own.clock.advance(60_000)
      }
      const served = await queriesServed(own)
      expect(served).toBeGreaterThan(0)
      const refused = await run(mine)
      expect(refused.status).toBe(429)
      expect(refused.headers.get('retry-after')).toBe('3480')
      expect(((await refused.json()) as { error: unknown }).error).toEqual({
        code: 'rate_limited',
        status: 429,
        message:
          'This workspace has started 2 scale tests within the hour, the most allowed (setting scale_test.max_per_hour). Try again in 3480 s.',
        details: { limit: 'scale_tests_per_hour', retry_after: 3480 },
        request_id: expect.any(String),
      })
      expect(await queriesServed(own)).toBe(served)
      // Another workspace has its own allowance, and the hour renews this one's.
      expect(parseSse(await (await run(theirs)).text()).at(-1)!.event).toBe('done')
      own.clock.advance(3_480_000)
      expect(parseSse(await (await run(mine)).text()).at(-1)!.event).toBe('done')
    } finally {
      own.close()
    }
  })

  test('needs the query scope and a credential; another workspace sees a 404; a raw base is a 409', async () => {
    const res = await scaleTest({}, b.keys.ingest)
    expect(res.status).toBe(403)
    expect((await res.json()).error.message).toBe('API key missing required scope: query')
    const anon = await t.request(`/v1/corpora/${b.corpusId}/scale-test/stream`, { method: 'POST', json: {} })
    expect(anon.status).toBe(401)
    const other = await signUp(t)
    const key = (await mintKey(t, other.token, ['query'])).key
    expect((await scaleTest({}, key)).status).toBe(404)
    const raw = (await (
      await t.request('/v1/corpora', { method: 'POST', headers: bearer(b.adminToken), json: { name: 'raw' } })
    ).json()) as { id: string }
    await upload(t, b.adminToken, raw.id, [{ path: 'a.txt', text: 'Something to say here.' }])
    const notReady = await scaleTest({}, b.keys.query, '/v1', raw.id)
    expect(notReady.status).toBe(409)
    expect((await notReady.json()).error.code).toBe('corpus_not_ready')
  })
})

describe('scale runs', () => {
  const save = (json: unknown, key = b.keys.query, prefix = '/v1') =>
    t.request(`${prefix}/corpora/${b.corpusId}/scale-runs`, { method: 'POST', headers: bearer(key), json })
  const list = (query = '', key = b.keys.query, prefix = '/v1') =>
    t.request(`${prefix}/corpora/${b.corpusId}/scale-runs${query}`, { headers: bearer(key) })

  let events: SseEvent[]
  beforeAll(async () => {
    events = parseSse(
      await (await scaleTest({ queries: ['Where does the Rhine begin?'], max_concurrency: 2 })).text(),
    )
  })

  test('a finished run is kept as sent and listed newest first', async () => {
    const records = events.filter((e) => e.event === 'level').map((e) => e.data)
    const ids: string[] = []
    for (const note of ['first', 'second', 'third']) {
      const res = await save({ queries: ['Where does the Rhine begin?'], max_concurrency: 2, records, note })
      expect(res.status).toBe(200)
      const run = await res.json()
      expect(run).toMatchObject({
        corpus_id: b.corpusId,
        queries: ['Where does the Rhine begin?'],
        max_concurrency: 2,
        levels: [2, 1],
        records,
        note,
        created_at: t.clock.now().toISOString(),
      })
      expect(run.id).toStartWith('scr_')
      ids.push(run.id)
      t.clock.advance(1000)
    }
    const frozen = await (await list('', b.keys.query, '')).json()
    expect(frozen.map((r: { id: string }) => r.id)).toEqual([...ids].reverse())
    const page1 = await list('?limit=2')
    expect(page1.headers.get('x-total-count')).toBe('3')
    const p1 = await page1.json()
    expect(p1.items.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1]])
    const p2 = await (await list(`?limit=2&cursor=${p1.next_cursor}`)).json()
    expect(p2.items.map((r: { id: string }) => r.id)).toEqual([ids[0]])
    expect(p2.next_cursor).toBeNull()
  })

  test('a malformed run is a 422 on both mounts and nothing is written', async () => {
    const before = await rows(t, 'scale_runs')
    const good = events.find((e) => e.event === 'level')!.data
    for (const json of [
      { queries: [], max_concurrency: 2, records: [] },
      { queries: [], max_concurrency: 65, records: [good] },
      { queries: [], max_concurrency: 2, records: [{ level: 2 }] },
      { max_concurrency: 2, records: [good] },
    ]) {
      const v1 = await save(json)
      expect(v1.status).toBe(422)
      expect((await v1.json()).error.code).toBe('validation_error')
      expect((await save(json, b.keys.query, '')).status).toBe(422)
    }
    expect(await rows(t, 'scale_runs')).toBe(before)
  })

  test('fields the run format does not know are not kept', async () => {
    const good = events.find((e) => e.event === 'level')!.data as LevelRecord
    const res = await save({
      queries: ['q'],
      max_concurrency: 2,
      records: [{ ...good, extra: 'x'.repeat(100), cart: { ...good.cart, junk: 1 } }],
    })
    const run = await res.json()
    expect(run.records[0].extra).toBeUndefined()
    expect(run.records[0].cart.junk).toBeUndefined()
    expect(run.records[0].cart.qps).toBe(good.cart.qps)
  })

  test('runs need the query scope and a credential; another workspace sees a 404', async () => {
    const good = events.find((e) => e.event === 'level')!.data
    const body = { queries: ['q'], max_concurrency: 2, records: [good] }
    const forbidden = await save(body, b.keys.ingest)
    expect(forbidden.status).toBe(403)
    expect((await list('', b.keys.ingest)).status).toBe(403)
    expect((await t.request(`/v1/corpora/${b.corpusId}/scale-runs`)).status).toBe(401)
    const other = await signUp(t)
    const key = (await mintKey(t, other.token, ['query'])).key
    const before = await rows(t, 'scale_runs')
    expect((await save(body, key)).status).toBe(404)
    expect((await list('', key)).status).toBe(404)
    expect((await list('', key, '')).status).toBe(404)
    expect(await rows(t, 'scale_runs')).toBe(before)
  })
})
