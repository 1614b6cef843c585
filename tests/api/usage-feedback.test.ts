import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { TestApp } from '../helpers/app'
import { authApp, bearer, mintKey, signUp } from './accounts.fixture'

// Issue 34: the ratings given to answers (POST /corpora/{id}/feedback) show on the usage report,
// up and down, in the totals, per base and per UTC day, read where they are kept.

const DAY_MS = 86_400_000

let t: TestApp
beforeAll(() => {
  t = authApp()
})
afterAll(() => t.close())

const createBase = async (token: string, name: string): Promise<string> => {
  const res = await t.request('/v1/corpora', { method: 'POST', headers: bearer(token), json: { name } })
  expect(res.status).toBe(200)
  return (await res.json()).id
}

const rate = async (token: string, corpusId: string, rating: 'up' | 'down', times = 1) => {
  for (let i = 0; i < times; i++) {
    const res = await t.request(`/corpora/${corpusId}/feedback`, {
      method: 'POST',
      headers: bearer(token),
      json: { rating, question: 'q', answer: 'a' },
    })
    expect(res.status).toBe(200)
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the usage report, read field by field
const usage = async (token: string): Promise<any> =>
  (await t.request('/v1/admin/usage', { headers: bearer(token) })).json()

describe('feedback on the usage report', () => {
  test('ratings up and down count in the totals, per base and per day; other workspaces and older ones do not', async () => {
    // Keys, not sessions: the clock moves further than a session token lives.
    const key = async (token: string) => ({ token: (await mintKey(t, token, ['query', 'admin'])).key })
    const first = await signUp(t)
    const second = await signUp(t)
    const a = await createBase(first.token, 'A')
    const b = await createBase(first.token, 'B')
    const c = await createBase(second.token, 'C')
    const s = await key(first.token)
    const other = await key(second.token)
    const start = t.clock.now().getTime()

    // Before the 30-day window: not counted.
    t.clock.set(new Date(start - 40 * DAY_MS))
    await rate(s.token, a, 'up', 5)
    // Day one: A up twice, B down once; another workspace rates its own base.
    t.clock.set(new Date(start))
    await rate(s.token, a, 'up', 2)
    await rate(s.token, b, 'down')
    await rate(other.token, c, 'up', 3)
    await rate(other.token, c, 'down', 4)
    // Day two: A down, B up.
    t.clock.set(new Date(start + DAY_MS))
    await rate(s.token, a, 'down')
    await rate(s.token, b, 'up')

    try {
      const report = await usage(s.token)
      expect(report.totals).toMatchObject({ feedback_up: 3, feedback_down: 2, queries: 0 })
      const base = (id: string) => report.bases.find((x: { corpus_id: string }) => x.corpus_id === id)
      expect(base(a)).toMatchObject({ name: 'A', feedback_up: 2, feedback_down: 1 })
      expect(base(b)).toMatchObject({ name: 'B', feedback_up: 1, feedback_down: 1 })
      expect(report.bases).toHaveLength(2)
      const none = { queries: 0, load_test_queries: 0, compare_queries: 0 }
      expect(report.daily.slice(-2)).toEqual([
        { date: '2026-03-01', ...none, feedback_up: 2, feedback_down: 1 },
        { date: '2026-03-02', ...none, feedback_up: 1, feedback_down: 1 },
      ])
      expect(report.daily.slice(0, -2).every((d: { feedback_up: number }) => d.feedback_up === 0)).toBe(true)

      // The other workspace sees only its own.
      const theirs = await usage(other.token)
      expect(theirs.totals).toMatchObject({ feedback_up: 3, feedback_down: 4 })
      expect(theirs.bases).toEqual([
        expect.objectContaining({ corpus_id: c, feedback_up: 3, feedback_down: 4 }),
      ])

      // Billing reads the same totals.
      const billing = await (await t.request('/v1/admin/billing', { headers: bearer(s.token) })).json()
      expect(billing.usage).toMatchObject({ feedback_up: 3, feedback_down: 2 })
    } finally {
      t.clock.set(new Date(start))
    }
  })
})
