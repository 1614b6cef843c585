import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { TestApp } from '../helpers/app'
import { addMember, authApp, bearer, expectError, issues, mintKey, mounts, signUp } from './accounts.fixture'

// Issue 36: GET /v1/usage/export streams a workspace's daily counters per base, between two days,
// as CSV or JSON Lines; bad days are 422s, admins only, other workspaces never, and it is audited.

let t: TestApp
let a: Awaited<ReturnType<typeof signUp>>
let b: Awaited<ReturnType<typeof signUp>>

type Counts = [workspaceId: string, corpusId: string, day: string, q: number, load?: number, compare?: number]

/** Counter rows as the usage subscriber writes them (`corpus_id` '' for counts of no base), in one statement. */
async function counts(...rows: Counts[]): Promise<void> {
  const values = rows.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')
  await t.sql.run(
    `INSERT INTO usage_daily (workspace_id, corpus_id, day, queries, load_test_queries, compare_queries)
     VALUES ${values}`,
    ...rows.flatMap(([ws, corpus, day, q, load = 0, compare = 0]) => [ws, corpus, day, q, load, compare]),
  )
}

beforeAll(async () => {
  t = authApp()
  a = await signUp(t)
  b = await signUp(t)
  await counts(
    [a.workspaceId, 'cor_b', '2026-02-27', 4],
    [a.workspaceId, 'cor_a', '2026-02-27', 2, 10, 1],
    [a.workspaceId, '', '2026-02-28', 1],
    [a.workspaceId, 'cor_a', '2026-03-01', 7],
    [b.workspaceId, 'cor_x', '2026-02-28', 99],
  )
})
afterAll(() => t.close())

async function exported(query: string, token = a.token): Promise<Response> {
  const res = await t.request(`/v1/usage/export?${query}`, { headers: bearer(token) })
  expect(res.status).toBe(200)
  return res
}

const jsonl = async (res: Response) =>
  (await res.text())
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l))

describe('the export', () => {
  test('JSON Lines: a line per day and base, oldest day first, only this workspace', async () => {
    const res = await exported('format=jsonl')
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8')
    expect(res.headers.get('content-disposition')).toStartWith(
      `attachment; filename="usage-${a.workspaceId}.jsonl"`,
    )
    expect(await jsonl(res)).toEqual([
      { day: '2026-02-27', corpus_id: 'cor_a', queries: 2, load_test_queries: 10, compare_queries: 1 },
      { day: '2026-02-27', corpus_id: 'cor_b', queries: 4, load_test_queries: 0, compare_queries: 0 },
      { day: '2026-02-28', corpus_id: null, queries: 1, load_test_queries: 0, compare_queries: 0 },
      { day: '2026-03-01', corpus_id: 'cor_a', queries: 7, load_test_queries: 0, compare_queries: 0 },
    ])
  })

  test('from and to are inclusive days', async () => {
    const days = (await jsonl(await exported('from=2026-02-28&to=2026-03-01'))).map((r) => r.day)
    expect(days).toEqual(['2026-02-28', '2026-03-01'])
    expect(await jsonl(await exported('from=2026-02-28&to=2026-02-28'))).toEqual([
      { day: '2026-02-28', corpus_id: null, queries: 1, load_test_queries: 0, compare_queries: 0 },
    ])
    expect(await jsonl(await exported('from=2027-01-01'))).toEqual([])
  })

  test('CSV: a header line and the same rows', async () => {
    const res = await exported('format=csv&to=2026-02-28')
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(await res.text()).toBe(
      [
        'day,corpus_id,queries,load_test_queries,compare_queries',
        '2026-02-27,cor_a,2,10,1',
        '2026-02-27,cor_b,4,0,0',
        '2026-02-28,,1,0,0',
        '',
      ].join('\r\n'),
    )
    // An empty export is its header alone.
    expect(await (await exported('format=csv&from=2030-01-01')).text()).toBe(
      'day,corpus_id,queries,load_test_queries,compare_queries\r\n',
    )
  })

  test('a long export arrives a batch at a time, every row once', async () => {
    const c = await signUp(t)
    // Five statements of 500 rows (a statement takes at most 32766 parameters on SQLite).
    for (let from = 0; from < 2500; from += 500)
      await counts(
        ...Array.from({ length: 500 }, (_, k): Counts => {
          const i = from + k
          return [c.workspaceId, `cor_${String(i).padStart(5, '0')}`, '2026-01-01', i]
        }),
      )
    const res = await exported('format=jsonl', c.token)
    const parts: string[] = []
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
      parts.push(new TextDecoder().decode(chunk))
    expect(parts.length).toBe(3)
    const rows = parts
      .join('')
      .split('\n')
      .filter((l) => l)
      .map((l) => JSON.parse(l))
    expect(rows.map((r) => r.queries)).toEqual(Array.from({ length: 2500 }, (_, i) => i))
  })

  test('is audited: who exported which days in which format', async () => {
    const d = await signUp(t)
    await (await exported('format=csv&from=2026-02-01&to=2026-02-28', d.token)).text()
    const rows = await t.sql.all<{ actor_id: string; details: string }>(
      "SELECT actor_id, details FROM audit_events WHERE workspace_id = ? AND action = 'usage.exported'",
      d.workspaceId,
    )
    expect(rows.map((r) => [r.actor_id, JSON.parse(r.details)])).toEqual([
      [d.userId, { format: 'csv', from: '2026-02-01', to: '2026-02-28' }],
    ])
  })
})

describe('refusals', () => {
  test('a day that is not one, or from after to, is a 422 naming the field, and nothing is exported', async () => {
    const audited = () => t.sql.get("SELECT count(*) AS n FROM audit_events WHERE action = 'usage.exported'")
    const before = await audited()
    for (const path of mounts('/usage/export')) {
      for (const [q, field] of [
        ['from=2026-02-30', 'from'],
        ['to=2026-13-01', 'to'],
        ['from=yesterday', 'from'],
        ['to=2026-3-1', 'to'],
        ['format=xlsx', 'format'],
        ['from=2026-03-02&to=2026-03-01', 'to'],
      ] as const) {
        const res = await t.request(`${path}?${q}`, { headers: bearer(a.token) })
        expect((await issues(res, path)).map((i) => i.loc)).toEqual([['query', field]])
      }
    }
    expect(await audited()).toEqual(before)
  })

  test("admins only; another workspace's counters never", async () => {
    const member = await addMember(t, a.token)
    const key = await mintKey(t, a.token, ['query', 'ingest'])
    const path = '/v1/usage/export'
    await expectError(await t.request(path, { headers: bearer(member.token) }), path, 403, 'admin_required')
    await expectError(await t.request(path, { headers: bearer(key.key) }), path, 403, 'missing_scope')
    await expectError(await t.request(path), path, 401, 'unauthorized')
    const theirs = await jsonl(await exported('', b.token))
    expect(theirs).toEqual([
      { day: '2026-02-28', corpus_id: 'cor_x', queries: 99, load_test_queries: 0, compare_queries: 0 },
    ])
    const admin = await mintKey(t, a.token, ['admin'])
    expect((await jsonl(await exported('', admin.key))).map((r) => r.queries)).not.toContain(99)
  })
})
