import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { authApp, bearer, mintKey } from '../api/accounts.fixture'
import { call, FILES, mcpClient, mcpTenants } from '../api/mcp.fixture'
import type { TestApp } from '../helpers/app'
import type { ReadyBase } from '../helpers/ready-base'

/** The hosted MCP server over a real loopback socket, driven by the official SDK client. */
let t: TestApp
let server: ReturnType<typeof Bun.serve>
let b: ReadyBase
let other: ReadyBase
let url: string
let client: Client
beforeAll(async () => {
  t = authApp()
  ;({ b, other } = await mcpTenants(t, 'Other'))
  server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: t.handle })
  url = `http://127.0.0.1:${server.port}/mcp-http/`
  client = await mcpClient(url, b.keys.query)
})
afterAll(async () => {
  await client.close()
  await server.stop(true)
  t.close()
})

describe('hosted MCP server over Streamable HTTP', () => {
  test('lists the four tools with descriptions and JSON schemas', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((x) => x.name)).toEqual(['list_bases', 'query_base', 'list_documents', 'read_document'])
    for (const tool of tools) {
      expect(tool.description!.length).toBeGreaterThan(60)
      expect(tool.inputSchema.type).toBe('object')
      expect(tool.outputSchema?.type).toBe('object')
      expect(tool.annotations?.readOnlyHint).toBe(true)
    }
    const query = tools.find((x) => x.name === 'query_base')!
    expect(query.inputSchema.required).toEqual(['base_id', 'question'])
    expect(Object.keys(query.inputSchema.properties!)).toEqual([
      'base_id',
      'question',
      'doc_ids',
      'strategy',
      'k',
      'history',
    ])
    const read = tools.find((x) => x.name === 'read_document')!
    expect(read.inputSchema.required).toEqual(['base_id', 'document_id'])
    expect(client.getInstructions()).toContain('list_bases')
  })

  test('an agent finds the base, asks, pins a document from the answer and reads it', async () => {
    const bases = await call(client, 'list_bases', {})
    expect(bases.result.isError).toBeUndefined()
    expect(bases.data.bases).toEqual([
      {
        id: b.corpusId,
        name: 'Fixture base',
        status: 'ready',
        n_documents: 4,
        documents_ready: 4,
        description: null,
      },
    ])
    expect(bases.text).toContain(`${b.corpusId} "Fixture base": ready, 4/4 documents ready`)

    const answer = await call(client, 'query_base', {
      base_id: b.corpusId,
      question: 'When did the 1973 oil crisis begin?',
      strategy: 'rag',
      k: 2,
    })
    expect(answer.result.isError).toBeUndefined()
    expect(answer.text).toContain('October 1973')
    // Sources an agent can cite: "[n] filename — snippet (document id)".
    expect(answer.text).toMatch(/\nSources:\n\[1\] oil\.txt — The 1973 oil crisis began in October 1973/)
    const oil = b.docs['oil.txt']!
    expect(answer.text).toContain(`(document ${oil})`)
    expect(answer.text).toContain(`Documents used (pin them with doc_ids): ${oil}`)
    const sources = answer.data.sources as { id: string; document_id: string }[]
    expect(sources[0]!.id).toBe(oil)

    // The pinnable id from the answer narrows the next question to that document.
    const pinned = await call(client, 'query_base', {
      base_id: b.corpusId,
      question: 'Where does the river begin?',
      doc_ids: [sources[0]!.id],
    })
    expect(pinned.result.isError).toBeUndefined()
    // The oil document does not say where the river begins: the answer says so, citing nothing.
    expect(pinned.data).toMatchObject({ answered: false, used_docs: [] })
    expect((pinned.data.sources as { id: string }[]).every((s) => s.id === oil)).toBe(true)

    const listed = await call(client, 'list_documents', { base_id: b.corpusId, q: 'OIL' })
    expect(listed.data).toMatchObject({ total: 1, limit: 50, offset: 0 })
    expect(listed.text).toStartWith(`Documents 1-1 of 1.\n- ${oil} oil.txt (ready,`)

    const read = await call(client, 'read_document', { base_id: b.corpusId, document_id: oil, limit: 40 })
    expect(read.result.isError).toBeUndefined()
    expect(read.data).toMatchObject({ offset: 0, next_offset: 40, text: FILES[0]!.text.slice(0, 40) })
    expect(read.text).toContain(`characters 0-40 of ${FILES[0]!.text.length}`)
    expect(read.text).toContain('call again with offset=40')
    const rest = await call(client, 'read_document', { base_id: b.corpusId, document_id: oil, offset: 40 })
    expect(rest.data).toMatchObject({ next_offset: null, remaining_chars: 0, text: FILES[0]!.text.slice(40) })
    expect(rest.text).toContain('End of document.')
  })

  test('paging the inventory says where the next page starts', async () => {
    const first = await call(client, 'list_documents', { base_id: b.corpusId, limit: 3 })
    expect(first.text).toStartWith('Documents 1-3 of 4. Call again with offset=3 for more.')
    const next = await call(client, 'list_documents', { base_id: b.corpusId, limit: 3, offset: 3 })
    expect((next.data.items as { filename: string }[]).map((d) => d.filename)).toEqual(['rhine.txt'])
  })

  test("another workspace's base is invisible: not listed, and its id is not found", async () => {
    const bases = await call(client, 'list_bases', {})
    expect(JSON.stringify(bases.data)).not.toContain(other.corpusId)
    for (const [name, args] of [
      ['query_base', { base_id: other.corpusId, question: 'What is the launch code?' }],
      ['list_documents', { base_id: other.corpusId }],
      ['read_document', { base_id: other.corpusId, document_id: other.docs['secret.txt'] }],
      ['read_document', { base_id: b.corpusId, document_id: other.docs['secret.txt'] }],
    ] as const) {
      const r = await call(client, name, args)
      expect(r.result.isError).toBe(true)
      expect(r.text).toEndWith('(not_found)')
      expect(r.text).not.toContain('0000')
    }
  })

  test('bad arguments and refusals come back as tool errors with a clear message', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['query_base', { question: 'x' }, 'Invalid arguments: base_id: Field required (validation_error)'],
      ['query_base', { base_id: b.corpusId, question: '' }, 'Invalid arguments: question:'],
      ['query_base', { base_id: b.corpusId, question: 'x', k: 99 }, 'Invalid arguments: k:'],
      [
        'query_base',
        { base_id: b.corpusId, question: 'x', strategy: 'guess' },
        'Invalid arguments: strategy:',
      ],
      ['list_documents', { base_id: b.corpusId, limit: 500 }, 'Invalid arguments: limit:'],
      ['list_documents', { base_id: b.corpusId, offset: -1 }, 'Invalid arguments: offset:'],
      [
        'list_documents',
        { base_id: b.corpusId, page: 2 },
        'Invalid arguments: page: Extra inputs are not permitted',
      ],
      ['read_document', { base_id: b.corpusId, document_id: 'doc_nope' }, 'Document not found.'],
      [
        'query_base',
        { base_id: b.corpusId, question: 'x', doc_ids: ['doc_nope'] },
        'These document ids are not in the base: doc_nope. (unknown_documents)',
      ],
      ['summon', {}, 'Unknown tool "summon". Tools: list_bases, query_base, list_documents, read_document.'],
    ]
    for (const [name, args, message] of cases) {
      const r = await call(client, name, args)
      expect(r.result.isError).toBe(true)
      expect(r.text).toContain(message)
    }
    const created = await t.request('/v1/corpora', {
      method: 'POST',
      headers: bearer(b.adminToken),
      json: { name: 'Not yet' },
    })
    const fresh = (await created.json()).id
    const notReady = await call(client, 'query_base', { base_id: fresh, question: 'Anything?' })
    expect(notReady.result.isError).toBe(true)
    expect(notReady.text).toContain('(corpus_not_ready)')
  })

  test('scope rules follow the REST routes: an ingest key may list but not ask or read', async () => {
    const ingest = await mcpClient(url, b.keys.ingest)
    try {
      expect((await call(ingest, 'list_documents', { base_id: b.corpusId })).result.isError).toBeUndefined()
      for (const [name, args] of [
        ['query_base', { base_id: b.corpusId, question: 'Where does the Rhine begin?' }],
        ['read_document', { base_id: b.corpusId, document_id: b.docs['oil.txt'] }],
      ] as const) {
        const r = await call(ingest, name, args)
        expect(r.result.isError).toBe(true)
        expect(r.text).toBe('API key missing required scope: query (missing_scope)')
      }
    } finally {
      await ingest.close()
    }
  })

  test('a revoked key is refused on its next call, even on an open connection', async () => {
    const key = await mintKey(t, b.adminToken, ['query'])
    const agent = await mcpClient(url, key.key)
    try {
      expect((await call(agent, 'list_bases', {})).result.isError).toBeUndefined()
      const res = await t.request(`/v1/api-keys/${key.id}`, {
        method: 'DELETE',
        headers: bearer(b.adminToken),
      })
      expect(res.status).toBe(200)
      await expect(call(agent, 'list_bases', {})).rejects.toThrow(/This API key has been revoked/)
      await expect(mcpClient(url, key.key)).rejects.toThrow(/This API key has been revoked/)
    } finally {
      await agent.close()
    }
  })
})

describe('the /mcp-http endpoint itself', () => {
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
  }
  const post = (path: string, headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${server.port}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(init),
    })

  test('answers on both /mcp-http/ and /mcp-http with a key, 401 without one, 403 to a session', async () => {
    for (const path of ['/mcp-http/', '/mcp-http']) {
      const ok = await post(path, bearer(b.keys.query))
      expect(ok.status).toBe(200)
      expect((await ok.json()).result.serverInfo.name).toBe('engram')
      const none = await post(path)
      expect(none.status).toBe(401)
      expect(none.headers.get('www-authenticate')).toBe('Bearer')
      expect((await post(path, bearer('ek_wrong'))).status).toBe(401)
      const session = await post(path, bearer(b.adminToken))
      expect(session.status).toBe(403)
      expect((await session.json()).detail).toContain('API key')
    }
  })

  test('GET and DELETE answer 405 (stateless: no session stream), still after authentication', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(url, { method, headers: bearer(b.keys.query) })
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe('POST')
      expect((await fetch(url, { method })).status).toBe(401)
    }
  })

  test('the routes appear in /openapi.json', async () => {
    const doc = await (await fetch(`http://127.0.0.1:${server.port}/openapi.json`)).json()
    expect(Object.keys(doc.paths['/mcp-http/']).sort()).toEqual(['delete', 'get', 'post'])
    const ids = Object.values(doc.paths).flatMap((ops) =>
      Object.values(ops as Record<string, { operationId: string }>).map((op) => op.operationId),
    )
    expect(new Set(ids).size).toBe(ids.length)
    expect(doc.paths['/v1/mcp-http/']).toBeUndefined()
    expect(doc.paths['/v1/mcp/{corpus_id}/query'].post['x-required-scope']).toBe('query')
    expect(doc.paths['/mcp/{corpus_id}/documents'].get).toBeDefined()
    expect(doc.paths['/v1/mcp/{corpus_id}/meta'].get).toBeDefined()
    expect(doc.paths['/mcp/{corpus_id}/meta']).toBeUndefined()
  })
})
