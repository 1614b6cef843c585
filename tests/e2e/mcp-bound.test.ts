import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { resolve } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { authApp, bearer, mintKey } from '../api/accounts.fixture'
import { call, FILES, mcpClient } from '../api/mcp.fixture'
import type { TestApp } from '../helpers/app'
import { type ReadyBase, readyBase, train, upload } from '../helpers/ready-base'

// Issue 35: a key bound to base A, used by an agent over a real socket, through the hosted server
// and through `engram mcp --url` (a subprocess speaking MCP on stdio): base B of the same
// workspace is never listed, and every tool naming it answers not_found.

const ROOT = resolve(import.meta.dir, '../..')

let t: TestApp
let server: ReturnType<typeof Bun.serve>
let a: ReadyBase
let b: { corpusId: string; docId: string }
let key: string
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
  await train(t, a.adminToken, corpusId)
  b = { corpusId, docId: doc!.id }
  key = (await mintKey(t, a.adminToken, ['query'], { corpus_ids: [a.corpusId] })).key
  server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: t.handle })
})
afterAll(async () => {
  await server.stop(true)
  t.close()
})

/** What an agent holding the bound key sees through `client`: base A only, B not found. */
async function seesBaseAOnly(client: Client): Promise<void> {
  const bases = await call(client, 'list_bases', {})
  expect((bases.data.bases as { id: string }[]).map((x) => x.id)).toEqual([a.corpusId])
  expect(bases.text).not.toContain(b.corpusId)
  for (const [name, args] of [
    ['query_base', { base_id: b.corpusId, question: 'What is the launch code?' }],
    ['list_documents', { base_id: b.corpusId }],
    ['read_document', { base_id: b.corpusId, document_id: b.docId }],
  ] as const) {
    const r = await call(client, name, args)
    expect(r.result.isError).toBe(true)
    expect(r.text).toBe(
      'Document base not found. Call list_bases for base ids and list_documents for document ids. (not_found)',
    )
  }
  const own = await call(client, 'query_base', {
    base_id: a.corpusId,
    question: 'When did the 1973 oil crisis begin?',
    strategy: 'rag',
  })
  expect(own.text).toContain('October 1973')
}

describe('a key bound to base A, over a real socket', () => {
  test('the hosted MCP server lists and answers base A only', async () => {
    const client = await mcpClient(`http://127.0.0.1:${server.port}/mcp-http/`, key)
    try {
      await seesBaseAOnly(client)
    } finally {
      await client.close()
    }
  })

  test('engram mcp --url lists and answers base A only', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['run', 'src/main.ts', 'mcp', '--url', `http://127.0.0.1:${server.port}`],
      cwd: ROOT,
      env: { ENGRAM_API_KEY: key },
      stderr: 'pipe',
    })
    const client = new Client({ name: 'desktop-agent', version: '1.0.0' })
    await client.connect(transport)
    try {
      await seesBaseAOnly(client)
    } finally {
      await client.close()
    }
  })
})
