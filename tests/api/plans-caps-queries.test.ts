import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseSse } from '../../src/platform/http/sse'
import type { TestApp } from '../helpers/app'
import { type ReadyBase, readyBase } from '../helpers/ready-base'
import { authApp, bearer, expectError, mounts } from './accounts.fixture'
import { FILES } from './compare.fixture'
import { call, mcpClient } from './mcp.fixture'

// Issue 37, the queries_per_month cap: every route that answers a question (chat, its stream, MCP
// query and its tool, compare) takes one of the month's questions before any work, atomically, so
// that concurrent questions cannot overshoot; a refused question writes nothing; a question that
// fails before it is answered gives its back; the scale test's load is not counted; a new calendar
// month (UTC) starts afresh; /admin/billing shows the number the cap checks. The test app runs with
// billing off (the default): the caps apply all the same.

const dir = mkdtempSync(join(tmpdir(), 'engram-caps-queries-'))
const unlimited = {
  bases: null,
  documents: null,
  storage_bytes: null,
  queries_per_month: null,
  seats: null,
  api_keys: null,
}
/** Every workspace signs up on this plan: five questions a month, nothing else capped. */
const PLANS = {
  plans: [
    {
      id: 'five',
      name: 'Five questions',
      prices: { currency: 'usd', month: 0, year: 0 },
      caps: { ...unlimited, queries_per_month: 5 },
      public: false,
    },
  ],
}
const plansFile = join(dir, 'plans.json')
writeFileSync(plansFile, JSON.stringify(PLANS))

const apps: TestApp[] = []
const app = (env: Record<string, string> = {}) => {
  const t = authApp({
    env: {
      ENGRAM_PLANS_FILE: plansFile,
      ENGRAM_DEFAULT_PLAN: 'five',
      ENGRAM_SCALE_TEST_MAX_REQUESTS_PER_LEVEL: '5',
      ...env,
    },
  })
  apps.push(t)
  return t
}
afterAll(() => {
  for (const t of apps) t.close()
})

const QUESTION = { question: 'Where does the Rhine begin?' }

const chat = (t: TestApp, b: ReadyBase, path = `/v1/corpora/${b.corpusId}/chat`, headers = {}) =>
  t.request(path, { method: 'POST', headers: { ...bearer(b.keys.query), ...headers }, json: QUESTION })

/** What the cap counts for the workspace this month, as /admin/billing shows it. */
async function billingUsed(t: TestApp, b: ReadyBase): Promise<{ used: number; limit: number | null }> {
  // The admin key: a session would expire over the month the clock moves.
  const res = await t.request('/v1/admin/billing', { headers: bearer(b.keys.admin) })
  expect(res.status).toBe(200)
  const body = (await res.json()) as {
    used: { queries_per_month: number }
    limits: { queries_per_month: number | null }
  }
  return { used: body.used.queries_per_month, limit: body.limits.queries_per_month }
}

/** Questions taken in a month (YYYY-MM), read from the table the cap checks. */
const taken = async (t: TestApp, b: ReadyBase, month = '2026-03') =>
  (
    await t.sql.get<{ n: number }>(
      'SELECT taken AS n FROM plan_queries WHERE workspace_id = ? AND month = ?',
      b.workspaceId,
      month,
    )
  )?.n ?? 0

const SQLITE_TABLES = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
const POSTGRES_TABLES =
  "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"

/** Every table's row count and the usage counters: a refused question must change none of them. */
async function everything(t: TestApp): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  const tables = await t.sql.all<{ name: string }>(
    t.sql.engine === 'postgres' ? POSTGRES_TABLES : SQLITE_TABLES,
  )
  for (const { name } of tables) {
    if (name.startsWith('engine_')) continue
    out[name] = (await t.sql.get<{ n: number }>(`SELECT count(*) AS n FROM "${name}"`))!.n
  }
  // The engine's index is in the SQLite file on both engines (docs/data-layer.md).
  const index = t.db.$client
  for (const { name } of index.query<{ name: string }, []>(SQLITE_TABLES).all()) {
    if (!name.startsWith('engine_')) continue
    out[name] = index.query<{ n: number }, []>(`SELECT count(*) AS n FROM "${name}"`).get()!.n
  }
  const sums = (await t.sql.get<Record<string, number | null>>(
    'SELECT sum(queries) AS q, sum(load_test_queries) AS l, sum(compare_queries) AS c FROM usage_daily',
  ))!
  out['usage_daily.queries'] = Number(sums.q ?? 0)
  out['usage_daily.load'] = Number(sums.l ?? 0)
  out['usage_daily.compare'] = Number(sums.c ?? 0)
  out['plan_queries.taken'] = Number(
    (await t.sql.get<{ n: number | null }>('SELECT sum(taken) AS n FROM plan_queries'))!.n ?? 0,
  )
  return out
}

/** Asserts a 403 plan_limit_reached naming the cap, its limit and what is used. */
async function expectCap(res: Response, path: string, used = 5): Promise<void> {
  const details = res.clone()
  await expectError(res, path, 403, 'plan_limit_reached')
  if (path.startsWith('/v1')) {
    const body = (await details.json()) as { error: { details: unknown } }
    expect(body.error.details).toEqual({ cap: 'queries_per_month', limit: 5, used })
  }
}

describe('queries_per_month on every route that answers', () => {
  let t: TestApp
  let b: ReadyBase
  let server: ReturnType<typeof Bun.serve>
  beforeAll(async () => {
    t = app()
    b = await readyBase(t, FILES)
    server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: t.handle })
    await t.start({ url: `http://127.0.0.1:${server.port}/` })
  })
  afterAll(async () => {
    await t.stop()
    await server.stop(true)
  })

  test('chat, the stream, MCP (route and tool) and compare each take one; the sixth question is refused everywhere and writes nothing', async () => {
    // The MCP client speaks the real protocol to the app, in process.
    const client = await mcpClient('http://engram.test/mcp-http/', b.keys.query, (input, init) =>
      t.handle(new Request(input, init)),
    )
    expect(await billingUsed(t, b)).toEqual({ used: 0, limit: 5 })

    expect((await chat(t, b)).status).toBe(200)
    expect(await billingUsed(t, b)).toEqual({ used: 1, limit: 5 })

    const stream = await t.request(`/v1/corpora/${b.corpusId}/chat/stream`, {
      method: 'POST',
      headers: bearer(b.keys.query),
      json: QUESTION,
    })
    expect(stream.status).toBe(200)
    expect(parseSse(await stream.text()).at(-1)!.event).toBe('done')
    expect(await taken(t, b)).toBe(2)

    const tool = await call(client, 'query_base', { base_id: b.corpusId, ...QUESTION })
    expect(tool.result.isError).toBeFalsy()
    expect(await taken(t, b)).toBe(3)

    const mcp = await t.request(`/v1/mcp/${b.corpusId}/query`, {
      method: 'POST',
      headers: bearer(b.keys.query),
      json: QUESTION,
    })
    expect(mcp.status).toBe(200)
    expect(await taken(t, b)).toBe(4)

    // Compare answers with both strategies: one question of the plan.
    const compare = await t.request(`/v1/corpora/${b.corpusId}/compare?side=both`, {
      method: 'POST',
      headers: bearer(b.keys.query),
      json: QUESTION,
    })
    expect(compare.status).toBe(200)
    expect(((await compare.json()) as { strategies: unknown[] }).strategies).toHaveLength(2)
    expect(await billingUsed(t, b)).toEqual({ used: 5, limit: 5 })

    const before = await everything(t)
    for (const path of mounts(`/corpora/${b.corpusId}/chat`)) await expectCap(await chat(t, b, path), path)
    // The stream is refused before any event: a JSON error, not an event stream.
    for (const path of mounts(`/corpora/${b.corpusId}/chat/stream`)) {
      const res = await t.request(path, { method: 'POST', headers: bearer(b.keys.query), json: QUESTION })
      expect(res.headers.get('content-type')).toContain('application/json')
      await expectCap(res, path)
    }
    for (const path of mounts(`/mcp/${b.corpusId}/query`)) {
      const res = await t.request(path, { method: 'POST', headers: bearer(b.keys.query), json: QUESTION })
      await expectCap(res, path)
    }
    const refused = await call(client, 'query_base', { base_id: b.corpusId, ...QUESTION })
    expect(refused.result.isError).toBe(true)
    expect(refused.text).toEndWith('(plan_limit_reached)')
    for (const path of mounts(`/corpora/${b.corpusId}/compare`)) {
      const res = await t.request(path, { method: 'POST', headers: bearer(b.keys.query), json: QUESTION })
      await expectCap(res, path)
    }
    const compareStream = `/v1/corpora/${b.corpusId}/compare/stream?side=rag`
    await expectCap(
      await t.request(compareStream, { method: 'POST', headers: bearer(b.keys.query), json: QUESTION }),
      compareStream,
    )
    // Claiming to be the scale test's load does not get past the cap: only its worker's pass does.
    const path = `/v1/corpora/${b.corpusId}/chat`
    await expectCap(await chat(t, b, path, { 'x-engram-origin': 'scale_test' }), path)
    await expectCap(
      await chat(t, b, path, { 'x-engram-origin': 'scale_test', 'x-engram-load-pass': 'guessed' }),
      path,
    )
    expect(await everything(t)).toEqual(before)
    expect(await billingUsed(t, b)).toEqual({ used: 5, limit: 5 })
    await client.close()
  })

  test('the scale test over HTTP from its worker is not counted and not refused at the cap', async () => {
    expect(await taken(t, b)).toBe(5)
    const load = async () => (await everything(t))['usage_daily.load']!
    const loadBefore = await load()
    // Over HTTP: the server listens, so the worker sends every query through the chat stream route.
    const res = await fetch(`http://127.0.0.1:${server.port}/v1/corpora/${b.corpusId}/scale-test/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(b.keys.query) },
      body: JSON.stringify({ queries: [QUESTION.question], max_concurrency: 1 }),
    })
    expect(res.status).toBe(200)
    const events = parseSse(await res.text())
    expect(events[0]!.data).toMatchObject({ transport: 'http' })
    expect(events[1]!.data).toMatchObject({ cart: { ok: 5, reqs: 5 }, rag: { ok: 5, reqs: 5 } })
    expect(await load()).toBe(loadBefore + 10)
    expect(await taken(t, b)).toBe(5)
    expect(await billingUsed(t, b)).toEqual({ used: 5, limit: 5 })
  })

  test('a new calendar month (UTC) starts afresh; the last month keeps its count', async () => {
    expect(await taken(t, b)).toBe(5)
    // 2026-03-31T23:59:59.999Z is still March.
    t.clock.set(new Date('2026-03-31T23:59:59.999Z'))
    await expectCap(await chat(t, b), `/v1/corpora/${b.corpusId}/chat`)
    t.clock.set(new Date('2026-04-01T00:00:00Z'))
    expect(await billingUsed(t, b)).toEqual({ used: 0, limit: 5 })
    expect((await chat(t, b)).status).toBe(200)
    expect(await billingUsed(t, b)).toEqual({ used: 1, limit: 5 })
    expect(await taken(t, b, '2026-04')).toBe(1)
    expect(await taken(t, b, '2026-03')).toBe(5)
    t.clock.set(new Date('2026-03-01T12:00:00Z'))
  })
})

describe('concurrent questions', () => {
  test('20 parallel chat requests against a cap of 5: exactly 5 are answered', async () => {
    const t = app()
    const b = await readyBase(t, FILES)
    const before = (await everything(t))['usage_daily.queries']!
    const all = await Promise.all(Array.from({ length: 20 }, () => chat(t, b)))
    const statuses = all.map((r) => r.status)
    expect(statuses.filter((s) => s === 200)).toHaveLength(5)
    expect(statuses.filter((s) => s === 403)).toHaveLength(15)
    for (const r of all.filter((r) => r.status === 403)) {
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('plan_limit_reached')
    }
    expect(await taken(t, b)).toBe(5)
    expect((await everything(t))['usage_daily.queries']).toBe(before + 5)
    expect(await billingUsed(t, b)).toEqual({ used: 5, limit: 5 })
    // The server does not listen here: the scale test sends its load in process, uncounted too.
    const res = await t.request(`/v1/corpora/${b.corpusId}/scale-test/stream`, {
      method: 'POST',
      headers: bearer(b.keys.query),
      json: { queries: [QUESTION.question], max_concurrency: 1 },
    })
    const events = parseSse(await res.text())
    expect(events[0]!.data).toMatchObject({ transport: 'in_process' })
    expect(events[1]!.data).toMatchObject({ cart: { ok: 5, reqs: 5 }, rag: { ok: 5, reqs: 5 } })
    expect(await taken(t, b)).toBe(5)
  })
})

describe('a question that fails before it is answered', () => {
  test('a 503 (engine saturated) does not use the allowance', async () => {
    const t = app({ ENGRAM_MAX_CONCURRENT_QUERIES: '1', ENGRAM_MAX_QUEUED_QUERIES: '0' })
    const b = await readyBase(t, FILES)
    // An open stream holds the only serving slot; it is a question, and it counts.
    const held = await t.request(`/v1/corpora/${b.corpusId}/chat/stream`, {
      method: 'POST',
      headers: bearer(b.keys.query),
      json: QUESTION,
    })
    expect(held.status).toBe(200)
    expect(await taken(t, b)).toBe(1)
    for (const path of [`/v1/corpora/${b.corpusId}/chat`, `/v1/mcp/${b.corpusId}/query`]) {
      const res = await t.request(path, { method: 'POST', headers: bearer(b.keys.query), json: QUESTION })
      await expectError(res, path, 503, 'serving_unavailable')
    }
    const compare = `/v1/corpora/${b.corpusId}/compare`
    await expectError(
      await t.request(compare, { method: 'POST', headers: bearer(b.keys.query), json: QUESTION }),
      compare,
      503,
      'serving_unavailable',
    )
    const stream = `/v1/corpora/${b.corpusId}/chat/stream`
    await expectError(
      await t.request(stream, { method: 'POST', headers: bearer(b.keys.query), json: QUESTION }),
      stream,
      503,
      'serving_unavailable',
    )
    expect(await taken(t, b)).toBe(1)
    expect(await billingUsed(t, b)).toEqual({ used: 1, limit: 5 })
    await held.text()
    // The four left are all there.
    for (let i = 0; i < 4; i++) expect((await chat(t, b)).status).toBe(200)
    await expectCap(await chat(t, b), `/v1/corpora/${b.corpusId}/chat`)
  })
})
