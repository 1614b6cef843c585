import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { TestApp } from '../helpers/app'
import { type ReadyBase, readyBase, upload } from '../helpers/ready-base'
import { authApp, bearer, expectError, issues, mintKey, mounts } from './accounts.fixture'
import { FILES, LONG_TEXT, mcpTenants } from './mcp.fixture'

let t: TestApp
let b: ReadyBase
let other: ReadyBase
beforeAll(async () => {
  t = authApp()
  ;({ b, other } = await mcpTenants(t))
})
afterAll(() => t.close())

const query = (path: string, json: unknown, key = b.keys.query) =>
  t.request(path, { method: 'POST', headers: bearer(key), json })
const docs = (path: string, key = b.keys.query) => t.request(path, { headers: bearer(key) })

describe('POST /mcp/{corpus_id}/query', () => {
  for (const path of mounts('/mcp/BASE/query')) {
    test(`${path}: answers with sources whose ids are the pinnable ids of the inventory`, async () => {
      const res = await query(path.replace('BASE', b.corpusId), {
        question: 'Where does the Rhine begin?',
        strategy: 'rag',
      })
      expect(res.status).toBe(200)
      const body = await res.json()
      expect(body.answer).toContain('Graubünden')
      expect(body.used_docs[0]).toBe(b.docs['rhine.txt'])
      const inventory = await (await docs(`/v1/mcp/${b.corpusId}/documents`)).json()
      const pinnable = new Set(inventory.items.map((d: { id: string }) => d.id))
      for (const id of body.used_docs) expect(pinnable.has(id)).toBe(true)
      for (const s of body.sources) {
        expect(s.id).toBe(s.document_id)
        expect(pinnable.has(s.id)).toBe(true)
        expect(s.passage_id).toStartWith(s.document_id)
      }
    })
  }

  test('a document id from one answer pins the next question to that document', async () => {
    const first = await (
      await query(`/v1/mcp/${b.corpusId}/query`, {
        question: 'When did the oil crisis begin?',
        strategy: 'rag',
      })
    ).json()
    const pinned = first.sources[0].id
    expect(pinned).toBe(b.docs['oil.txt'])
    for (const strategy of ['cart', 'rag']) {
      const res = await query(`/v1/mcp/${b.corpusId}/query`, {
        question: 'Where does the river begin?',
        doc_ids: [pinned],
        strategy,
      })
      expect(res.status).toBe(200)
      const body = await res.json()
      expect(body.sources.length).toBeGreaterThan(0)
      expect(body.sources.every((s: { id: string }) => s.id === pinned)).toBe(true)
      // The pinned document does not say where the river begins: the answer says so, using no document.
      expect(body).toMatchObject({ answered: false, used_docs: [] })
    }
  })

  test('refuses without a valid API key (401) and refuses a user session (403 api_key_required)', async () => {
    for (const path of mounts(`/mcp/${b.corpusId}/query`)) {
      const none = await t.request(path, { method: 'POST', json: { question: 'x' } })
      await expectError(none, path, 401, 'unauthorized')
      await expectError(await query(path, { question: 'x' }, 'ek_notakey'), path, 401, 'unauthorized')
      const session = await query(path, { question: 'Where does the Rhine begin?' }, b.adminToken)
      await expectError(
        session,
        path,
        403,
        'api_key_required',
        'This route is for agents: authenticate with an API key (Authorization: Bearer ek_...), not a session.',
      )
    }
  })

  test('needs the query scope (403) and answers 404 for another workspace base', async () => {
    for (const path of mounts(`/mcp/${b.corpusId}/query`)) {
      const refused = await query(path, { question: 'x' }, b.keys.ingest)
      await expectError(refused, path, 403, 'missing_scope', 'API key missing required scope: query')
    }
    for (const path of mounts(`/mcp/${other.corpusId}/query`)) {
      await expectError(await query(path, { question: 'launch code?' }), path, 404, 'not_found')
    }
  })

  test('bad requests: 422 for an empty question or k out of range, 400 for pins not in the base', async () => {
    for (const path of mounts(`/mcp/${b.corpusId}/query`)) {
      const empty = await issues(await query(path, { question: '' }), path)
      expect(empty[0]!.loc).toEqual(['body', 'question'])
      const k = await issues(await query(path, { question: 'x', k: 101 }), path)
      expect(k[0]!.loc).toEqual(['body', 'k'])
      // Another workspace's document is not in this base.
      const foreign = other.docs['secret.txt']!
      const res = await query(path, { question: 'x', doc_ids: [foreign] })
      await expectError(
        res,
        path,
        400,
        'unknown_documents',
        `These document ids are not in the base: ${foreign}.`,
      )
    }
  })

  test('a base that is not onboarded answers 409 corpus_not_ready', async () => {
    const created = await t.request('/v1/corpora', {
      method: 'POST',
      headers: bearer(b.adminToken),
      json: { name: 'Empty' },
    })
    const id = (await created.json()).id
    for (const path of mounts(`/mcp/${id}/query`)) {
      await expectError(await query(path, { question: 'x' }), path, 409, 'corpus_not_ready')
    }
  })
})

describe('GET /mcp/{corpus_id}/documents', () => {
  for (const path of mounts('/mcp/BASE/documents')) {
    test(`${path}: lists files by filename with the McpDocsResp shape and defaults`, async () => {
      const res = await docs(path.replace('BASE', b.corpusId))
      expect(res.status).toBe(200)
      const body = await res.json()
      expect(Object.keys(body)).toEqual(['items', 'total', 'limit', 'offset'])
      expect(body).toMatchObject({ total: 4, limit: 50, offset: 0 })
      expect(body.items.map((d: { filename: string }) => d.filename)).toEqual([
        'manual.txt',
        'notes/alpine.md',
        'oil.txt',
        'rhine.txt',
      ])
      const rhine = body.items[3]
      expect(Object.keys(rhine)).toEqual(['id', 'filename', 'title', 'description', 'status', 'size'])
      expect(rhine).toEqual({
        id: b.docs['rhine.txt'],
        filename: 'rhine.txt',
        title: 'rhine',
        description: FILES[1]!.text,
        status: 'ready',
        size: Buffer.byteLength(FILES[1]!.text),
      })
      // The title extraction found; the description starts after the heading that repeats it.
      expect(body.items[1]).toMatchObject({
        title: 'Alpine notes',
        description:
          'Glaciers of the Alps have lost half their volume since 1900, measured by the Swiss survey.',
      })
      // A long text is described by its opening, cut at a sentence or a word.
      expect(body.items[0].description.length).toBeLessThanOrEqual(240)
      expect(LONG_TEXT.replace(/\s+/g, ' ')).toStartWith(body.items[0].description.replace(/…$/, ''))
    })
  }

  test('q matches the filename or the description, case-insensitively; total counts the matches', async () => {
    const byName = await (await docs(`/v1/mcp/${b.corpusId}/documents?q=RHINE`)).json()
    expect(byName.items.map((d: { id: string }) => d.id)).toEqual([b.docs['rhine.txt']])
    expect(byName.total).toBe(1)
    const byDescription = await (await docs(`/mcp/${b.corpusId}/documents?q=glaciers%20OF`)).json()
    expect(byDescription.items.map((d: { filename: string }) => d.filename)).toEqual(['notes/alpine.md'])
    const folder = await (await docs(`/v1/mcp/${b.corpusId}/documents?q=notes/`)).json()
    expect(folder.total).toBe(1)
    const none = await (await docs(`/v1/mcp/${b.corpusId}/documents?q=zeppelin`)).json()
    expect(none).toEqual({ items: [], total: 0, limit: 50, offset: 0 })
  })

  test('limit and offset page the filtered list', async () => {
    const page = await (await docs(`/v1/mcp/${b.corpusId}/documents?limit=2&offset=1`)).json()
    expect(page.items.map((d: { filename: string }) => d.filename)).toEqual(['notes/alpine.md', 'oil.txt'])
    expect(page).toMatchObject({ total: 4, limit: 2, offset: 1 })
    const past = await (await docs(`/v1/mcp/${b.corpusId}/documents?offset=10`)).json()
    expect(past).toEqual({ items: [], total: 4, limit: 50, offset: 10 })
    const filtered = await (await docs(`/v1/mcp/${b.corpusId}/documents?q=.txt&limit=1&offset=2`)).json()
    expect(filtered).toMatchObject({ total: 3, limit: 1, offset: 2 })
    expect(filtered.items[0].filename).toBe('rhine.txt')
  })

  test('out-of-range limit or offset is a 422 naming the parameter', async () => {
    for (const [qs, field] of [
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=ten', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=x', 'offset'],
    ] as const) {
      for (const path of mounts(`/mcp/${b.corpusId}/documents?${qs}`)) {
        const found = await issues(await docs(path), path)
        expect(found[0]!.loc).toEqual(['query', field])
      }
    }
    const ok = await docs(`/v1/mcp/${b.corpusId}/documents?limit=200`)
    expect(ok.status).toBe(200)
  })

  test('any API key of the workspace may list; sessions, bad keys and other workspaces may not', async () => {
    expect((await docs(`/v1/mcp/${b.corpusId}/documents`, b.keys.ingest)).status).toBe(200)
    for (const path of mounts(`/mcp/${b.corpusId}/documents`)) {
      await expectError(await t.request(path), path, 401, 'unauthorized')
      await expectError(await docs(path, b.adminToken), path, 403, 'api_key_required')
    }
    for (const path of mounts(`/mcp/${other.corpusId}/documents`)) {
      await expectError(await docs(path), path, 404, 'not_found')
    }
  })

  test('a revoked key is refused on its very next call', async () => {
    const key = await mintKey(t, b.adminToken, ['query'])
    expect((await docs(`/v1/mcp/${b.corpusId}/documents`, key.key)).status).toBe(200)
    const revoked = await t.request(`/v1/api-keys/${key.id}`, {
      method: 'DELETE',
      headers: bearer(b.adminToken),
    })
    expect(revoked.status).toBe(200)
    const path = `/v1/mcp/${b.corpusId}/documents`
    await expectError(await docs(path, key.key), path, 401, 'unauthorized', 'This API key has been revoked.')
  })
})

describe('GET /v1/mcp/{id}/meta', () => {
  test('answers identity, status, catalog description and endpoints to any credential', async () => {
    for (const token of [b.keys.ingest, b.adminToken]) {
      const res = await t.request(`/v1/mcp/${b.corpusId}/meta`, { headers: bearer(token) })
      expect(res.status).toBe(200)
      const body = await res.json()
      expect(body).toMatchObject({
        id: b.corpusId,
        name: 'Fixture base',
        status: 'ready',
        description: null,
        n_documents: 4,
        documents_ready: 4,
        endpoints: {
          query: `/v1/mcp/${b.corpusId}/query`,
          documents: `/v1/mcp/${b.corpusId}/documents`,
          mcp: '/mcp-http/',
        },
      })
    }
  })

  test('shows the description once described; 401 without a credential, 404 for another workspace; v1 only', async () => {
    const described = await t.request(`/v1/corpora/${b.corpusId}/describe`, {
      method: 'POST',
      headers: bearer(b.keys.admin),
    })
    expect(described.status).toBe(200)
    const { description } = await described.json()
    const meta = await (
      await t.request(`/v1/mcp/${b.corpusId}/meta`, { headers: bearer(b.keys.query) })
    ).json()
    expect(meta.description).toBe(description)
    const anonymous = `/v1/mcp/${b.corpusId}/meta`
    await expectError(await t.request(anonymous), anonymous, 401, 'unauthorized')
    const path = `/v1/mcp/${other.corpusId}/meta`
    await expectError(await t.request(path, { headers: bearer(b.keys.query) }), path, 404, 'not_found')
    expect((await t.request(`/mcp/${b.corpusId}/meta`, { headers: bearer(b.keys.query) })).status).toBe(404)
  })
})

describe('GET /v1/mcp/{corpus_id}/documents/{document_id}/text', () => {
  const textPath = (doc: string, qs = '') => `/v1/mcp/${b.corpusId}/documents/${doc}/text${qs}`

  test('pages a long text by characters and says what is left', async () => {
    const id = b.docs['manual.txt']!
    let offset: number | null = 0
    let joined = ''
    let pages = 0
    while (offset !== null) {
      const res = await docs(textPath(id, `?offset=${offset}&limit=2000`))
      expect(res.status).toBe(200)
      const page = await res.json()
      expect(page.total_chars).toBe(LONG_TEXT.length)
      expect(page.remaining_chars).toBe(LONG_TEXT.length - offset - page.text.length)
      joined += page.text
      offset = page.next_offset
      pages++
    }
    expect(joined).toBe(LONG_TEXT)
    expect(pages).toBe(Math.ceil(LONG_TEXT.length / 2000))
  })

  test('a long file is listed once; its section ids read their section and pin the file', async () => {
    const chapters = Array.from(
      { length: 30 },
      (_, i) => `# Chapter ${i + 1}\n\n${`Chapter ${i + 1} is about topic ${i + 1}. `.repeat(60).trim()}`,
    )
    const book = await readyBase(t, [{ path: 'book.md', text: chapters.join('\n\n'), type: 'text/markdown' }])
    const key = { headers: bearer(book.keys.query) }
    const listed = await (await t.request(`/v1/mcp/${book.corpusId}/documents`, key)).json()
    expect(listed.items.map((d: { id: string }) => d.id)).toEqual([book.docs['book.md']])
    const all = await (
      await t.request(`/v1/corpora/${book.corpusId}/documents?sections=true&limit=100`, key)
    ).json()
    const section = all.items.find((d: { title: string | null }) => d.title === 'Chapter 7')
    expect(section.parent_id).toBe(book.docs['book.md'])
    const read = await (
      await t.request(`/v1/mcp/${book.corpusId}/documents/${section.id}/text?limit=50000`, key)
    ).json()
    expect(read).toMatchObject({ id: section.id, filename: 'book.md', title: 'Chapter 7', next_offset: null })
    expect(read.text).toStartWith(chapters[6]!)
    // The section is a slice of its file's text.
    const whole = await (
      await t.request(`/v1/mcp/${book.corpusId}/documents/${book.docs['book.md']}/text?limit=50000`, key)
    ).json()
    expect(whole.total_chars).toBe(chapters.join('\n\n').length)
    expect(read.total_chars).toBeLessThan(whole.total_chars)
    expect(whole.text).toContain(read.text)
    const pinned = await (
      await t.request(`/v1/mcp/${book.corpusId}/query`, {
        method: 'POST',
        ...key,
        json: { question: 'What is chapter 9 about?', doc_ids: [section.id] },
      })
    ).json()
    expect(pinned.used_docs).toEqual([book.docs['book.md']])
  })

  test('refuses unknown documents (404), keys without query (403), and unextracted text (409)', async () => {
    const missing = textPath('doc_missing')
    await expectError(await docs(missing), missing, 404, 'not_found', 'Document not found.')
    const foreign = textPath(other.docs['secret.txt']!)
    await expectError(await docs(foreign), foreign, 404, 'not_found')
    const scoped = textPath(b.docs['oil.txt']!)
    await expectError(await t.request(scoped), scoped, 401, 'unauthorized')
    await expectError(await docs(scoped, b.adminToken), scoped, 403, 'api_key_required')
    await expectError(await docs(scoped, b.keys.ingest), scoped, 403, 'missing_scope')
    // HTML waits for its extraction job (a small plain file would be read as it is uploaded).
    const [fresh] = await upload(t, b.adminToken, b.corpusId, [
      { path: 'fresh.html', text: '<p>Not extracted yet.</p>', type: 'text/html' },
    ])
    const pending = textPath(fresh!.id)
    await expectError(
      await docs(pending),
      pending,
      409,
      'document_not_ready',
      'The text of fresh.html is not available yet (its status is pending).',
    )
    const bad = textPath(b.docs['oil.txt']!, '?limit=50001')
    expect((await issues(await docs(bad), bad))[0]!.loc).toEqual(['query', 'limit'])
  })
})
