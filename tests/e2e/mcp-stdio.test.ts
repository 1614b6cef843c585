import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { authApp, bearer, mintKey } from '../api/accounts.fixture'
import { call, FILES, mcpTenants } from '../api/mcp.fixture'
import type { TestApp } from '../helpers/app'
import { type ReadyBase, readyBase } from '../helpers/ready-base'

/** `engram mcp` as a desktop agent starts it: a subprocess speaking MCP on stdin and stdout. */
const ROOT = resolve(import.meta.dir, '../..')
const MAIN = ['run', 'src/main.ts', 'mcp']

let t: TestApp
let b: ReadyBase
let other: ReadyBase
beforeAll(async () => {
  // `engram mcp` on a local data dir: the single binary's state is in the data dir's SQLite file,
  // whatever engine the other tests run on.
  t = authApp({ postgresUrl: null })
  ;({ b, other } = await mcpTenants(t, 'Other'))
})
afterAll(() => t.close())

/** Starts `engram mcp ARGS` and connects the SDK's stdio client to it; stderr is kept for asserts. */
async function stdioClient(args: string[], env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...MAIN, ...args],
    cwd: ROOT,
    env: { ENGRAM_LOG_LEVEL: 'info', ...env },
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const client = new Client({ name: 'desktop-agent', version: '1.0.0' })
  await client.connect(transport)
  return { client, stderr: () => stderr }
}

/** Runs `engram mcp ARGS` to completion (start-up refusals), with stdin closed. */
async function runMcp(args: string[]) {
  const proc = Bun.spawn([process.execPath, ...MAIN, ...args], {
    cwd: ROOT,
    env: { PATH: Bun.env.PATH ?? '' },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [code, stdout, stderr] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ])
  return { code, stdout, stderr }
}

describe('engram mcp on a local data dir', () => {
  test('several workspaces and no --workspace: refuses to start and names them', async () => {
    const r = await runMcp(['--data', t.dataDir])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('holds several workspaces; pick one with --workspace')
    expect(r.stderr).toContain(b.workspaceId)
    expect(r.stderr).toContain(other.workspaceId)
  })

  test('serves every tool from the data dir; another workspace is invisible', async () => {
    const { client, stderr } = await stdioClient(['--data', t.dataDir, '--workspace', b.workspaceId])
    try {
      const { tools } = await client.listTools()
      expect(tools.map((x) => x.name)).toEqual([
        'list_bases',
        'query_base',
        'list_documents',
        'read_document',
      ])

      const bases = await call(client, 'list_bases', {})
      expect((bases.data.bases as { id: string }[]).map((x) => x.id)).toEqual([b.corpusId])

      const answer = await call(client, 'query_base', {
        base_id: b.corpusId,
        question: 'Where does the Rhine begin?',
        strategy: 'rag',
      })
      expect(answer.result.isError).toBeUndefined()
      expect(answer.text).toContain('Graubünden')
      expect(answer.text).toContain('[1] rhine.txt — ')
      const rhine = (answer.data.used_docs as string[])[0]!
      expect(rhine).toBe(b.docs['rhine.txt']!)

      const pinned = await call(client, 'query_base', {
        base_id: b.corpusId,
        question: 'When did the oil crisis begin?',
        doc_ids: [rhine],
      })
      // Pinned to a document that does not answer it: the answer says so, from that document's passages only.
      expect(pinned.data).toMatchObject({ answered: false, used_docs: [] })
      expect((pinned.data.sources as { id: string }[]).every((s) => s.id === rhine)).toBe(true)

      const docs = await call(client, 'list_documents', { base_id: b.corpusId, q: 'glaciers' })
      expect(docs.data).toMatchObject({ total: 1, items: [{ filename: 'notes/alpine.md' }] })

      const read = await call(client, 'read_document', { base_id: b.corpusId, document_id: rhine })
      expect(read.data).toMatchObject({ text: FILES[1]!.text, next_offset: null })

      const foreign = await call(client, 'list_documents', { base_id: other.corpusId })
      expect(foreign.result.isError).toBe(true)
      expect(foreign.text).toEndWith('(not_found)')
      const bad = await call(client, 'read_document', { base_id: b.corpusId })
      expect(bad.result.isError).toBe(true)
      expect(bad.text).toBe('Invalid arguments: document_id: Field required (validation_error)')
    } finally {
      await client.close()
    }
    // Logs went to stderr, as JSON lines; stdout carried only the protocol.
    expect(stderr()).toContain('"msg":"engram mcp ready"')
    expect(stderr()).toContain('"mode":"local"')
  })
})

test('a client that pipes its requests and closes stdin still gets every answer, then it exits 0', async () => {
  const lines = [
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: {
        name: 'query_base',
        arguments: { base_id: b.corpusId, question: 'Where does the Rhine begin?' },
      },
    },
  ]
  const proc = Bun.spawn([process.execPath, ...MAIN, '--data', t.dataDir, '--workspace', b.workspaceId], {
    cwd: ROOT,
    env: { PATH: Bun.env.PATH ?? '' },
    stdin: new Blob([lines.map((l) => `${JSON.stringify(l)}\n`).join('')]),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [code, stdout] = await Promise.all([proc.exited, new Response(proc.stdout).text()])
  expect(code).toBe(0)
  const replies = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
  expect(replies.map((r) => r.id)).toEqual([1, 2])
  expect(replies[1].result.isError).toBeUndefined()
  expect(replies[1].result.structuredContent.used_docs).toContain(b.docs['rhine.txt'])
})

describe('engram mcp --url against a running server', () => {
  let server: ReturnType<typeof Bun.serve>
  beforeAll(() => {
    server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: t.handle })
  })
  afterAll(() => server.stop(true))

  test('forwards every tool to the REST routes; a revoked key is refused on its next call', async () => {
    const key = await mintKey(t, b.adminToken, ['query'])
    const { client, stderr } = await stdioClient(['--url', `http://127.0.0.1:${server.port}`], {
      ENGRAM_API_KEY: key.key,
    })
    try {
      const bases = await call(client, 'list_bases', {})
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
      const answer = await call(client, 'query_base', {
        base_id: b.corpusId,
        question: 'When did the 1973 oil crisis begin?',
        strategy: 'rag',
      })
      expect(answer.text).toContain('October 1973')
      const oil = (answer.data.sources as { id: string }[])[0]!.id
      expect(oil).toBe(b.docs['oil.txt']!)
      const pinned = await call(client, 'query_base', {
        base_id: b.corpusId,
        question: 'Where does the Rhine begin?',
        doc_ids: [oil],
      })
      expect(pinned.data).toMatchObject({ answered: false, used_docs: [] })
      expect((pinned.data.sources as { id: string }[]).every((s) => s.id === oil)).toBe(true)
      const docs = await call(client, 'list_documents', { base_id: b.corpusId, limit: 1, offset: 1 })
      expect(docs.data).toMatchObject({
        total: 4,
        limit: 1,
        offset: 1,
        items: [{ filename: 'notes/alpine.md' }],
      })
      const read = await call(client, 'read_document', {
        base_id: b.corpusId,
        document_id: oil,
        offset: 4,
        limit: 4,
      })
      expect(read.data).toMatchObject({ text: '1973', offset: 4, next_offset: 8 })

      const foreign = await call(client, 'query_base', { base_id: other.corpusId, question: 'launch code?' })
      expect(foreign.text).toBe(
        'Document base not found. Call list_bases for base ids and list_documents for document ids. (not_found)',
      )
      const bad = await call(client, 'list_documents', { base_id: b.corpusId, limit: 0 })
      expect(bad.text).toStartWith('Invalid arguments: limit:')

      const revoked = await t.request(`/v1/api-keys/${key.id}`, {
        method: 'DELETE',
        headers: bearer(b.adminToken),
      })
      expect(revoked.status).toBe(200)
      const refused = await call(client, 'list_bases', {})
      expect(refused.result.isError).toBe(true)
      expect(refused.text).toBe('This API key has been revoked. (unauthorized)')
    } finally {
      await client.close()
    }
    expect(stderr()).toContain('"mode":"remote"')
    expect(stderr()).not.toContain(key.key)
  })

  test('an unreachable server is a tool error, not a crash', async () => {
    const { client } = await stdioClient(['--url', 'http://127.0.0.1:9', '--key', 'ek_unused'])
    try {
      const r = await call(client, 'list_bases', {})
      expect(r.result.isError).toBe(true)
      expect(r.text).toStartWith('Cannot reach Engram at http://127.0.0.1:9')
      expect(r.text).toEndWith('(unreachable)')
    } finally {
      await client.close()
    }
  })

  test('--help prints the usage on stdout; a bad flag is a usage error', async () => {
    const help = await runMcp(['--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('engram mcp --url URL [--key KEY]')
    const bad = await runMcp(['--port', '1'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('Unknown argument: --port')
  })
})

describe("the README's configuration for a checkout", () => {
  /** The JSON blocks of the README's MCP section that start Engram from a checkout. */
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const checkoutConfigs = [...readme.matchAll(/```json\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .filter((block) => block.includes('/path/to/engram'))

  test('starts the server from any folder, with no npx and nothing on the PATH', async () => {
    expect(readme).not.toContain('"command": "npx"')
    expect(checkoutConfigs).toHaveLength(1)
    // One workspace in the data dir, as after `npm start` and a first sign-up.
    const solo = authApp({ postgresUrl: null })
    const base = await readyBase(solo, FILES)
    const elsewhere = mkdtempSync(join(tmpdir(), 'engram-agent-'))
    try {
      const config = JSON.parse(
        checkoutConfigs[0]!
          .replaceAll('/path/to/engram/data', solo.dataDir)
          .replaceAll('/path/to/engram', ROOT),
      ) as { mcpServers: { engram: { command: string; args: string[] } } }
      const { command, args } = config.mcpServers.engram
      const transport = new StdioClientTransport({
        command,
        args,
        cwd: elsewhere,
        env: { PATH: '/usr/bin:/bin' },
        stderr: 'pipe',
      })
      const client = new Client({ name: 'desktop-agent', version: '1.0.0' })
      await client.connect(transport)
      try {
        const answer = await call(client, 'query_base', {
          base_id: base.corpusId,
          question: 'Where does the Rhine begin?',
          strategy: 'rag',
        })
        expect(answer.result.isError).toBeUndefined()
        expect(answer.text).toContain('Graubünden')
      } finally {
        await client.close()
      }
    } finally {
      solo.close()
      rmSync(elsewhere, { recursive: true, force: true })
    }
  }, 60_000)
})
