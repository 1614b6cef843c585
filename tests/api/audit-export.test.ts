import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { AuditRepo } from '../../src/features/audit/audit.repo'
import { sha256Hex } from '../../src/platform/crypto/hash'
import { csvCell } from '../../src/platform/http/export-stream'
import type { TestApp } from '../helpers/app'
import { authApp, bearer, expectError, issues, mintKey, mounts, signUp } from './accounts.fixture'

// Issue 36: GET /v1/audit/export streams the log as CSV or JSON Lines, oldest first, with the
// hashes that let anyone check the chain away from the server; CSV cells a spreadsheet would run as
// a formula are neutralised; the export is audited and holds the rows written before it began.

let t: TestApp
let a: Awaited<ReturnType<typeof signUp>>
const COLUMNS =
  'id,seq,created_at,action,actor_type,actor_id,target_type,target_id,details,ip,request_id,prev_hash,hash'

beforeAll(async () => {
  t = authApp()
  a = await signUp(t)
})
afterAll(() => t.close())

async function exported(query: string, token = a.token): Promise<Response> {
  const res = await t.request(`/v1/audit/export?${query}`, { headers: bearer(token) })
  expect(res.status).toBe(200)
  return res
}

/** Reads a body chunk by chunk, as a client does. */
async function chunks(res: Response): Promise<string[]> {
  const out: string[] = []
  const text = new TextDecoder()
  for await (const c of res.body as unknown as AsyncIterable<Uint8Array>) out.push(text.decode(c))
  return out
}

/** A minimal RFC 4180 reader: rows of cells. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"'
        i++
      } else if (ch === '"') quoted = false
      else cell += ch
    } else if (ch === '"') quoted = true
    else if (ch === ',') {
      row.push(cell)
      cell = ''
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(cell)
      rows.push(row)
      row = []
      cell = ''
      i++
    } else cell += ch
  }
  return rows
}

describe('JSON Lines', () => {
  test('every row oldest first with its place and hashes, so the chain checks out away from the server', async () => {
    await mintKey(t, a.token, ['query'])
    await mintKey(t, a.token, ['ingest'])
    const res = await exported('format=jsonl')
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8')
    expect(res.headers.get('content-disposition')).toStartWith(
      `attachment; filename="audit-${a.workspaceId}.jsonl"`,
    )
    expect(res.headers.get('cache-control')).toBe('no-store')
    const lines = (await res.text()).trimEnd().split('\n')
    const rows = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1))
    expect(rows.map((r) => r.action)).toEqual(['auth.sign_in', 'api_key.created', 'api_key.created'])
    expect(Object.keys(rows[0]!).join(',')).toBe(COLUMNS)
    // Checked with nothing but the export and the documented form.
    let prev: unknown = null
    for (const r of rows) {
      expect(r.prev_hash).toBe(prev)
      const form = JSON.stringify([
        'engram.audit.v1',
        r.id,
        a.workspaceId,
        r.seq,
        r.actor_type,
        r.actor_id,
        r.action,
        r.target_type,
        r.target_id,
        JSON.stringify(r.details),
        r.ip,
        r.request_id,
        Date.parse(r.created_at as string),
        r.prev_hash,
      ])
      expect(r.hash).toBe(sha256Hex(form))
      prev = r.hash
    }
  })

  test('holds the rows written before it began; its own audit row is in the next export', async () => {
    const b = await signUp(t)
    const first = (await (await exported('format=jsonl', b.token)).text()).trimEnd().split('\n')
    expect(first.map((l) => JSON.parse(l).action)).toEqual(['auth.sign_in'])
    const second = (await (await exported('format=jsonl', b.token)).text()).trimEnd().split('\n')
    const own = JSON.parse(second[1]!)
    expect(own).toMatchObject({ action: 'audit.exported', actor_id: b.userId, details: { format: 'jsonl' } })
  })

  test('takes the filters of the log', async () => {
    const b = await signUp(t)
    const key = await mintKey(t, b.token, ['query'])
    const text = await (await exported(`format=jsonl&action=api_key.*&target=${key.id}`, b.token)).text()
    expect(
      text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).target_id),
    ).toEqual([key.id])
  })
})

describe('CSV', () => {
  test('a header line, RFC 4180 cells, and the same rows as JSON Lines', async () => {
    const res = await exported('format=csv')
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(res.headers.get('content-disposition')).toStartWith(
      `attachment; filename="audit-${a.workspaceId}.csv"`,
    )
    const table = parseCsv(await res.text())
    expect(table[0]!.join(',')).toBe(COLUMNS)
    const jsonl = (await (await exported('format=jsonl')).text()).trimEnd().split('\n')
    const fromJson = jsonl.map((l) => JSON.parse(l) as Record<string, unknown>)
    // The CSV was taken before the second export's own row: compare what both hold.
    expect(table.length - 1).toBe(fromJson.length - 1)
    table.slice(1).forEach((cells, i) => {
      const r = fromJson[i]!
      expect(cells[0]).toBe(r.id as string)
      expect(Number(cells[1])).toBe(r.seq as number)
      expect(JSON.parse(cells[8]!)).toEqual(r.details)
      expect(cells[12]).toBe(r.hash as string)
    })
  })

  test('cells a spreadsheet would run as a formula are written as text', async () => {
    const b = await signUp(t)
    // Rows whose actor, target and request id a caller chose (an older build, a hostile client).
    const repo = new AuditRepo(t.store)
    const evil = ['=HYPERLINK("http://x","y")', '+1+1', '-2+3', '@SUM(A1)', '\tcmd', '\r=1']
    for (const [i, v] of evil.entries()) {
      await t.store.unit(() =>
        repo.append({
          id: `aud_evil_${i}`,
          workspaceId: b.workspaceId,
          actorType: 'user',
          actorId: v,
          action: 'test.formula',
          targetType: 'document',
          targetId: v,
          requestId: v,
          createdAt: i,
        }),
      )
    }
    const text = await (await exported('format=csv&action=test.formula', b.token)).text()
    const table = parseCsv(text).slice(1)
    expect(table.map((c) => [c[5], c[7], c[10]])).toEqual(evil.map((v) => [`'${v}`, `'${v}`, `'${v}`]))
    for (const cells of table) for (const c of cells) expect(c).not.toMatch(/^[=+\-@\t\r]/)
  })

  test('csvCell quotes what needs it and leaves numbers alone', () => {
    expect(csvCell('plain')).toBe('plain')
    expect(csvCell('a,b')).toBe('"a,b"')
    expect(csvCell('say "hi"')).toBe('"say ""hi"""')
    expect(csvCell('two\nlines')).toBe('"two\nlines"')
    expect(csvCell(' padded ')).toBe('" padded "')
    expect(csvCell('=1+1')).toBe("'=1+1")
    expect(csvCell('=a,b')).toBe(`"'=a,b"`)
    expect(csvCell(-5)).toBe('-5')
    expect(csvCell(null)).toBe('')
    expect(csvCell({ k: '=x' })).toBe('"{""k"":""=x""}"')
  })
})

describe('streaming', () => {
  test('a long log arrives a batch at a time, every row once, in order', async () => {
    const b = await signUp(t)
    const repo = new AuditRepo(t.store)
    const n = 4500
    await t.store.unit(async () => {
      for (let i = 0; i < n; i++) {
        await repo.append({
          id: `aud_bulk_${i}`,
          workspaceId: b.workspaceId,
          actorType: 'system',
          action: 'test.bulk',
          createdAt: i,
        })
      }
    })
    const parts = await chunks(await exported('format=jsonl&action=test.bulk', b.token))
    // One chunk per batch of at most 1000 rows read from the database.
    expect(parts.length).toBe(5)
    const lines = parts.join('').trimEnd().split('\n')
    expect(lines.length).toBe(n)
    expect(lines.map((l) => JSON.parse(l).id)).toEqual(Array.from({ length: n }, (_, i) => `aud_bulk_${i}`))
    for (const p of parts) expect(p.split('\n').length - 1).toBeLessThanOrEqual(1000)
    // 4,500 appends, each reading its chain's end: 2-4 s on a loaded machine, on either engine.
  }, 30_000)
})

describe('refusals', () => {
  test('an unknown format or a bad filter is a 422 and exports nothing', async () => {
    for (const path of mounts('/audit/export')) {
      for (const [q, field] of [
        ['format=xlsx', 'format'],
        ['since=soon', 'since'],
      ] as const) {
        const res = await t.request(`${path}?${q}`, { headers: bearer(a.token) })
        expect((await issues(res, path)).map((i) => i.loc)).toEqual([['query', field]])
      }
    }
    const before = await t.sql.get("SELECT count(*) AS n FROM audit_events WHERE action = 'audit.exported'")
    const res = await t.request('/v1/audit/export?since=2026-03-02T00:00:00Z&until=2026-03-01T00:00:00Z', {
      headers: bearer(a.token),
    })
    await expectError(res, '/v1/audit/export', 422, 'validation_error', '`until` must be after `since`.')
    expect(await t.sql.get("SELECT count(*) AS n FROM audit_events WHERE action = 'audit.exported'")).toEqual(
      before,
    )
  })
})
