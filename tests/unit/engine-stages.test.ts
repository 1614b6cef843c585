import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

// The engine's folders follow the stages data passes through (house style; docs/architecture.md):
// each stage folder has one entry file, index.ts, and code outside the folder imports only it, so
// a stage's other files are its own business. The engine's old grab-bag lib/ does not come back.

const ROOT = resolve(import.meta.dir, '../..')
const ENGINE = join(ROOT, 'src/features/engine')
/** The stages, in the order data passes through them, and the engine's common helpers. */
const STAGES = ['text', 'rank', 'rag', 'cart', 'support', 'compose', 'common']

/** Every .ts/.tsx file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (name === 'node_modules') return []
    if (statSync(path).isDirectory()) return sources(path)
    return /\.tsx?$/.test(path) ? [path] : []
  })
}

/** The relative imports and re-exports of a file, resolved to absolute paths without extension. */
function importsOf(file: string, text: string): string[] {
  return [
    ...text.matchAll(/^(?:import|export)\b[^'"]*?\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g),
  ].map((m) => resolve(dirname(file), m[1]!).replace(/\.tsx?$/, ''))
}

/** Imports that reach into a stage folder past its entry file from outside that folder. */
function violations(files: { path: string; text: string }[]): string[] {
  const out: string[] = []
  for (const { path, text } of files) {
    for (const target of importsOf(path, text)) {
      const rel = relative(ENGINE, target)
      const [stage, ...rest] = rel.split('/')
      if (!stage || !STAGES.includes(stage) || rest.length === 0) continue
      if (dirname(path) === join(ENGINE, stage)) continue
      if (rest.join('/') !== 'index') out.push(`${relative(ROOT, path)} -> ${rel}`)
    }
  }
  return out
}

const everyFile = ['src', 'tests', 'bench', 'scripts']
  .map((d) => join(ROOT, d))
  .filter(existsSync)
  .flatMap(sources)
  .map((path) => ({ path, text: readFileSync(path, 'utf8') }))

describe('the engine arranged by stages', () => {
  test('each stage folder exists with its one entry file, and the engine has no other folder', () => {
    for (const stage of STAGES) expect(existsSync(join(ENGINE, stage, 'index.ts'))).toBe(true)
    const folders = readdirSync(ENGINE, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
    expect(folders.sort()).toEqual([...STAGES].sort())
  })

  test('lib/ is gone: no folder and no import names it', () => {
    expect(existsSync(join(ENGINE, 'lib'))).toBe(false)
    const naming = everyFile
      .filter(({ path, text }) =>
        importsOf(path, text).some((t) => relative(ENGINE, t).split('/')[0] === 'lib'),
      )
      .map(({ path }) => relative(ROOT, path))
    expect(naming).toEqual([])
  })

  test('code outside a stage folder imports only its entry file (src, tests, bench, scripts)', () => {
    // The reading finds the imports: the engine's service and the tests reach the stages.
    const reaching = everyFile.filter(({ path, text }) =>
      importsOf(path, text).some((t) => relative(ENGINE, t).startsWith('compose/')),
    )
    expect(reaching.length).toBeGreaterThan(3)
    expect(violations(everyFile)).toEqual([])
  })

  test('a stage imports only stages before it (type-only imports aside)', () => {
    const wrong: string[] = []
    for (const { path, text } of everyFile) {
      const from = relative(ENGINE, path).split('/')
      if (from.length !== 2 || !STAGES.includes(from[0]!)) continue
      const runtime = text.replace(/^(?:import|export) type\b[^'"]*?\bfrom\s+['"][^'"]+['"]/gm, '')
      for (const target of importsOf(path, runtime)) {
        const to = relative(ENGINE, target).split('/')[0]!
        if (!STAGES.includes(to) || to === from[0] || to === 'common') continue
        if (STAGES.indexOf(to) > STAGES.indexOf(from[0]!)) wrong.push(`${from.join('/')} -> ${to}`)
      }
    }
    expect(wrong).toEqual([])
  })

  test('the check fails on a file outside a folder importing a non-entry file, and on lib/', () => {
    const outside = join(ROOT, 'tests/x.test.ts')
    const inside = join(ENGINE, 'cart/x.ts')
    const service = join(ENGINE, 'engine.service.ts')
    const sample = [
      { path: outside, text: "import { tokenize } from '../src/features/engine/text/text'\n" },
      { path: outside, text: "import { tokenize } from '../src/features/engine/text/index'\n" },
      { path: service, text: "export { streamAnswer } from './compose/stream'\n" },
      {
        path: inside,
        text: "import { localId } from './cartridge'\nimport { stem } from '../text/porter'\n",
      },
    ]
    expect(violations(sample)).toEqual([
      'tests/x.test.ts -> text/text',
      'src/features/engine/engine.service.ts -> compose/stream',
      'src/features/engine/cart/x.ts -> text/porter',
    ])
    const lib = importsOf(outside, "import { ask } from '../src/features/engine/lib/ask'\n")
    expect(relative(ENGINE, lib[0]!)).toBe('lib/ask')
  })
})
