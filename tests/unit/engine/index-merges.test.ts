import { describe, expect, test } from 'bun:test'
import { migrations } from '../../../migrations/index'
import { mergeStep } from '../../../src/features/engine/engine.merges.repo'
import { Engine } from '../../../src/features/engine/engine.service'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { articleTexts, docs, memoryStore } from './fixture'

// A run's groups each commit one FTS5 segment without merging (automerge 0 while it writes, crisis
// merges still bounding a level); the deferred job then ends the hold and merges in bounded steps.
// What questions read (bm25(), the posting lists through fts5vocab) is the same whatever the segments.

function engineOf() {
  const db = openDatabase(':memory:')
  migrate(db, migrations)
  const engine = new Engine({ db, store: memoryStore(), cacheBytes: 1 << 24, now: () => 0 })
  return { db, engine, client: db.$client }
}

type Client = ReturnType<typeof engineOf>['client']
const tableOf = (client: Client, baseId: string) =>
  `engine_fts_${(client.query('SELECT key FROM engine_bases WHERE base_id = ?').get(baseId) as { key: number }).key}`
const segments = (client: Client, table: string) =>
  (client.query(`SELECT count(DISTINCT segid) AS n FROM ${table}_idx`).get() as { n: number }).n
const crisismerge = (client: Client, table: string) =>
  (client.query(`SELECT v FROM ${table}_config WHERE k = 'crisismerge'`).get() as { v: number } | null)?.v ??
  null
const automerge = (client: Client, table: string) =>
  (client.query(`SELECT v FROM ${table}_config WHERE k = 'automerge'`).get() as { v: number } | null)?.v ??
  null

/** What questions read from the table: bm25() of every passage matching each term, and the term's instances. */
function reads(client: Client, table: string): string {
  client.run(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${table}_i USING fts5vocab(main, ${table}, instance)`)
  const terms = client.query(`SELECT term FROM temp.${table}_i GROUP BY term ORDER BY term`).all() as {
    term: string
  }[]
  const out = terms.slice(0, 200).map(({ term }) => {
    const q = `"${term}"`
    const scores = client
      .query(`SELECT rowid, bm25(${table}) AS s FROM ${table} WHERE ${table} MATCH ?`)
      .all(q)
    const inst = client.query(`SELECT doc, col, offset FROM temp.${table}_i WHERE term = ?`).all(term)
    return JSON.stringify([term, scores, inst])
  })
  return out.join('\n')
}

/** Eight groups of one section each, as eight of a run's groups (each its own transaction). */
async function indexGroups(engine: Engine, baseId: string) {
  for (let g = 0; g < 8; g++) {
    const d = docs[g % docs.length]!
    const input = { workspaceId: 'ws_1', baseId, documentId: `${d.id}_${g}`, sectionId: `sec_${g}` }
    const text = `${d.text}\n\nPart ${g}: ${d.text.split(' ').slice(g).join(' ')}`
    const [out] = await engine.indexSections([{ ...input, title: d.title, filename: d.filename, text }])
    expect(out).not.toBeInstanceOf(Error)
  }
}

describe("a run's FTS5 merges", () => {
  test('are held while its groups commit (a segment a group), then merged in steps by the deferred side, with the same scores and posting lists', async () => {
    const { engine, client } = engineOf()
    await indexGroups(engine, 'cor_m')
    const table = tableOf(client, 'cor_m')
    // Eight commits, eight segments: none merged inside a group's commit (FTS5's default merges at four).
    expect(segments(client, table)).toBe(8)
    expect(automerge(client, table)).toBe(0)
    expect(engine.builds.mergesHeld('cor_m')).toBe(true)
    const held = reads(client, table)
    const sources = (await engine.ask('cor_m', { question: 'Who discovered oxygen?', strategy: 'rag', k: 3 }))
      .sources
    let steps = 0
    while (await engine.builds.mergeStep('cor_m')) steps++
    expect(steps).toBeGreaterThan(0)
    expect(segments(client, table)).toBeLessThan(4)
    expect(engine.builds.mergesHeld('cor_m')).toBe(false)
    expect(automerge(client, table)).toBe(4)
    expect(reads(client, table)).toBe(held)
    const after = await engine.ask('cor_m', { question: 'Who discovered oxygen?', strategy: 'rag', k: 3 })
    expect(after.sources).toEqual(sources)
    // Once merged, a step finds nothing more to do; a base with no index has none.
    expect(await engine.builds.mergeStep('cor_m')).toBe(false)
    expect(await engine.builds.mergeStep('cor_none')).toBe(false)
    expect(engine.builds.mergesHeld('cor_none')).toBe(false)
  })

  test("merge nothing inside a base's first run however many groups it has (past the 16 and 64 segments a level FTS5 would merge at); a later run merges 64 at a time", async () => {
    const { engine, client } = engineOf()
    const d = docs[0]!
    /** 70 groups of one article each, as a run of 70 groups writes them. */
    const run = async (tag: string) => {
      for (let g = 0; g < 70; g++) {
        const input = { workspaceId: 'ws_1', baseId: 'cor_c', documentId: `doc_${g}`, sectionId: `sec_${g}` }
        const text = `Group ${g} of the ${tag} run. ${articleTexts[g % articleTexts.length]}`
        const [out] = await engine.indexSections([{ ...input, title: d.title, filename: d.filename, text }])
        expect(out).not.toBeInstanceOf(Error)
      }
    }
    await run('first')
    const table = tableOf(client, 'cor_c')
    expect(segments(client, table)).toBe(70)
    expect(crisismerge(client, table)).toBe(900)
    const held = reads(client, table)
    // Part of the merging done (a step of two pages): a document deleted now writes a segment of its
    // own, and its commit must not merge the run's segments all at once (FTS5's crisis level of 16).
    expect(mergeStep(client, 'cor_c', 2)).toBe(true)
    expect(engine.builds.mergesHeld('cor_c')).toBe(true)
    await engine.removeSection('sec_0')
    expect(segments(client, table)).toBeGreaterThan(16)
    // Nor does a run that starts before they are all merged (it holds them at the first run's level).
    const [again] = await engine.indexSections([
      {
        workspaceId: 'ws_1',
        baseId: 'cor_c',
        documentId: 'doc_0',
        sectionId: 'sec_0',
        title: d.title,
        filename: d.filename,
        text: articleTexts[0]!,
      },
    ])
    expect(again).not.toBeInstanceOf(Error)
    expect(crisismerge(client, table)).toBe(900)
    expect(segments(client, table)).toBeGreaterThan(16)
    while (await engine.builds.mergeStep('cor_c')) {}
    expect(segments(client, table)).toBeLessThan(4)
    expect(engine.builds.mergesHeld('cor_c')).toBe(false)
    expect(crisismerge(client, table)).toBe(16)
    // A later run of the base, which answers questions meanwhile: a level merges at 64 segments.
    await run('second')
    expect(crisismerge(client, table)).toBe(64)
    expect(segments(client, table)).toBeLessThan(64)
    while (await engine.builds.mergeStep('cor_c')) {}
    expect(segments(client, table)).toBeLessThan(4)
    expect(crisismerge(client, table)).toBe(16)
    expect(reads(client, table)).not.toBe(held)
  })

  test("the hold is the group's: a group rolled back leaves the table merging as before", async () => {
    const { engine, client } = engineOf()
    await indexGroups(engine, 'cor_r')
    const table = tableOf(client, 'cor_r')
    while (await engine.builds.mergeStep('cor_r')) {}
    expect(automerge(client, table)).toBe(4)
    // A group written in a transaction that is then rolled back (the run's process stopping mid-group).
    const d = docs[0]!
    const input = { workspaceId: 'ws_1', baseId: 'cor_r', documentId: 'doc_x', sectionId: 'sec_x' }
    client.run('BEGIN')
    await engine.indexSections([{ ...input, title: d.title, filename: d.filename, text: d.text }])
    expect(automerge(client, table)).toBe(0)
    client.run('ROLLBACK')
    expect(automerge(client, table)).toBe(4)
    expect(engine.builds.mergesHeld('cor_r')).toBe(false)
  })

  test('a base whose own table is not there (dropped under it) holds no merges, and none is asked of it', async () => {
    const { engine, client } = engineOf()
    await indexGroups(engine, 'cor_d')
    const table = tableOf(client, 'cor_d')
    expect(engine.builds.mergesHeld('cor_d')).toBe(true)
    client.run(`DROP TABLE ${table}`)
    expect(engine.builds.mergesHeld('cor_d')).toBe(false)
    expect(await engine.builds.mergeStep('cor_d')).toBe(false)
    // Another failure of the read is not taken for a missing table.
    client.run(`CREATE TABLE ${table}_config (k TEXT)`)
    expect(() => engine.builds.mergesHeld('cor_d')).toThrow(/no such column/)
  })
})
