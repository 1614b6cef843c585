import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

// The house's import rules (the house style's, and issue 20's), read from the sources themselves:
// `platform/` never imports `features/`; a feature reaches another only through its service,
// schemas or tables file; and no files import each other, directly or round a longer loop. The
// console (web/src, .ts and .tsx) is held to the same: no loops, and its API layer imports no page.

const SRC = resolve(import.meta.dir, '../../src')
const WEB = resolve(import.meta.dir, '../../web/src')

/** Every TypeScript file under `dir` (with `.tsx` when `tsx`). */
function sources(dir: string, tsx = false): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path, tsx)
    return path.endsWith('.ts') || (tsx && path.endsWith('.tsx')) ? [path] : []
  })
}

/**
 * What each file under `root` imports (and re-exports) from other files under it, type-only imports
 * included; an import without an extension is the `.ts`, else the `.tsx`, file of that name.
 */
function importGraph(root: string, tsx = false): Map<string, string[]> {
  const files = sources(root, tsx)
  const known = new Set(files)
  const graph = new Map<string, string[]>()
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
    const targets = [...text.matchAll(/^(?:import|export)\b[^'"]*?\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]/gm)]
      .map((m) => resolve(dirname(file), m[1]!))
      .map((t) =>
        /\.tsx?$/.test(t) ? t : known.has(`${t}.tsx`) && !known.has(`${t}.ts`) ? `${t}.tsx` : `${t}.ts`,
      )
      .filter((t) => t.startsWith(root) && !/\.(txt|bin|html|sql|json)\.ts$/.test(t))
    graph.set(relative(root, file), [...new Set(targets.map((t) => relative(root, t)))])
  }
  return graph
}

/** The import loops: strongly connected groups of more than one file (Tarjan). */
function loops(graph: Map<string, string[]>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const out: string[][] = []
  const visit = (v: string) => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        group.push(w)
      } while (w !== v)
      if (group.length > 1) out.push(group.sort())
    }
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return out
}

const graph = importGraph(SRC)
const edges = [...graph].flatMap(([from, tos]) => tos.map((to) => ({ from, to })))
const web = importGraph(WEB, true)
const webEdges = [...web].flatMap(([from, tos]) => tos.map((to) => ({ from, to })))

describe('import rules', () => {
  test('the graph is read: files of both layers and their imports are found', () => {
    expect(graph.size).toBeGreaterThan(100)
    expect(edges.some((e) => e.from === 'app.ts' && e.to.startsWith('features/'))).toBe(true)
  })

  test('platform/ never imports features/', () => {
    expect(edges.filter((e) => e.from.startsWith('platform/') && e.to.startsWith('features/'))).toEqual([])
  })

  test('a feature uses another only through its service, schemas or tables file', () => {
    const feature = (p: string) => /^features\/([^/]+)\//.exec(p)?.[1]
    const crossing = edges.filter((e) => {
      const a = feature(e.from)
      const b = feature(e.to)
      return a && b && a !== b && !/^features\/[^/]+\/[^/]+\.(service|schemas|tables)\.ts$/.test(e.to)
    })
    expect(crossing).toEqual([])
  })

  test('no files import each other, directly or round a loop', () => {
    expect(loops(graph)).toEqual([])
  })

  test("the console's graph is read: pages, components and the API layer, .ts and .tsx", () => {
    expect(web.size).toBeGreaterThan(60)
    expect(webEdges.some((e) => e.from === 'pages/chat.tsx' && e.to === 'api/answers.ts')).toBe(true)
    expect(webEdges.some((e) => e.from === 'app.tsx' && e.to === 'components/guard.tsx')).toBe(true)
    // Every import names a file that exists: an import the reading misses cannot hide a loop.
    expect(webEdges.filter((e) => !web.has(e.to))).toEqual([])
  })

  test('no console files import each other, directly or round a loop', () => {
    expect(loops(web)).toEqual([])
  })

  test("the console's API layer imports no page or component", () => {
    expect(webEdges.filter((e) => e.from.startsWith('api/') && /^(pages|components)\//.test(e.to))).toEqual(
      [],
    )
  })

  test('a loop is found when there is one', () => {
    const sample = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ])
    expect(loops(sample)).toEqual([['a.ts', 'b.ts', 'c.ts']])
  })
})
