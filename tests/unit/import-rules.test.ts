import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

// The house's import rules (the house style's, and issue 20's), read from the sources themselves:
// `platform/` never imports `features/`; a feature reaches another only through its service,
// schemas or tables file; and no files import each other, directly or round a longer loop.

const SRC = resolve(import.meta.dir, '../../src')

/** Every TypeScript file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return path.endsWith('.ts') ? [path] : []
  })
}

/** What each file imports (and re-exports) from other files of src/, type-only imports included. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of sources(SRC)) {
    const text = readFileSync(file, 'utf8')
    const targets = [...text.matchAll(/^(?:import|export)\b[^'"]*?\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]/gm)]
      .map((m) => resolve(dirname(file), m[1]!))
      .map((t) => (t.endsWith('.ts') ? t : `${t}.ts`))
      .filter((t) => t.startsWith(SRC) && !/\.(txt|bin|html|sql|json)\.ts$/.test(t))
    graph.set(relative(SRC, file), [...new Set(targets.map((t) => relative(SRC, t)))])
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

const graph = importGraph()
const edges = [...graph].flatMap(([from, tos]) => tos.map((to) => ({ from, to })))

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
