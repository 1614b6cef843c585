import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { inspectorAskCommand, inspectorListCommand, KEY_PLACEHOLDER } from '../../web/src/lib/mcp-commands'
import { authApp } from '../api/accounts.fixture'
import { FILES } from '../api/mcp.fixture'
import type { TestApp } from '../helpers/app'
import { type ReadyBase, readyBase } from '../helpers/ready-base'

/**
 * The MCP Inspector's command-line client (`@modelcontextprotocol/inspector-cli`, what
 * `npx @modelcontextprotocol/inspector --cli URL ...` runs), a client we did not write, against the
 * hosted server on a loopback port. The CLI package is used rather than the whole Inspector because
 * the Inspector 2.x requires Node 22 and would make `npm install` warn on Node 20, which the README
 * names.
 */
const ROOT = resolve(import.meta.dir, '../..')
const INSPECTOR_DIR = join(ROOT, 'node_modules/@modelcontextprotocol/inspector-cli')

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
  // Whatever the client would keep under HOME goes to a throwaway folder.
  home = mkdtempSync(join(tmpdir(), 'engram-inspector-'))
})
afterAll(async () => {
  await server.stop(true)
  t.close()
  rmSync(home, { recursive: true, force: true })
})

async function inspector(args: string[]) {
  const proc = Bun.spawn(
    ['node', join(INSPECTOR_DIR, 'build/index.js'), url, '--transport', 'http', ...args],
    {
      // It reads its own package.json through a path relative to the working directory.
      cwd: join(INSPECTOR_DIR, 'build'),
      env: { PATH: Bun.env.PATH ?? '', HOME: home },
      stdout: 'pipe',
      stderr: 'pipe',
    },
  )
  const [code, stdout, stderr] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ])
  return { code, stdout, stderr }
}

/** A command line split as a POSIX shell splits it (spaces, double-quoted words). */
function shellWords(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '')
}

/**
 * Runs a command the console and docs/mcp.md print, `npx @modelcontextprotocol/inspector --cli
 * ...`, with the Inspector's own launcher (its `--cli` parses the same flags in 1.x and 2.x; the 2.x
 * package needs Node 22.19, so the pinned 1.x CLI stands in), word for word after the package name.
 */
async function printed(line: string) {
  const words = shellWords(line)
  expect(words.slice(0, 3)).toEqual(['npx', '@modelcontextprotocol/inspector', '--cli'])
  const proc = Bun.spawn(['node', join(INSPECTOR_DIR, 'build/cli.js'), ...words.slice(2)], {
    cwd: join(INSPECTOR_DIR, 'build'),
    env: { PATH: Bun.env.PATH ?? '', HOME: home },
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

describe('the MCP Inspector commands the console and the docs print', () => {
  test('listing the tools and asking a base work as written', async () => {
    const listed = await printed(inspectorListCommand(url, b.keys.query))
    expect(listed.code).toBe(0)
    expect((JSON.parse(listed.stdout).tools as { name: string }[]).map((x) => x.name)).toContain('query_base')
    const asked = await printed(
      inspectorAskCommand(url, b.keys.query, b.corpusId, 'Where does the Rhine begin?'),
    )
    expect(asked.code).toBe(0)
    expect(JSON.parse(asked.stdout).content[0].text).toContain('Graubünden')
  }, 30_000)

  test('docs/mcp.md prints the same commands', () => {
    const doc = readFileSync(join(ROOT, 'docs/mcp.md'), 'utf8')
    expect(doc).toContain(inspectorListCommand('http://localhost:8080/mcp-http/', KEY_PLACEHOLDER))
    expect(doc).toContain(
      inspectorAskCommand(
        'http://localhost:8080/mcp-http/',
        KEY_PLACEHOLDER,
        'cor_...',
        'What is this base about?',
      ),
    )
  })
})

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

  test('lists the tools, with schemas portable to clients of other schema dialects', async () => {
    const r = await inspector(['--method', 'tools/list', '--header', `Authorization: Bearer ${b.keys.query}`])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const tools = JSON.parse(r.stdout).tools as {
      name: string
      inputSchema: unknown
      outputSchema?: unknown
    }[]
    expect(tools.map((x) => x.name)).toEqual(['list_bases', 'query_base', 'list_documents', 'read_document'])
    // The portability rules of the Inspector 2.x `--strict` check (which needs Node 22).
    const findings = tools.flatMap((t) => [
      ...unportable(t.inputSchema, `${t.name} input`),
      ...(t.outputSchema === undefined ? [] : unportable(t.outputSchema, `${t.name} output`)),
    ])
    expect(findings).toEqual([])
  }, 30_000)

  test('without the key the Inspector cannot connect', async () => {
    const r = await inspector(['--method', 'tools/list'])
    expect(r.code).not.toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('Failed to connect to MCP server')
    expect(r.stderr).toContain('Not authenticated.')
  }, 30_000)
})

const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions']
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems']
const SUBSCHEMA_ONE = ['items', 'additionalProperties', 'not', 'contains', 'if', 'then', 'else']
const VALIDATION =
  /^(type|enum|const|anyOf|oneOf|allOf|not|\$ref|properties|items|required|minimum|maximum|pattern|format|minLength|maxLength|minItems|maxItems)$/

/**
 * Where a JSON Schema is not portable across tool-calling clients: boolean schemas (except as
 * `additionalProperties`), `type` arrays, `$ref` outside the document, and schemas that constrain
 * nothing (the object spelling of `true`).
 */
function unportable(schema: unknown, at: string, keyword?: string): string[] {
  if (typeof schema === 'boolean') return keyword === 'additionalProperties' ? [] : [`${at}: boolean schema`]
  if (typeof schema !== 'object' || schema === null) return []
  const node = schema as Record<string, unknown>
  const out: string[] = []
  if (Array.isArray(node.type)) out.push(`${at}: type union ${JSON.stringify(node.type)}`)
  if (typeof node.$ref === 'string' && !node.$ref.startsWith('#')) out.push(`${at}: remote $ref`)
  if (keyword !== 'not' && !Object.keys(node).some((k) => VALIDATION.test(k)))
    out.push(`${at}: constrains nothing`)
  for (const k of SUBSCHEMA_MAPS) {
    for (const [name, sub] of Object.entries((node[k] as Record<string, unknown>) ?? {}))
      out.push(...unportable(sub, `${at}.${k}.${name}`, k))
  }
  for (const k of SUBSCHEMA_LISTS) {
    for (const [i, sub] of ((node[k] as unknown[]) ?? []).entries())
      out.push(...unportable(sub, `${at}.${k}[${i}]`, k))
  }
  for (const k of SUBSCHEMA_ONE) if (k in node) out.push(...unportable(node[k], `${at}.${k}`, k))
  return out
}
