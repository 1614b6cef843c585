import { describe, expect, spyOn, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrations } from '../../migrations/index'
import { PlacesRepo } from '../../src/features/corpora/corpora.places.repo'
import { openDatabase } from '../../src/platform/db/db'
import { migrate } from '../../src/platform/db/migrate'
import { sqliteStore } from '../../src/platform/db/store'

/** Two bases: a paged manual in two sections and a one-section note in A, many one-section documents in B. */
function twoBases(file = ':memory:') {
  const db = openDatabase(file)
  migrate(db, migrations)
  const c = db.$client
  c.exec('PRAGMA foreign_keys = OFF')
  for (const id of ['A', 'B']) {
    c.run(`INSERT INTO corpora (id, workspace_id, name, created_at, updated_at) VALUES (?, 'w', ?, 0, 0)`, [
      id,
      id,
    ])
  }
  const doc = c.query(
    `INSERT INTO documents (id, workspace_id, corpus_id, parent_id, path, section_index, section_title, text_key,
       text_offset, page_ranges, sha256, created_at, updated_at) VALUES (?, 'w', ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0)`,
  )
  doc.run(
    'manual',
    'A',
    null,
    'manual.pdf',
    null,
    'Manual',
    'text/manual',
    null,
    '[[0,100],[100,250],[250,400]]',
    's1',
  )
  doc.run('manual#1', 'A', 'manual', 'manual.pdf#1', 0, 'Setup', null, 0, null, 's1')
  doc.run('manual#2', 'A', 'manual', 'manual.pdf#2', 1, 'Repairs', null, 180, null, 's1')
  doc.run('note', 'A', null, 'note.txt', null, 'A note', 'text/note', null, null, 's2')
  for (let i = 0; i < 300; i++) doc.run(`b${i}`, 'B', null, `b${i}.txt`, null, null, null, null, null, 'same')
  return { db, repo: new PlacesRepo(sqliteStore(db)) }
}

describe('placing cited passages in their documents', () => {
  test('each passage gets its page, section title and offsets in its document', async () => {
    const { repo } = twoBases()
    expect(
      await repo.place('A', [
        { sectionId: 'manual#2', start: 10, end: 40 },
        { sectionId: 'manual#1', start: 120, end: 130 },
        { sectionId: 'note', start: 5, end: 9 },
        { sectionId: 'manual#2', start: null, end: null },
      ]),
    ).toEqual([
      { page: 2, sectionTitle: 'Repairs', start: 190, end: 220 },
      { page: 2, sectionTitle: 'Setup', start: 120, end: 130 },
      { page: null, sectionTitle: null, start: 5, end: 9 },
      { page: null, sectionTitle: 'Repairs', start: null, end: null },
    ])
  })

  test("another base's row, or one no base has, is placed as nothing", async () => {
    const { repo } = twoBases()
    const none = { page: null, sectionTitle: null, start: null, end: null }
    expect(await repo.place('B', [{ sectionId: 'manual#1', start: 1, end: 2 }])).toEqual([none])
    expect(
      await repo.place('A', [
        { sectionId: 'b7', start: 1, end: 2 },
        { sectionId: 'gone', start: 0, end: 1 },
      ]),
    ).toEqual([none, none])
    expect(await repo.place('B', [{ sectionId: 'b7', start: 1, end: 2 }])).toEqual([
      { page: null, sectionTitle: null, start: 1, end: 2 },
    ])
  })

  test('cited rows are read once until a commit, then read again (a file database)', async () => {
    const { db, repo } = twoBases(join(mkdtempSync(join(tmpdir(), 'engram-places-')), 'engram.db'))
    const reads = spyOn(repo as unknown as { cited(ids: string[]): Promise<unknown[]> }, 'cited')
    const spans = [
      { sectionId: 'manual#2', start: 10, end: 40 },
      { sectionId: 'note', start: 5, end: 9 },
    ]
    const first = await repo.place('A', spans)
    expect(await repo.place('A', spans)).toEqual(first)
    expect(reads).toHaveBeenCalledTimes(1)
    // A new section title and new pages of the parent: the commit empties the memo.
    db.$client.run(`UPDATE documents SET section_title = 'Fixes' WHERE id = 'manual#2'`)
    db.$client.run(`UPDATE documents SET page_ranges = '[[0,200],[200,400]]' WHERE id = 'manual'`)
    expect(await repo.place('A', spans)).toEqual([
      { page: 1, sectionTitle: 'Fixes', start: 190, end: 220 },
      { page: null, sectionTitle: null, start: 5, end: 9 },
    ])
    expect(reads).toHaveBeenCalledTimes(2)
    db.$client.close()
  })

  test('the rows are looked up by primary key, never by scanning the base', () => {
    const { db, repo } = twoBases()
    const q = repo.rowsQuery(['b1', 'b2']).toSQL()
    const plan = db.$client
      .query<{ detail: string }, string[]>(`EXPLAIN QUERY PLAN ${q.sql}`)
      .all(...(q.params as string[]))
      .map((r) => r.detail)
    expect(
      plan.some((d) => /^SEARCH documents USING INDEX sqlite_autoindex_documents_1 \(id=\?\)/.test(d)),
    ).toBe(true)
    expect(plan.some((d) => d.includes('documents_corpus') || /^SCAN documents\b/.test(d))).toBe(false)
  })
})
