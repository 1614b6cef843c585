import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { DOCS_DIR, FIXTURES_DIR } from './docs.ts'

const sources = (dir: string) =>
  readFileSync(join(dir, 'SOURCES.tsv'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => l.split('\t').pop()!)
const testSources = readdirSync(import.meta.dir)
  .filter((f) => f.endsWith('.test.ts') && f !== 'extract-sources.test.ts')
  .map((f) => readFileSync(join(import.meta.dir, f), 'utf8'))
  .join('\n')
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

describe('test coverage of the real documents', () => {
  test('every real-world document listed in SOURCES.tsv is exercised by an extraction test', () => {
    const files = sources(DOCS_DIR)
    expect(files.length).toBe(40)
    // Tests name a file by its folder prefix and the part after "owner_repo__".
    const missing = files.filter((f) => {
      const name = f.split('__').pop()!
      return !new RegExp(`(__|\\})${escapeRegExp(name)}['\`]`).test(testSources)
    })
    expect(missing).toEqual([])
  })

  test('every fixture kept with the tests is exercised too', () => {
    const files = sources(FIXTURES_DIR)
    expect(files.sort()).toEqual(
      readdirSync(FIXTURES_DIR)
        .filter((f) => f !== 'SOURCES.tsv')
        .sort(),
    )
    const missing = files.filter((f) => !testSources.includes(`'${f}'`))
    expect(missing).toEqual([])
  })
})
