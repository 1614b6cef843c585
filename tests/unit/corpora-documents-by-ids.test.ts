import { describe, expect, test } from 'bun:test'
import { migrations } from '../../migrations/index'
import { CorporaRepo } from '../../src/features/corpora/corpora.repo'
import { openDatabase } from '../../src/platform/db/db'
import { migrate } from '../../src/platform/db/migrate'
import { sqliteStore } from '../../src/platform/db/store'

/** Base A with 700 documents, base B (same workspace) with 3. */
function twoBases() {
  const db = openDatabase(':memory:')
  migrate(db, migrations)
  const c = db.$client
  c.exec('PRAGMA foreign_keys = OFF')
  for (const id of ['A', 'B'])
    c.run(`INSERT INTO corpora (id, workspace_id, name, created_at, updated_at) VALUES (?, 'w', ?, 0, 0)`, [
      id,
      id,
    ])
  const doc = c.query(
    `INSERT INTO documents (id, workspace_id, corpus_id, path, raw_key, sha256, created_at, updated_at)
       VALUES (?, 'w', ?, ?, ?, 'same', 0, 0)`,
  )
  for (let i = 0; i < 700; i++) doc.run(`a${i}`, 'A', `a${i}.txt`, `raw/a${i}`)
  for (let i = 0; i < 3; i++) doc.run(`b${i}`, 'B', `b${i}.txt`, `raw/b${i}`)
  const statements: string[] = []
  const store = sqliteStore(db)
  const prepare = c.prepare.bind(c)
  c.prepare = ((sql: string) => {
    statements.push(sql)
    return prepare(sql)
  }) as typeof c.prepare
  return { c, repo: new CorporaRepo(store), statements }
}

describe('documents of a base by id', () => {
  test("answers the base's own rows of the ids asked, by id; another base's and unknown ids are absent", async () => {
    const { repo } = twoBases()
    const ids = [...Array.from({ length: 700 }, (_, i) => `a${i}`), 'b0', 'b2', 'nope']
    const found = await repo.documentsByIds('A', ids)
    expect(found.size).toBe(700)
    expect(found.get('a699')?.raw_key).toBe('raw/a699')
    expect(found.has('b0')).toBe(false)
    expect(found.has('nope')).toBe(false)
    expect([...(await repo.documentsByIds('B', ids)).keys()].sort()).toEqual(['b0', 'b2'])
    expect((await repo.documentsByIds('A', [])).size).toBe(0)
  })

  test("reads by the primary key, not by walking the base's rows", async () => {
    const { c, repo, statements } = twoBases()
    await repo.documentsByIds('A', ['a1', 'a2'])
    const read = statements.find(
      (s) => /from "documents"/.test(s) && /"id" IN \(SELECT value FROM json_each/.test(s),
    )
    expect(read).toBeDefined()
    const plan = c
      .query(`EXPLAIN QUERY PLAN ${read}`)
      .all(JSON.stringify(['a1', 'a2']))
      .map((r) => (r as { detail: string }).detail)
      .join('; ')
    expect(plan).toMatch(/PRIMARY KEY|sqlite_autoindex_documents_1/)
    expect(plan).not.toMatch(/corpus/)
  })
})
