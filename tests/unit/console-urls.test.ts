import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import ts from 'typescript'

// Only web/src/api names a URL of the API (the house style's "Data and the console"): pages,
// components and hooks call the typed functions of web/src/api/<area>.ts. Read from the sources
// with TypeScript's own parser, so that comments (which may quote a route) are not code.

const WEB = resolve(import.meta.dir, '../../web/src')
const API = join(WEB, 'api')

/** Every .ts and .tsx file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return /\.tsx?$/.test(path) ? [path] : []
  })
}

/** The first segments of the API's paths (`v1`, `corpora`, `auth`, ...), from the generated types. */
function apiSegments(): Set<string> {
  const text = readFileSync(join(API, 'openapi.gen.ts'), 'utf8')
  const paths = text.slice(text.indexOf('export interface paths {'), text.indexOf('export type webhooks'))
  return new Set([...paths.matchAll(/^ {4}"\/([^/"{]+)/gm)].map((m) => m[1]!))
}

/** What the client of web/src/api/client.ts lets other folders import: its error and page types. */
const CLIENT_EXPORTS_OUTSIDE = new Set(['ApiError', 'Page'])
/** Ways to reach a server that bypass web/src/api. */
const TRANSPORTS = new Set(['fetch', 'XMLHttpRequest', 'EventSource', 'WebSocket', 'sendBeacon'])

/** What in `text` (a file at `path` outside web/src/api) names a URL or calls the server itself. */
function violations(path: string, text: string, segments: Set<string>): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX)
  const out: string[] = []
  const at = (node: ts.Node) => `${path}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`
  const visit = (node: ts.Node) => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isJsxText(node)
    ) {
      const first = /^\/([^/?#`'"\s{$]+)/.exec(node.text.trim())?.[1]
      if (first && segments.has(first) && !ts.isImportDeclaration(node.parent))
        out.push(`${at(node)} names the API path ${node.text.trim()}`)
    }
    if (ts.isIdentifier(node) && TRANSPORTS.has(node.text) && !ts.isImportSpecifier(node.parent))
      out.push(`${at(node)} uses ${node.text}`)
    if (
      ts.isImportDeclaration(node) &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      /\/api\/client$/.test(node.moduleSpecifier.text)
    ) {
      const names = node.importClause?.namedBindings
      if (node.importClause?.name || (names && !ts.isNamedImports(names)))
        out.push(`${at(node)} imports the whole client`)
      if (names && ts.isNamedImports(names))
        for (const el of names.elements)
          if (!CLIENT_EXPORTS_OUTSIDE.has((el.propertyName ?? el.name).text))
            out.push(`${at(node)} imports ${el.name.text} from the client`)
    }
    ts.forEachChild(node, visit)
  }
  visit(file)
  return out
}

describe('only web/src/api names a URL', () => {
  const segments = apiSegments()

  test("the API's path segments are read from the generated types", () => {
    for (const s of ['v1', 'corpora', 'auth', 'admin', 'api-keys', 'openapi.json'])
      expect(segments).toContain(s)
    expect(segments).not.toContain('console')
  })

  test('no file outside web/src/api names an API path, calls fetch or imports the raw client', () => {
    const found = sources(WEB)
      .filter((f) => !f.startsWith(`${API}/`))
      .flatMap((f) => violations(relative(WEB, f), readFileSync(f, 'utf8'), segments))
    expect(found).toEqual([])
  })

  test('the check finds a path, a template path, fetch and a raw client call; comments and /console pass', () => {
    const sample = [
      "import { http, ApiError } from '../api/client'",
      '// `/v1/corpora` in a comment is documentation',
      "const a = api('/corpora')",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample is source text holding a template literal.
      'const b = api(`/v1/corpora/${id}/chat`)',
      "const c = fetch('/v1/status')",
      "route('/console/bases')",
      "const d = '/srv/shares'",
    ].join('\n')
    expect(violations('sample.tsx', sample, segments)).toEqual([
      'sample.tsx:1 imports http from the client',
      'sample.tsx:3 names the API path /corpora',
      'sample.tsx:4 names the API path /v1/corpora/',
      'sample.tsx:5 uses fetch',
      'sample.tsx:5 names the API path /v1/status',
    ])
  })
})
