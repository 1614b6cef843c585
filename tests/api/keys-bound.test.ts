import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { remoteBackend } from '../../src/features/mcp/lib/remote'
import type { TestApp } from '../helpers/app'
import { type ReadyBase, readyBase, train, upload } from '../helpers/ready-base'
import {
  auditRows,
  authApp,
  bearer,
  expectError,
  issues,
  mintKey,
  mounts,
  signUp,
  snapshot,
} from './accounts.fixture'
import { call, FILES, mcpClient } from './mcp.fixture'

// Issue 35: an API key bound to some bases (`corpus_ids`) reaches only those. Another base of its
// own workspace answers as a missing one would (404), is never listed, and the routes that act on
// the whole workspace refuse it (403 `key_bound_to_bases`); the MCP tools see the same.

let t: TestApp
/** Base A (FILES), in the workspace that also holds base B. */
let a: ReadyBase
/** Base B of the same workspace, its document and its onboarding job. */
let b: { corpusId: string; docId: string; jobId: string }
/** Keys of a's workspace holding every scope: bound to A, and bound to nothing. */
let bound: { id: string; key: string }
let unbound: string
let jobA: string
beforeAll(async () => {
  t = authApp()
  a = await readyBase(t, FILES, 'Base A')
  const created = await t.request('/v1/corpora', {
    method: 'POST',
    headers: bearer(a.adminToken),
    json: { name: 'Base B' },
  })
  const corpusId = ((await created.json()) as { id: string }).id
  const [doc] = await upload(t, a.adminToken, corpusId, [
    { path: 'secret.txt', text: 'The launch code of base B is 0000.' },
  ])
  const job = await train(t, a.adminToken, corpusId)
  b = { corpusId, docId: doc!.id, jobId: job.id }
  jobA = (await train(t, a.adminToken, a.corpusId, true)).id
  bound = await mintKey(t, a.adminToken, ['ingest', 'query', 'admin'], { corpus_ids: [a.corpusId] })
  unbound = (await mintKey(t, a.adminToken, ['ingest', 'query', 'admin'])).key
})
afterAll(() => t.close())

const get = (path: string, token = bound.key) => t.request(path, { headers: bearer(token) })
const post = (path: string, json: unknown, token = bound.key) =>
  t.request(path, { method: 'POST', headers: bearer(token), json })

describe('creating a key bound to bases', () => {
  test('corpus_ids is kept in the order given and shown on create, list and /auth/me; null when unbound', async () => {
    const s = await signUp(t)
    const one = (await (await post('/v1/corpora', { name: 'One' }, s.token)).json()).id as string
    const two = (await (await post('/v1/corpora', { name: 'Two' }, s.token)).json()).id as string
    for (const path of mounts('/api-keys')) {
      const res = await post(path, { name: 'Two bases', scopes: ['query'], corpus_ids: [two, one] }, s.token)
      expect(res.status).toBe(200)
      const key = await res.json()
      expect(key).toMatchObject({ name: 'Two bases', scopes: ['query'], corpus_ids: [two, one] })
      const listed = await (await get(path, s.token)).json()
      const items = (path.startsWith('/v1') ? listed.items : listed) as { id: string; corpus_ids: unknown }[]
      expect(items.find((k) => k.id === key.id)?.corpus_ids).toEqual([two, one])
      expect((await (await get('/v1/auth/me', key.key)).json()).key.corpus_ids).toEqual([two, one])
      const all = await (
        await post(path, { name: 'All', scopes: ['query'], corpus_ids: null }, s.token)
      ).json()
      expect(all.corpus_ids).toBeNull()
    }
  })

  test('the audit row of a bound key names its bases', async () => {
    const row = (await auditRows(t, 'api_key.created')).find((r) => r.target_id === bound.id)
    expect(JSON.parse(row!.details)).toEqual({
      name: 'key ingest+query+admin',
      prefix: bound.key.slice(0, 12),
      scopes: ['ingest', 'query', 'admin'],
      corpus_ids: [a.corpusId],
    })
  })

  test('an empty list, a repeated id, a non-string or over 100 ids are 422s that write nothing', async () => {
    const before = await snapshot(t)
    const cases: [unknown, (string | number)[]][] = [
      [[], ['body', 'corpus_ids']],
      [
        [a.corpusId, a.corpusId],
        ['body', 'corpus_ids', 1],
      ],
      [[42], ['body', 'corpus_ids']],
      [a.corpusId, ['body', 'corpus_ids']],
      [Array.from({ length: 101 }, (_, i) => `cor_${i}`), ['body', 'corpus_ids']],
    ]
    for (const path of mounts('/api-keys')) {
      for (const [corpusIds, loc] of cases) {
        const res = await post(path, { name: 'k', scopes: ['query'], corpus_ids: corpusIds }, a.adminToken)
        const found = await issues(res, path)
        expect(found.map((i) => i.loc.slice(0, loc.length))).toContainEqual(loc)
      }
    }
    expect(await snapshot(t)).toEqual(before)
  })

  test("an unknown base and another workspace's base are the same 404, naming the id, writing nothing", async () => {
    const other = await signUp(t)
    const theirs = (await (await post('/v1/corpora', { name: 'Theirs' }, other.token)).json()).id as string
    const before = await snapshot(t)
    for (const path of mounts('/api-keys')) {
      for (const id of [theirs, 'cor_missing']) {
        const res = await post(
          path,
          { name: 'k', scopes: ['query'], corpus_ids: [a.corpusId, id] },
          a.adminToken,
        )
        await expectError(res, path, 404, 'not_found', `Document base not found: ${id}.`)
      }
    }
    expect(await snapshot(t)).toEqual(before)
  })
})

describe('a key bound to base A', () => {
  test('lists base A only, on both mounts, with a total of one', async () => {
    for (const path of mounts('/corpora')) {
      const res = await get(path)
      expect(res.status).toBe(200)
      const body = await res.json()
      const items = (path.startsWith('/v1') ? body.items : body) as { id: string }[]
      expect(items.map((c) => c.id)).toEqual([a.corpusId])
      if (path.startsWith('/v1')) expect(res.headers.get('x-total-count')).toBe('1')
    }
    const all = await (await get('/v1/corpora', unbound)).json()
    // Both created at the same instant of the test clock: listed by id then, so the order is the ids'.
    expect(all.items.map((c: { id: string }) => c.id)).toEqual([b.corpusId, a.corpusId].sort().reverse())
  })

  test('pages over its bases as the whole listing does', async () => {
    const s = await signUp(t)
    const ids: string[] = []
    for (const name of ['1', '2', '3', '4']) {
      ids.push((await (await post('/v1/corpora', { name }, s.token)).json()).id)
      t.clock.advance(1000)
    }
    const key = await mintKey(t, s.token, ['query'], { corpus_ids: [ids[0], ids[2], ids[3]] })
    const first = await get('/v1/corpora?limit=2', key.key)
    const page1 = await first.json()
    expect(page1.items.map((c: { id: string }) => c.id)).toEqual([ids[3], ids[2]])
    expect(first.headers.get('x-total-count')).toBe('3')
    const page2 = await (await get(`/v1/corpora?limit=2&cursor=${page1.next_cursor}`, key.key)).json()
    expect(page2).toMatchObject({ items: [{ id: ids[0] }], next_cursor: null })
  })

  test("answers 404 for base B's base, documents, jobs and chat, as for a base that does not exist", async () => {
    const missing = await (await get('/v1/corpora/cor_missing')).json()
    for (const path of [
      `/v1/corpora/${b.corpusId}`,
      `/v1/corpora/${b.corpusId}/documents`,
      `/v1/corpora/${b.corpusId}/documents/${b.docId}/text`,
      `/v1/corpora/${b.corpusId}/jobs`,
      `/v1/mcp/${b.corpusId}/meta`,
    ]) {
      const res = await get(path)
      expect(res.status).toBe(404)
      const body = await res.json()
      expect({ ...body.error, request_id: null }).toEqual({ ...missing.error, request_id: null })
      expect((await get(path, unbound)).status).toBe(200)
    }
    await expectError(await get(`/v1/jobs/${b.jobId}`), '/v1', 404, 'not_found', 'Job not found.')
    expect((await get(`/v1/jobs/${jobA}`)).status).toBe(200)
    for (const path of [`/v1/corpora/${b.corpusId}/chat`, `/v1/mcp/${b.corpusId}/query`]) {
      const res = await post(path, { question: 'What is the launch code?' })
      await expectError(res, path, 404, 'not_found', 'Document base not found.')
    }
    const own = await post(`/v1/corpora/${a.corpusId}/chat`, { question: 'Where does the Rhine begin?' })
    expect(own.status).toBe(200)
  })

  test('is refused, writing nothing, where the whole workspace is acted on', async () => {
    const before = await snapshot(t)
    const message =
      'This API key is bound to some bases: it cannot act on the whole workspace (create a base, manage keys, members, connections or billing, read usage).'
    for (const [method, path, json] of [
      ['POST', '/corpora', { name: 'New' }],
      ['POST', '/api-keys', { name: 'Escalate', scopes: ['admin'] }],
      ['GET', '/api-keys', undefined],
      ['GET', '/admin/usage', undefined],
      ['GET', '/admin/members', undefined],
      ['POST', '/admin/invites', { email: 'escalate@example.com', role: 'admin' }],
      ['GET', '/v1/connections', undefined],
    ] as const) {
      for (const mounted of path.startsWith('/v1') ? [path] : mounts(path)) {
        const res = await t.request(mounted, { method, headers: bearer(bound.key), json })
        await expectError(res, mounted, 403, 'key_bound_to_bases', message)
      }
    }
    expect(await snapshot(t)).toEqual(before)
  })
})

describe('the API description', () => {
  test('documents key_bound_to_bases on the routes that refuse a bound key, and only there', async () => {
    const doc = await (await t.request('/openapi.json')).json()
    const refusal = (path: string, method: string) =>
      String(doc.paths[path][method].responses['403']?.description ?? '').includes('`key_bound_to_bases`')
    expect(refusal('/v1/corpora', 'post')).toBe(true)
    expect(refusal('/v1/api-keys', 'post')).toBe(true)
    expect(refusal('/v1/admin/usage', 'get')).toBe(true)
    expect(refusal('/v1/corpora', 'get')).toBe(false)
    expect(refusal('/v1/jobs/{job_id}', 'get')).toBe(false)
    expect(refusal('/v1/corpora/{corpus_id}', 'get')).toBe(false)
    // A route for sessions only cannot meet a key at all.
    expect(refusal('/v1/auth/change-password', 'post')).toBe(false)
    const create = doc.components.schemas.ApiKeyCreateReq.properties.corpus_ids
    expect(JSON.stringify(create)).toContain('"maxItems":100')
  })
})

describe('the MCP tools with a key bound to base A', () => {
  let client: Client
  beforeAll(async () => {
    client = await mcpClient('http://engram.test/mcp-http/', bound.key, (input, init) =>
      t.handle(new Request(input, init)),
    )
  })
  afterAll(() => client.close())

  test('the hosted server lists base A only and answers not_found for base B on every tool', async () => {
    const bases = await call(client, 'list_bases', {})
    expect((bases.data.bases as { id: string }[]).map((x) => x.id)).toEqual([a.corpusId])
    expect(bases.text).not.toContain(b.corpusId)
    for (const [name, args] of [
      ['query_base', { base_id: b.corpusId, question: 'What is the launch code?' }],
      ['list_documents', { base_id: b.corpusId }],
      ['read_document', { base_id: b.corpusId, document_id: b.docId }],
      ['read_document', { base_id: a.corpusId, document_id: b.docId }],
    ] as const) {
      const r = await call(client, name, args)
      expect(r.result.isError).toBe(true)
      expect(r.text).toEndWith('(not_found)')
      expect(r.text).not.toContain('0000')
    }
    const own = await call(client, 'query_base', {
      base_id: a.corpusId,
      question: 'Where does the Rhine begin?',
    })
    expect(own.text).toContain('Graubünden')
  })

  test('engram mcp --url forwards to routes that see base A only', async () => {
    const remote = remoteBackend({
      url: 'http://engram.test',
      key: bound.key,
      fetch: (input, init) => t.handle(new Request(input, init)),
    })
    expect((await remote.bases()).map((x) => x.id)).toEqual([a.corpusId])
    for (const attempt of [
      () => remote.query(b.corpusId, { question: 'What is the launch code?' }),
      () => remote.documents(b.corpusId, {}),
      () => remote.text(b.corpusId, b.docId, {}),
    ]) {
      await expect(attempt()).rejects.toMatchObject({ code: 'not_found', status: 404 })
    }
    expect((await remote.documents(a.corpusId, {})).total).toBe(FILES.length)
  })
})
