import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { bm25Top } from '../../../src/features/engine/engine.topk'

// A table as engine.fts.repo.ts makes one, and the statements bm25Top runs over it.
function table(rows: string[], deleted: number[] = []) {
  const db = new Database(':memory:')
  db.run(
    `CREATE VIRTUAL TABLE t USING fts5(terms, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0')`,
  )
  db.run('CREATE VIRTUAL TABLE t_vocab USING fts5vocab(t, row)')
  for (const [i, r] of rows.entries()) db.run('INSERT INTO t (rowid, terms) VALUES (?, ?)', [i + 1, r])
  for (const id of deleted) db.run('DELETE FROM t WHERE rowid = ?', [id])
  const queries: string[] = []
  const scores = db.prepare('SELECT rowid AS id, bm25(t) AS rank FROM t WHERE t MATCH ?')
  const index = {
    scores: {
      all: (q: string) => {
        queries.push(q)
        return scores.all(q)
      },
    } as unknown as typeof scores,
    top: db.prepare('SELECT rowid AS id, bm25(t) AS rank FROM t WHERE t MATCH ? ORDER BY 2 LIMIT ?'),
  }
  const n = (db.query('SELECT count(*) AS n FROM t_docsize').get() as { n: number }).n
  const df = (term: string) =>
    (db.query('SELECT doc FROM t_vocab WHERE term = ?').get(term) as { doc: number } | null)?.doc ?? 0
  // Pruning tried whatever the table's size (the engine tries it on long posting lists only).
  const top = (terms: string[], limit: number) =>
    bm25Top(
      index,
      n,
      terms.map((token) => ({ token, df: df(token) })),
      limit,
      0,
    )
  // What FTS5 itself ranks first: the query bm25Top stands for.
  const plain = (terms: string[], limit: number) =>
    db
      .query('SELECT rowid AS id, rank FROM t WHERE t MATCH ? ORDER BY rank LIMIT ?')
      .all(terms.map((t) => `"${t}"`).join(' OR '), limit) as { id: number; rank: number }[]
  return { top, plain, queries }
}

// Words from common to rare: word i of WORDS is drawn about twice as often as word i + 1.
const WORDS = 'the river water city bridge copper glass tesla volt ohm'.split(' ')
const word = fc
  .integer({ min: 0, max: (1 << WORDS.length) - 1 })
  .map((x) => WORDS[Math.min(WORDS.length - 1, Math.clz32(x + 1) - 32 + WORDS.length)]!)
const passage = fc.array(word, { minLength: 1, maxLength: 30 }).map((ws) => ws.join(' '))

describe('bm25Top', () => {
  test('finds the passages FTS5 ranks first, in its order, whether or not it can prune', () => {
    fc.assert(
      fc.property(
        fc.array(passage, { minLength: 1, maxLength: 200 }),
        fc.uniqueArray(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 40 }),
        (rows, terms, limit) => {
          const { top, plain } = table(rows)
          const want = plain(terms, limit)
          const got = top(terms, limit)
          expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id))
          for (const [i, h] of got.entries()) expect(h.rank).toBeCloseTo(want[i]!.rank, 9)
        },
      ),
      { numRuns: 60 },
    )
  })

  test('prunes a common term: the best passages hold the rare one, the scores stay FTS5 own', () => {
    const rows = [
      ...Array.from({ length: 300 }, (_, i) => `the river ${i % 7 === 0 ? 'water' : 'bank'} city`),
      ...Array.from({ length: 50 }, (_, i) => `tesla coil ${i % 2 ? 'river' : 'volt'} patent`),
    ]
    const { top, plain, queries } = table(rows, [1, 2, 3])
    const want = plain(['river', 'tesla'], 10)
    const got = top(['river', 'tesla'], 10)
    expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id))
    // Only the passages holding "tesla" were scored.
    expect(queries).toEqual(['"tesla"', '("tesla") AND ("river" OR "tesla")'])
    expect(got.every((h) => h.id > 300)).toBe(true)
  })
})
