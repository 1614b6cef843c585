import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseSse } from '../../src/platform/http/sse'
import type { TestApp } from '../helpers/app'
import { type ReadyBase, readyBase } from '../helpers/ready-base'
import { authApp, bearer } from './accounts.fixture'
import { FILES } from './compare.fixture'

// "Questions answered" on the usage page are the questions people asked. The scale test's load and
// the questions compare and economics ask to measure the strategies are counted apart (813 after 4
// real questions was the scale test's load).

let t: TestApp
let b: ReadyBase
beforeAll(async () => {
  t = authApp({ env: { ENGRAM_SCALE_TEST_MAX_REQUESTS_PER_LEVEL: '4' } })
  b = await readyBase(t, FILES)
})
afterAll(() => t.close())

const post = (path: string, json: unknown, headers: Record<string, string> = {}) =>
  t.request(`/v1/corpora/${b.corpusId}${path}`, {
    method: 'POST',
    headers: { ...bearer(b.keys.query), ...headers },
    json,
  })

// biome-ignore lint/suspicious/noExplicitAny: the usage report, read field by field
const usage = async (): Promise<any> =>
  (await t.request('/v1/admin/usage', { headers: bearer(b.adminToken) })).json()

describe('usage by who asked', () => {
  test('people’s questions are counted apart from the scale test’s, compare’s and economics’ load', async () => {
    const question = { question: 'When did the 1973 oil crisis begin?' }
    // People: the chat route (plain and streamed) and the agent route.
    expect((await post('/chat', question)).status).toBe(200)
    const streamed = await post('/chat/stream', question)
    expect(parseSse(await streamed.text()).at(-1)!.event).toBe('done')
    expect(
      (
        await t.request(`/mcp/${b.corpusId}/query`, {
          method: 'POST',
          headers: bearer(b.keys.query),
          json: question,
        })
      ).status,
    ).toBe(200)
    // Load: a scale test (1 level x 2 strategies x 4 queries), a compare of both strategies, the
    // economics probe, and a client that marks its own load.
    const scale = await post('/scale-test/stream', {
      queries: ['Where does the Rhine begin?'],
      max_concurrency: 1,
    })
    expect(parseSse(await scale.text()).at(-1)!.event).toBe('done')
    expect((await post('/compare', question)).status).toBe(200)
    expect(
      (await t.request(`/v1/corpora/${b.corpusId}/economics`, { headers: bearer(b.keys.query) })).status,
    ).toBe(200)
    expect((await post('/chat', question, { 'X-Engram-Origin': 'scale_test' })).status).toBe(200)
    // Anything else in the header is a person asking.
    expect((await post('/chat', question, { 'X-Engram-Origin': 'someone' })).status).toBe(200)

    const report = await usage()
    expect(report.totals.queries).toBe(4)
    expect(report.totals.load_test_queries).toBe(8 + 1)
    // Compare: one question per strategy; economics: a warm-up and three questions per strategy.
    expect(report.totals.compare_queries).toBe(2 + 8)
    const base = report.bases.find((x: { corpus_id: string }) => x.corpus_id === b.corpusId)
    expect(base).toMatchObject({ queries: 4, load_test_queries: 9, compare_queries: 10 })
    expect(report.daily.at(-1)).toEqual({
      date: t.clock.now().toISOString().slice(0, 10),
      queries: 4,
      load_test_queries: 9,
      compare_queries: 10,
      feedback_up: 0,
      feedback_down: 0,
    })
    // Billing reads the same totals.
    const billing = await (await t.request('/v1/admin/billing', { headers: bearer(b.adminToken) })).json()
    expect(billing.usage).toMatchObject({ queries: 4, load_test_queries: 9, compare_queries: 10 })
  })
})
