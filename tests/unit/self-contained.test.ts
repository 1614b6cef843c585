import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'

// `npm install && npm test` must pass on a fresh clone of this repository alone: no test may read
// the data folder CI keeps beside the checkout (or anything else outside the repository). Test data
// lives in tests/fixtures/data.
const ROOT = resolve(import.meta.dir, '../..')
const TESTS = join(ROOT, 'tests')

const sources = readdirSync(TESTS, { recursive: true, encoding: 'utf8' })
  .filter((f) => /\.(ts|tsx|js|mjs)$/.test(f) && !f.startsWith(`fixtures${sep}`))
  .map((f) => ({ file: join(TESTS, f), text: readFileSync(join(TESTS, f), 'utf8') }))

describe('the test suite is self-contained', () => {
  test('no test file names the shared data folder', () => {
    const self = resolve(import.meta.path)
    const offenders = sources
      .filter((s) => s.file !== self && /(\.\.\/)+shared\b|shared\/data/.test(s.text))
      .map((s) => relative(ROOT, s.file))
    expect(sources.length).toBeGreaterThan(50)
    expect(offenders).toEqual([])
  })

  test('no relative path in a test file climbs out of the repository', () => {
    const escapes: string[] = []
    for (const s of sources) {
      for (const m of s.text.matchAll(/['"`]((?:\.\.\/)+[^'"`$]*)['"`]/g)) {
        const target = resolve(dirname(s.file), m[1]!)
        if (relative(ROOT, target).startsWith('..')) escapes.push(`${relative(ROOT, s.file)}: ${m[1]}`)
      }
    }
    expect(escapes).toEqual([])
  })

  test('every file under tests/fixtures/data is listed with its source and licence', () => {
    const data = join(TESTS, 'fixtures/data')
    const readme = readFileSync(join(data, 'README.md'), 'utf8')
    const docs = readFileSync(join(data, 'docs/SOURCES.tsv'), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => `docs/${l.split('\t').pop()}`)
    const files = readdirSync(data, { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => relative(data, join(d.parentPath, d.name)).split(sep).join('/'))
      .filter((f) => !['README.md', 'docs/SOURCES.tsv'].includes(f))
    const squad = /^squad-dev\/(articles\/[^/]+\.txt|questions\.jsonl)$/
    const unlisted = files.filter((f) => !docs.includes(f) && !squad.test(f))
    expect(files.length).toBeGreaterThan(60)
    expect(unlisted).toEqual([])
    // Every repository a document comes from, and SQuAD, has its licence named in the README.
    const repos = new Set(readFileSync(join(data, 'docs/SOURCES.tsv'), 'utf8').match(/^[^\t\n]+/gm) ?? [])
    for (const repo of [...repos, 'SQuAD']) expect(readme).toContain(repo)
  })
})
