import { Database } from 'bun:sqlite'
import { afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrations } from '../../../migrations/index'
import { CitationsRepo } from '../../../src/features/engine/engine.citations.repo'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'

// Where a cited passage starts in its section (engine.citations.repo.ts): read once for a base's
// generation and kept, never served past a change to the base's index, by this connection or another.

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** A file-backed database with two bases, each with a section of three passages (starts 0, 100, 200). */
function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'engram-starts-'))
  dirs.push(dir)
  const db = openDatabase(join(dir, 'engram.db'))
  migrate(db, migrations)
  const c = db.$client
  for (const [base, key] of [
    ['cor_a', 1],
    ['cor_b', 2],
  ] as const) {
    c.run('INSERT INTO engine_bases (base_id, key, n_passages) VALUES (?, ?, 3)', [base, key])
    for (let o = 0; o < 3; o++)
      c.run('INSERT INTO engine_passages (section_id, ordinal, text, sents, start) VALUES (?, ?, ?, ?, ?)', [
        `sec_${base}`,
        o,
        'x'.repeat(90),
        new Uint8Array(8),
        100 * o,
      ])
  }
  /** Changes a start without touching the generation (no index change does that: it shows what is read). */
  const setStart = (client: Database, base: string, ordinal: number, start: number) =>
    client.run('UPDATE engine_passages SET start = ? WHERE section_id = ? AND ordinal = ?', [
      start,
      `sec_${base}`,
      ordinal,
    ])
  const bump = (client: Database, base: string) =>
    client.run('UPDATE engine_bases SET generation = generation + 1 WHERE base_id = ?', [base])
  return { db, file: join(dir, 'engram.db'), setStart, bump }
}

describe('passage starts', () => {
  test('are read once for a generation of their base, and read again at the next', () => {
    const { db, setStart, bump } = setup()
    const repo = new CitationsRepo(db.$client)
    expect(repo.startsOf('cor_a')('sec_cor_a', 1)).toBe(100)
    expect(repo.size).toBe(1)
    setStart(db.$client, 'cor_a', 1, 150)
    // The same generation: the start kept is the answer (a read would say 150).
    expect(repo.startsOf('cor_a')('sec_cor_a', 1)).toBe(100)
    bump(db.$client, 'cor_a')
    expect(repo.startsOf('cor_a')('sec_cor_a', 1)).toBe(150)
    // A passage the base does not have is null.
    expect(repo.startsOf('cor_a')('sec_cor_a', 7)).toBeNull()
    db.$client.close()
  })

  test("another connection's change to the base's index is seen at the next question", () => {
    const { db, file, setStart, bump } = setup()
    const repo = new CitationsRepo(db.$client)
    expect(repo.startsOf('cor_b')('sec_cor_b', 2)).toBe(200)
    const other = new Database(file)
    other.exec('PRAGMA busy_timeout = 5000')
    setStart(other, 'cor_b', 2, 250)
    bump(other, 'cor_b')
    expect(repo.startsOf('cor_b')('sec_cor_b', 2)).toBe(250)
    other.close()
    db.$client.close()
  })

  test("a change to one base drops only that base's starts", () => {
    const { db, setStart, bump } = setup()
    const repo = new CitationsRepo(db.$client)
    expect(repo.startsOf('cor_a')('sec_cor_a', 0)).toBe(0)
    expect(repo.startsOf('cor_b')('sec_cor_b', 0)).toBe(0)
    setStart(db.$client, 'cor_a', 0, 5)
    setStart(db.$client, 'cor_b', 0, 5)
    bump(db.$client, 'cor_a')
    expect(repo.startsOf('cor_a')('sec_cor_a', 0)).toBe(5)
    expect(repo.startsOf('cor_b')('sec_cor_b', 0)).toBe(0)
    db.$client.close()
  })

  test('a base no longer indexed is read every time, and what was kept of it is dropped', () => {
    const { db, setStart } = setup()
    const repo = new CitationsRepo(db.$client)
    expect(repo.startsOf('cor_a')('sec_cor_a', 2)).toBe(200)
    db.$client.run("DELETE FROM engine_bases WHERE base_id = 'cor_a'")
    setStart(db.$client, 'cor_a', 2, 7)
    expect(repo.startsOf('cor_a')('sec_cor_a', 2)).toBe(7)
    expect(repo.size).toBe(0)
    db.$client.close()
  })

  test("a base's generation is read again only after a commit to the database", () => {
    const { db, setStart, bump } = setup()
    let reads = 0
    // The repo's client, counting the reads of a base's generation.
    const client = new Proxy(db.$client, {
      get(target, key) {
        if (key === 'prepare')
          return (sql: string) => {
            const statement = target.prepare(sql)
            if (!sql.includes('generation')) return statement
            return {
              get: (...args: [string]) => {
                reads++
                return statement.get(...args)
              },
            }
          }
        const value = Reflect.get(target, key)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const repo = new CitationsRepo(client)
    for (let i = 0; i < 3; i++) expect(repo.startsOf('cor_a')('sec_cor_a', 1)).toBe(100)
    expect(reads).toBe(1)
    setStart(db.$client, 'cor_a', 1, 120)
    bump(db.$client, 'cor_a')
    expect(repo.startsOf('cor_a')('sec_cor_a', 1)).toBe(120)
    expect(reads).toBe(2)
    db.$client.close()
  })

  test('stay within their bound however many passages are cited', () => {
    const { db } = setup()
    const repo = new CitationsRepo(db.$client)
    const starts = repo.startsOf('cor_a')
    for (let o = 0; o < 40_000; o++) starts('sec_cor_a', o)
    expect(repo.size).toBeLessThanOrEqual(16_384)
    expect(repo.startsOf('cor_a')('sec_cor_a', 1)).toBe(100)
    db.$client.close()
  })
})
