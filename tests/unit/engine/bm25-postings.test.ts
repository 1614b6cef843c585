import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { migrations } from '../../../migrations/index'
import { FtsIndexes } from '../../../src/features/engine/engine.fts.repo'
import { Postings } from '../../../src/features/engine/engine.postings'
import { EngineRepo } from '../../../src/features/engine/engine.repo'
import { contentTerms } from '../../../src/features/engine/text/index'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'

// A base's own FTS5 table as engine.fts.repo.ts makes it, with rows put and some deleted.
function tableOf(rows: string[], deleted: number[]) {
  const db = new Database(':memory:')
  const index = new FtsIndexes(db).of(7, true)
  for (const [i, r] of rows.entries()) index.put.run(i + 1, r)
  for (const id of deleted) index.del.run(id)
  // What FTS5 itself ranks first: the query Postings.top stands for.
  const plain = (terms: string[], limit: number) =>
    db
      .query(
        `SELECT rowid AS id, rank FROM ${index.table} WHERE ${index.table} MATCH ? ORDER BY rank LIMIT ?`,
      )
      .all(terms.map((t) => `"${t}"`).join(' OR '), limit) as { id: number; rank: number }[]
  return { index, plain }
}

// Words from common to rare: word i of WORDS is drawn about twice as often as word i + 1.
const WORDS = 'the river water city bridge copper glass tesla volt ohm'.split(' ')
const word = fc
  .integer({ min: 0, max: (1 << WORDS.length) - 1 })
  .map((x) => WORDS[Math.min(WORDS.length - 1, Math.clz32(x + 1) - 32 + WORDS.length)]!)
const passage = fc.array(word, { minLength: 1, maxLength: 30 }).map((ws) => ws.join(' '))

describe('Postings', () => {
  test('ranks the passages as FTS5 bm25() does, to the same scores, deletions included', () => {
    fc.assert(
      fc.property(
        fc.array(passage, { minLength: 1, maxLength: 200 }),
        fc.array(fc.nat(199)),
        fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 40 }),
        (rows, dead, terms, limit) => {
          const deleted = [...new Set(dead.filter((d) => d < rows.length).map((d) => d + 1))]
          const { index, plain } = tableOf(rows, deleted)
          const postings = new Postings({ readFrom: 2 })
          postings.open(7, 1)
          // The first search of a generation is left to FTS5.
          expect(postings.top(7, index, terms, limit)).toBeNull()
          for (let round = 0; round < 2; round++) {
            const got = postings.top(7, index, terms, limit)!
            expect(got).toEqual(plain(terms, limit))
          }
        },
      ),
      { numRuns: 80 },
    )
  })

  test("reads a small base's every list at once from its eighth search at a generation, to the same scores", () => {
    fc.assert(
      fc.property(
        fc.array(passage, { minLength: 1, maxLength: 120 }),
        fc.array(fc.nat(119)),
        fc.array(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }), {
          minLength: 9,
          maxLength: 12,
        }),
        (rows, dead, questions) => {
          const deleted = [...new Set(dead.filter((d) => d < rows.length).map((d) => d + 1))]
          const { index, plain } = tableOf(rows, deleted)
          // Lists read one by one (the point read) are counted.
          let reads = 0
          const point = index.instances
          const get = (t: string) => {
            reads++
            return point.get(t)
          }
          const counted = { ...index, instances: { get } }
          const postings = new Postings()
          postings.open(7, 1)
          for (const [i, terms] of questions.entries()) {
            const before = reads
            const got = postings.top(7, counted as typeof index, terms, 10)
            if (i < 3) expect(got).toBeNull()
            else expect(got).toEqual(plain(terms, 10))
            // From the eighth search on, no list is read by itself.
            if (i >= 7) expect(reads).toBe(before)
          }
        },
      ),
      { numRuns: 40 },
    )
  })

  test('reads the lists again once the generation changes, and stays right when its bound keeps almost none', () => {
    const { index, plain } = tableOf(['the river', 'the city', 'river city river'], [])
    const postings = new Postings({ maxBytes: 12, readFrom: 2 })
    postings.open(7, 1)
    postings.top(7, index, ['river'], 5)
    expect(postings.top(7, index, ['river', 'city'], 5)).toEqual(plain(['river', 'city'], 5))
    index.put.run(4, 'river river river')
    postings.open(7, 2)
    postings.top(7, index, ['river'], 5)
    expect(postings.top(7, index, ['river', 'the'], 5)).toEqual(plain(['river', 'the'], 5))
  })

  test('keeps the lengths of a bounded number of bases, forgetting the least recently searched', () => {
    const { index } = tableOf(['the river', 'the city'], [])
    const postings = new Postings({ readFrom: 2 })
    for (let key = 1; key <= 17; key++) {
      postings.open(key, 1)
      postings.top(key, index, ['river'], 5)
      postings.top(key, index, ['river'], 5)
    }
    // Base 1 was forgotten for base 17: its next search starts its generation again.
    postings.open(1, 1)
    expect(postings.top(1, index, ['river'], 5)).toBeNull()
    postings.open(2, 1)
    expect(postings.top(2, index, ['river'], 5)).not.toBeNull()
  })

  test('a base takes FTS5 own query on its first three searches at a generation, then its postings', () => {
    const { index, plain } = tableOf(['the river', 'the city', 'river city river'], [])
    const postings = new Postings()
    postings.open(7, 1)
    for (let i = 0; i < 3; i++) expect(postings.top(7, index, ['river'], 5)).toBeNull()
    expect(postings.top(7, index, ['river'], 5)).toEqual(plain(['river'], 5))
    postings.open(7, 2)
    expect(postings.top(7, index, ['river'], 5)).toBeNull()
  })

  test("a repo's pool is FTS5's own, also after another connection writes", () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-postings-'))
    try {
      const open = () => {
        const db = openDatabase(join(dir, 'engram.db'))
        migrate(db, migrations)
        return new EngineRepo(db.$client)
      }
      const writer = open()
      const reader = open()
      const put = (id: string, passages: string[]) =>
        writer.putSection(
          {
            sectionId: id,
            baseId: 'cor_a',
            documentId: id,
            title: id,
            filename: `${id}.txt`,
            cartKey: id,
            nPassages: 0,
          },
          passages.map((text, ordinal) => ({
            ordinal,
            text,
            sents: Uint32Array.from([0, text.length]),
            terms: contentTerms(text),
          })),
        )
      const terms = contentTerms('copper wire city')
      // What FTS5 itself ranks first over the base's own table.
      const plain = () => {
        const key = reader.baseKey('cor_a')!
        return reader.client
          .query(
            `SELECT rowid AS id, rank FROM engine_fts_${key} WHERE engine_fts_${key} MATCH ? ORDER BY rank LIMIT 3`,
          )
          .all(terms.map((t) => `"${key}x${t}"`).join(' OR ')) as { id: number; rank: number }[]
      }
      const search = () => {
        const key = reader.openBase('cor_a')!.key
        return reader.match(key, terms, 3)
      }
      put('s1', ['Copper wire in the city.', 'Copper copper wire.', 'Glass from sand.', 'The city at night.'])
      // The first searches of a generation take FTS5's query, the later ones the postings.
      for (let i = 0; i < 5; i++) expect(search()).toEqual(plain())
      put('s2', ['Copper copper copper wire wire, city city.', 'Wire.'])
      writer.removeSection('s1')
      for (let i = 0; i < 5; i++) expect(search()).toEqual(plain())
      expect(search().length).toBe(2)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
