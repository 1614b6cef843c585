import { describe, expect, test } from 'bun:test'
import { migrations } from '../../../migrations/index'
import { UNMEASURED } from '../../../src/features/engine/engine.cart-keys'
import { Engine } from '../../../src/features/engine/engine.service'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { docs, memoryStore, sectionInput } from './fixture'

// `engine_sections` is written a row a section by every onboarding run, each index one more B-tree
// on random keys: a document's sections are found through its base's index, and the partial index
// of unmeasured cartridges holds only built ones whose size is unknown (never a run's rows).

function engineOf() {
  const db = openDatabase(':memory:')
  migrate(db, migrations)
  const store = memoryStore()
  const engine = new Engine({ db, store, cacheBytes: 1 << 24, now: () => 0 })
  const c = db.$client
  /** Rows in the unmeasured partial index: those its own condition (as declared) holds for, read through it. */
  const unmeasuredRows = () => {
    const { sql } = c
      .query("SELECT sql FROM sqlite_master WHERE name = 'engine_sections_unmeasured'")
      .get() as {
      sql: string
    }
    const where = sql.slice(sql.indexOf(' WHERE ') + 7)
    const read = `SELECT count(*) AS n FROM engine_sections INDEXED BY engine_sections_unmeasured WHERE ${where}`
    return (c.query(read).get() as { n: number }).n
  }
  const baseBytes = (baseId: string) =>
    (c.query('SELECT cart_bytes AS n FROM engine_bases WHERE base_id = ?').get(baseId) as { n: number }).n
  const plan = (sql: string, ...args: string[]) =>
    c
      .query(`EXPLAIN QUERY PLAN ${sql}`)
      .all(...args)
      .map((r) => (r as { detail: string }).detail)
      .join('; ')
  return { engine, store, c, unmeasuredRows, baseBytes, plan }
}

const textOf = async (id: string) => docs.find((d) => `sec_${d.id}` === id)?.text ?? null

describe("engine_sections' indexes", () => {
  test("a run's sections never enter the unmeasured index, nor leave their build in it; each cartridge counted once", async () => {
    const { engine, store, unmeasuredRows, baseBytes } = engineOf()
    const results = await engine.indexSections(docs.map(sectionInput))
    expect(results.every((r) => !(r instanceof Error))).toBe(true)
    expect(engine.builds.left('cor_1')).toBe(docs.length)
    expect(unmeasuredRows()).toBe(0)
    await engine.buildDeferred('cor_1', textOf)
    expect(engine.builds.left('cor_1')).toBe(0)
    expect(unmeasuredRows()).toBe(0)
    // The base counts each cartridge it uses once, at its size in the store.
    const keys = docs.map((d) => engine.sectionsOfDocument('cor_1', d.id)[0]!.cartKey)
    expect(baseBytes('cor_1')).toBe(keys.reduce((n, k) => n + store.objects.get(k)!.byteLength, 0))
  })

  test('a built cartridge whose size is unknown is in it, measured once from the store, and leaves it', async () => {
    const { engine, store, c, unmeasuredRows, baseBytes } = engineOf()
    await engine.indexSections(docs.map(sectionInput))
    await engine.buildDeferred('cor_1', textOf)
    const counted = baseBytes('cor_1')
    const key = engine.sectionsOfDocument('cor_1', docs[0]!.id)[0]!.cartKey
    // As a section indexed before sizes were recorded.
    c.run('UPDATE engine_sections SET cart_bytes = 0 WHERE cart_key = ?', [key])
    expect(baseBytes('cor_1')).toBe(counted - store.objects.get(key)!.byteLength)
    expect(unmeasuredRows()).toBe(1)
    const asked: string[] = []
    const measured = await engine.measureCarts(async (k) => {
      asked.push(k)
      return store.objects.get(k)?.byteLength ?? null
    })
    expect(measured).toBe(1)
    expect(asked).toEqual([key])
    expect(unmeasuredRows()).toBe(0)
    expect(baseBytes('cor_1')).toBe(counted)
    expect(await engine.measureCarts(async () => 1)).toBe(0)
  })

  test("a document's sections are read through its base's index; the unmeasured through theirs", () => {
    const { c, plan } = engineOf()
    const names = (
      c
        .query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'engine_sections'")
        .all() as {
        name: string
      }[]
    ).map((r) => r.name)
    expect(names.filter((n) => !n.startsWith('sqlite_autoindex')).sort()).toEqual([
      'engine_sections_base',
      'engine_sections_base_cart',
      'engine_sections_cart',
      'engine_sections_unmeasured',
    ])
    expect(plan('SELECT * FROM engine_sections WHERE base_id = ? AND document_id = ?', 'b', 'd')).toMatch(
      /engine_sections_base \(base_id=\? AND document_id=\?\)/,
    )
    expect(plan(`SELECT DISTINCT cart_key FROM engine_sections WHERE ${UNMEASURED} LIMIT 5`)).toMatch(
      /engine_sections_unmeasured/,
    )
  })
})
