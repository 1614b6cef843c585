import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseSse } from '../../src/platform/http/sse'
import type { TestApp } from '../helpers/app'
import { type ReadyBase, readyBase } from '../helpers/ready-base'
import { authApp, bearer } from './accounts.fixture'
import { FILES } from './compare.fixture'

// Once the server listens, the scale test loads it over real HTTP from a worker thread.
let t: TestApp
let b: ReadyBase
let server: ReturnType<typeof Bun.serve>
beforeAll(async () => {
  t = authApp({ env: { ENGRAM_SCALE_TEST_MAX_REQUESTS_PER_LEVEL: '5' } })
  b = await readyBase(t, FILES)
  server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: t.handle })
  await t.start({ url: `http://127.0.0.1:${server.port}/` })
})
afterAll(async () => {
  await t.stop()
  await server.stop(true)
  t.close()
})

/** Questions usage counted: people's (`queries`) and the scale test's load, apart. */
const counted = async () => {
  const sums = (await t.sql.get<{ people: number | string | null; load: number | string | null }>(
    'SELECT sum(queries) AS people, sum(load_test_queries) AS load FROM usage_daily',
  ))!
  // A sum of PostgreSQL's bigint counters is a numeric, which its client gives as text.
  const n = (v: number | string | null) => (v === null ? null : Number(v))
  return { people: n(sums.people), load: n(sums.load) }
}

describe('scale test over HTTP', () => {
  test('sends every query through the chat stream route with the caller’s key', async () => {
    const before = await counted()
    const res = await fetch(`http://127.0.0.1:${server.port}/v1/corpora/${b.corpusId}/scale-test/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(b.keys.query) },
      body: JSON.stringify({ queries: ['Where does the Rhine begin?'], max_concurrency: 2 }),
    })
    expect(res.status).toBe(200)
    const events = parseSse(await res.text())
    expect(events.map((e) => e.event)).toEqual(['start', 'level', 'level', 'done'])
    expect(events[0]!.data).toMatchObject({ start: true, levels: [2, 1], transport: 'http' })
    for (const e of events.slice(1, 3)) {
      const r = e.data as {
        cart: { ok: number; reqs: number; qps: number }
        rag: { ok: number; reqs: number }
      }
      expect(r.cart).toMatchObject({ ok: 5, reqs: 5 })
      expect(r.rag).toMatchObject({ ok: 5, reqs: 5 })
      expect(r.cart.qps).toBeGreaterThan(0)
    }
    expect(events[3]!.data).toMatchObject({ stopped: 'complete', levels_run: 2 })
    // 2 levels x 2 strategies x 5 queries, each counted for the caller's workspace, as load: the
    // questions people asked are not 20 more for it.
    expect(await counted()).toEqual({ people: before.people ?? 0, load: (before.load ?? 0) + 20 })
  })

  test('a client that goes away frees the workspace’s test slot once its questions in flight settle', async () => {
    const res = await t.request(`/v1/corpora/${b.corpusId}/scale-test/stream`, {
      method: 'POST',
      headers: bearer(b.keys.query),
      json: { queries: ['Where does the Rhine begin?'], max_concurrency: 64 },
    })
    const reader = res.body!.getReader()
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('"transport":"http"')
    await reader.cancel()
    // The test ends once the questions it had in flight have settled, and lets its slot go then.
    await t.services.scale.settled()
    const again = await t.request(`/v1/corpora/${b.corpusId}/scale-test/stream`, {
      method: 'POST',
      headers: bearer(b.keys.query),
      json: { queries: ['Where does the Rhine begin?'], max_concurrency: 1 },
    })
    expect(again.status).toBe(200)
    expect(parseSse(await again.text()).at(-1)!.data).toMatchObject({ stopped: 'complete' })
  })
})
