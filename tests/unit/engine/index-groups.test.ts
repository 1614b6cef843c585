import { describe, expect, test } from 'bun:test'
import { migrations } from '../../../migrations/index'
import { indexSection } from '../../../src/features/engine/cart/index'
import { ftsRow } from '../../../src/features/engine/engine.fts.repo'
import { Engine } from '../../../src/features/engine/engine.service'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { docs, memoryStore } from './fixture'

// A run's group of sections is written in one transaction without a savepoint a section, the base's
// passage count (and generation) updated once; a failing section still rolls back alone: the group is
// written again a savepoint a section.

function engineOf() {
  const db = openDatabase(':memory:')
  migrate(db, migrations)
  const engine = new Engine({ db, store: memoryStore(), cacheBytes: 1 << 24, now: () => 0 })
  return { db, engine }
}

const inputs = (baseId: string) =>
  docs.map((d) => ({
    workspaceId: 'ws_1',
    baseId,
    documentId: d.id,
    sectionId: `sec_${baseId}_${d.id}`,
    title: d.title,
    filename: d.filename,
    text: d.text,
  }))

type Base = { n: number; generation: number; own_index: number }
const base = (db: ReturnType<typeof openDatabase>, baseId: string) =>
  db.$client
    .query('SELECT n_passages AS n, generation, own_index FROM engine_bases WHERE base_id = ?')
    .get(baseId) as Base | null
const passages = (db: ReturnType<typeof openDatabase>) =>
  (db.$client.query('SELECT count(*) AS n FROM engine_passages').get() as { n: number }).n
const sources = async (engine: Engine, baseId: string, question: string) =>
  (await engine.ask(baseId, { question, strategy: 'rag', k: 3 })).sources.map((s) => s.documentId)

describe("a run's group of sections", () => {
  test("is counted once: the base's passage count and generation change once a group, and again once when it is indexed again", async () => {
    const { db, engine } = engineOf()
    const group = inputs('cor_1')
    const out = await engine.indexSections(group)
    const total = out.reduce((n, r) => n + (r instanceof Error ? 0 : r.passages), 0)
    expect(total).toBeGreaterThanOrEqual(group.length)
    const first = base(db, 'cor_1')!
    expect(first.n).toBe(total)
    expect(passages(db)).toBe(total)
    // A forced run replaces every section: the count nets out, the generation moves once more.
    await engine.indexSections(group)
    const again = base(db, 'cor_1')!
    expect(again.n).toBe(total)
    expect(again.generation).toBe(first.generation + 1)
    expect(passages(db)).toBe(total)
    expect(await sources(engine, 'cor_1', 'Who discovered oxygen?')).toContain('doc_oxygen')
  })

  test('with a failing section: that section alone is left out, the others indexed and counted, the new base answers', async () => {
    const { db, engine } = engineOf()
    const group = inputs('cor_new')
    const chunked = group.map((g) => indexSection(g.text))
    // The second section's passages cannot be written (no sentence spans): it fails mid-write.
    const broken = { ...chunked[1]!, passages: chunked[1]!.passages.map((p) => ({ ...p, sents: undefined })) }
    const out = await engine.indexSections(group, [chunked[0]!, broken as never, chunked[2]!])
    expect(out[1]).toBeInstanceOf(Error)
    expect(out[0]).not.toBeInstanceOf(Error)
    expect(out[2]).not.toBeInstanceOf(Error)
    const written = [out[0], out[2]].reduce((n, r) => n + (r as { passages: number }).passages, 0)
    expect(base(db, 'cor_new')).toMatchObject({ n: written, own_index: 1 })
    expect(passages(db)).toBe(written)
    const rows = db.$client.query('SELECT section_id FROM engine_sections ORDER BY section_id').all()
    expect(rows).toEqual([{ section_id: group[0]!.sectionId }, { section_id: group[2]!.sectionId }])
    expect(await sources(engine, 'cor_new', 'What river is Warsaw on?')).toContain('doc_warsaw')
    expect(await sources(engine, 'cor_new', 'Who discovered oxygen?')).not.toContain('doc_oxygen')
    // The failed section indexed later joins the same base's table and count.
    const retry = await engine.indexSections([group[1]!])
    const n = (retry[0] as { passages: number }).passages
    expect(base(db, 'cor_new')!.n).toBe(written + n)
    expect(await sources(engine, 'cor_new', 'Who discovered oxygen?')).toContain('doc_oxygen')
  })
})

describe("a run's group and FTS5", () => {
  test('writes its terms as one segment a group, not one a section (no statement in the group makes FTS5 write them early)', async () => {
    const { db, engine } = engineOf()
    const key = (baseId: string) =>
      (db.$client.query('SELECT key FROM engine_bases WHERE base_id = ?').get(baseId) as { key: number }).key
    const segments = (baseId: string) =>
      (
        db.$client.query(`SELECT count(DISTINCT segid) AS n FROM engine_fts_${key(baseId)}_idx`).get() as {
          n: number
        }
      ).n
    // Twelve sections in one group, each with text of its own.
    const group = Array.from({ length: 4 }, (_, i) =>
      inputs('cor_seg').map((g) => ({
        ...g,
        sectionId: `${g.sectionId}_${i}`,
        text: `${g.text} Copy ${i}.`,
      })),
    ).flat()
    const out = await engine.indexSections(group)
    expect(out.filter((r) => r instanceof Error)).toEqual([])
    expect(segments('cor_seg')).toBe(1)
    // Their cartridges built, a forced run of the same group (each section's rows replaced, removed
    // first): one segment more, and every section keeps its built cartridge (none waits for one again).
    while (engine.builds.left('cor_seg') > 0)
      await engine.buildDeferred('cor_seg', async (id) => group.find((g) => g.sectionId === id)?.text ?? null)
    const keys = () => db.$client.query('SELECT section_id, cart_key FROM engine_sections ORDER BY 1').all()
    const built = keys()
    const again = await engine.indexSections(group)
    expect(again.filter((r) => r instanceof Error)).toEqual([])
    expect(segments('cor_seg')).toBe(2)
    expect(engine.builds.left('cor_seg')).toBe(0)
    expect(keys()).toEqual(built)
    expect(await sources(engine, 'cor_seg', 'Who discovered oxygen?')).toContain('doc_oxygen')
  })
})

describe("a base's cartridge bytes (kept by the repo as a row is written, migration 0034, and a trigger as a size is recorded)", () => {
  test('equal the sizes of the cartridges its sections use, once each, through indexing, building, copies, re-indexing and deletes', async () => {
    const { db, engine } = engineOf()
    const kept = () =>
      (
        db.$client.query('SELECT cart_bytes AS n FROM engine_bases WHERE base_id = ?').get('cor_1') as {
          n: number
        }
      ).n
    const recomputed = () =>
      (
        db.$client
          .query(
            'SELECT coalesce(sum(m), 0) AS n FROM (SELECT max(cart_bytes) AS m FROM engine_sections WHERE base_id = ? GROUP BY cart_key)',
          )
          .get('cor_1') as { n: number }
      ).n
    const group = inputs('cor_1')
    await engine.indexSections(group)
    expect(kept()).toBe(0)
    while (engine.builds.left('cor_1') > 0)
      await engine.buildDeferred('cor_1', async (id) => group.find((g) => g.sectionId === id)?.text ?? null)
    const built = kept()
    expect(built).toBeGreaterThan(0)
    expect(built).toBe(recomputed())
    // A copy in the same base shares its cartridge: counted once.
    await engine.indexSections([{ ...group[0]!, sectionId: 'sec_copy', documentId: 'doc_copy' }])
    expect(kept()).toBe(built)
    // Re-indexing unchanged text keeps the built cartridges; a changed text waits for a new one.
    await engine.indexSections([group[1]!, { ...group[2]!, text: `${group[2]!.text} It has a zoo.` }])
    expect(kept()).toBe(recomputed())
    expect(kept()).toBeLessThan(built)
    await engine.removeSection('sec_copy')
    await engine.removeSection(group[0]!.sectionId)
    expect(kept()).toBe(recomputed())
    for (const g of group) await engine.removeSection(g.sectionId)
    expect(kept()).toBe(0)
  })
})

describe("a run's group chunked with the base's token prefix (Engine.chunkSections)", () => {
  /** Every (term, passage) instance of the base's index. */
  const rows = (db: ReturnType<typeof openDatabase>, key: number) => {
    db.$client.run(
      `CREATE VIRTUAL TABLE IF NOT EXISTS temp.v_${key} USING fts5vocab(main, engine_fts_${key}, instance)`,
    )
    return db.$client.query(`SELECT term, doc, offset FROM temp.v_${key} ORDER BY term, doc, offset`).all()
  }

  test('has no prefix before the base has a key, then its own; either way the index holds the rows and answers the same', async () => {
    const plain = engineOf()
    const told = engineOf()
    const first = inputs('cor_p').slice(0, 2)
    const rest = inputs('cor_p').slice(2)
    // Before its first indexing the base has no key: nothing to put before the terms.
    const early = await told.engine.chunkSections(
      first.map((i) => i.text),
      'cor_p',
    )
    expect(early.every((c) => c.prefix === '')).toBe(true)
    await told.engine.indexSections(first, early)
    await plain.engine.indexSections(first)
    const key = (
      told.db.$client.query("SELECT key FROM engine_bases WHERE base_id = 'cor_p'").get() as {
        key: number
      }
    ).key
    const late = await told.engine.chunkSections(
      rest.map((i) => i.text),
      'cor_p',
    )
    expect(late.every((c) => c.prefix === `${key}x`)).toBe(true)
    // The rows are made on the chunking side: the event loop writes them as they are.
    expect(late[0]!.fts[0]!.terms.startsWith(`${key}x`)).toBe(true)
    expect(late[0]!.fts[0]!.terms).toBe(
      indexSection(rest[0]!.text)
        .fts[0]!.terms.split(' ')
        .map((t) => `${key}x${t}`)
        .join(' '),
    )
    await told.engine.indexSections(rest, late)
    await plain.engine.indexSections(rest)
    expect(rows(told.db, key)).toEqual(rows(plain.db, key))
    for (const q of ['Who discovered oxygen?', 'What is the capital?'])
      expect(await sources(told.engine, 'cor_p', q)).toEqual(await sources(plain.engine, 'cor_p', q))
  })

  test("rows chunked with another key's prefix (the base's key given anew meanwhile) are written with the base's", () => {
    expect(ftsRow(12, { terms: 'oxygen priestley', count: 2 })).toBe('12xoxygen 12xpriestley')
    expect(ftsRow(12, { terms: '12xoxygen 12xpriestley', count: 2 }, '12x')).toBe('12xoxygen 12xpriestley')
    expect(ftsRow(12, { terms: '7xoxygen 7xpriestley', count: 2 }, '7x')).toBe('12xoxygen 12xpriestley')
    // A term that holds another key's prefix inside it keeps it: only each term's start is the prefix.
    expect(ftsRow(12, { terms: '7xa7xb 7xc', count: 2 }, '7x')).toBe('12xa7xb 12xc')
    expect(ftsRow(12, { terms: '', count: 0 }, '7x')).toBe('')
  })
})
