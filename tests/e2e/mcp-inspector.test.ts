import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { authApp } from '../api/accounts.fixture'
import { FILES } from '../api/mcp.fixture'
import type { TestApp } from '../helpers/app'
import { type ReadyBase, readyBase } from '../helpers/ready-base'

/**
 * The MCP Inspector in CLI mode (`npx @modelcontextprotocol/inspector --cli URL ...`), a client we
 * did not write, against the hosted server on a loopback port.
 */
const ROOT = resolve(import.meta.dir, '../..')
const INSPECTOR = join(ROOT, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js')

let t: TestApp
let b: ReadyBase
let server: ReturnType<typeof Bun.serve>
let home: string
let url: string
beforeAll(async () => {
  t = authApp()
  b = await readyBase(t, FILES)
  server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: t.handle })
  url = `http://127.0.0.1:${server.port}/mcp-http/`
  // The Inspector keeps a catalog under HOME; give it a throwaway one.
  home = mkdtempSync(join(tmpdir(), 'engram-inspector-'))
})
afterAll(async () => {
  await server.stop(true)
  t.close()
  rmSync(home, { recursive: true, force: true })
})

async function inspector(args: string[]) {
  const proc = Bun.spawn(['node', INSPECTOR, '--cli', url, '--transport', 'http', ...args], {
    env: { PATH: Bun.env.PATH ?? '', HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json') },
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

describe('MCP Inspector CLI', () => {
  test('calls query_base with the API key header and gets the answer with citable sources', async () => {
    const r = await inspector([
      '--method',
      'tools/call',
      '--tool-name',
      'query_base',
      '--tool-arg',
      `base_id=${b.corpusId}`,
      'question=Where does the Rhine begin?',
      'strategy=rag',
      '--header',
      `Authorization: Bearer ${b.keys.query}`,
    ])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const result = JSON.parse(r.stdout)
    expect(result.isError).toBeUndefined()
    expect(result.content[0].text).toContain('Graubünden')
    expect(result.content[0].text).toContain('[1] rhine.txt — ')
    expect(result.structuredContent.used_docs[0]).toBe(b.docs['rhine.txt'])
  }, 30_000)

  test('lists the tools with schemas that pass its strict portability check', async () => {
    const r = await inspector([
      '--method',
      'tools/list',
      '--strict',
      '--header',
      `Authorization: Bearer ${b.keys.query}`,
    ])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
    const names = JSON.parse(r.stdout).tools.map((x: { name: string }) => x.name)
    expect(names).toEqual(['list_bases', 'query_base', 'list_documents', 'read_document'])
  }, 30_000)

  test('without the key the Inspector cannot connect', async () => {
    const r = await inspector(['--method', 'tools/list'])
    expect(r.code).not.toBe(0)
    // Our 401 (with `WWW-Authenticate: Bearer`) sends it to OAuth, which it cannot do headless.
    expect(JSON.parse(r.stderr).error.code).toBe('auth_required')
  }, 30_000)
})
