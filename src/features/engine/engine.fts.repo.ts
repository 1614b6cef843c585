import type { Database, Statement } from 'bun:sqlite'
import { passageTerms } from './cart/index'
import type { PostingStatements } from './engine.postings'
import type { BaseRow, PassageRow } from './engine.rows'
import type { Bm25Statements } from './engine.topk'
import { ftsTerm } from './text/index'

// Where a base's passages are indexed. A base has an FTS5 table of its own, `engine_fts_<key>`
// (migrations/0015_engine_own_index.sql), so BM25's passage count and average length, which FTS5
// takes from the whole table, are the base's alone: its ranking never moves because another
// workspace indexed something. A base indexed before in the shared `engine_fts` moves to its own
// table the first time it is searched (`moveToOwn`), its passages' terms read again from their text.

/** The FTS token of a term in a base: the base key, "x", then the term without punctuation. */
export function ftsToken(key: number, term: string): string {
  return `${tokenPrefix(key)}${ftsTerm(term)}`
}

/** The prefix of every token of a base's FTS5 rows (ftsToken's); none for a base without a key yet. */
export function tokenPrefix(key: number | null): string {
  return key === null ? '' : `${key}x`
}

/**
 * A passage's FTS5 row in a base from its terms as ftsTerm cleans them, joined by spaces (`count` of
 * them), each after `prefix`: a row chunked with the base's own prefix is the row; one chunked with
 * none (or another, a key given again meanwhile) gets the base's.
 */
export function ftsRow(key: number, { terms, count }: { terms: string; count: number }, prefix = ''): string {
  const own = tokenPrefix(key)
  if (count === 0) return ''
  if (prefix === own) return terms
  const bare = prefix === '' ? terms : terms.slice(prefix.length).replaceAll(` ${prefix}`, ' ')
  return `${own}${bare.replaceAll(' ', ` ${own}`)}`
}

/** The statements over one FTS5 table and its vocabulary. */
export interface FtsIndex extends Bm25Statements, PostingStatements {
  table: string
  put: Statement
  del: Statement
  df: Statement
  range: Statement
  rows: Statement
}

/** The FTS5 index of each base: its own table, or the shared one for bases indexed before. */
export class FtsIndexes {
  private readonly byKey = new Map<number, FtsIndex>()
  private shared: FtsIndex | null = null

  constructor(private readonly client: Database) {}

  /** The index of a base (`own`: its own table, created on first use). */
  of(key: number, own: boolean): FtsIndex {
    if (!own) {
      this.shared ??= this.prepare('engine_fts')
      return this.shared
    }
    let index = this.byKey.get(key)
    if (!index) {
      const table = `engine_fts_${Math.trunc(key)}`
      this.client.run(
        `CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING fts5(
           terms, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0')`,
      )
      this.client.run(`CREATE VIRTUAL TABLE IF NOT EXISTS ${table}_vocab USING fts5vocab(${table}, row)`)
      index = this.prepare(table)
      this.byKey.set(key, index)
    }
    return index
  }

  /** Forgets a base's own table's statements (created in a transaction that was rolled back). */
  forget(key: number): void {
    this.byKey.delete(key)
  }

  /**
   * Moves a base from the shared table to one of its own, in one transaction: each passage's terms
   * are read again from its stored text and sentence spans (as compiling found them), indexed in the
   * new table and removed from the shared one. Returns the base's new generation (cached counts go).
   */
  moveToOwn(key: number, baseId: string, token: (term: string) => string): number {
    const rows = this.client
      .query(
        `SELECT p.id, p.text, p.sents FROM engine_passages p JOIN engine_sections s ON s.section_id = p.section_id
         WHERE s.base_id = ?`,
      )
      .all(baseId) as Pick<PassageRow, 'id' | 'text' | 'sents'>[]
    return this.client.transaction(() => {
      const own = this.of(key, true)
      const shared = this.of(key, false)
      for (const r of rows) {
        const sents = new Uint32Array(Uint8Array.from(r.sents).buffer)
        own.put.run(r.id, passageTerms(r.text, sents).map(token).join(' '))
        shared.del.run(r.id)
      }
      const moved = this.client
        .query(
          'UPDATE engine_bases SET own_index = 1, generation = generation + 1 WHERE base_id = ? RETURNING generation',
        )
        .get(baseId) as Pick<BaseRow, 'generation'>
      return moved.generation
    })()
  }

  /** Drops a base's own table once the base is gone. */
  drop(key: number): void {
    const table = `engine_fts_${Math.trunc(key)}`
    this.byKey.delete(key)
    this.client.run(`DROP TABLE IF EXISTS temp.${table}_inst`)
    this.client.run(`DROP TABLE IF EXISTS ${table}_vocab`)
    this.client.run(`DROP TABLE IF EXISTS ${table}`)
  }

  private prepare(table: string): FtsIndex {
    const q = (sql: string) => this.client.prepare(sql)
    // Each occurrence of a term, for in-memory BM25 (engine.postings.ts): a temp table, as it
    // stores nothing and need not outlive the connection.
    this.client.run(
      `CREATE VIRTUAL TABLE IF NOT EXISTS temp.${table}_inst USING fts5vocab(main, ${table}, instance)`,
    )
    return {
      table,
      put: q(`INSERT INTO ${table} (rowid, terms) VALUES (?, ?)`),
      del: q(`DELETE FROM ${table} WHERE rowid = ?`),
      df: q(`SELECT doc FROM ${table}_vocab WHERE term = ?`),
      range: q(`SELECT term, doc FROM ${table}_vocab WHERE term >= ? AND term < ?`),
      // The passage count bm25() takes its idf from, as FTS5 counts it (engine.topk.ts bounds scores with it).
      rows: q(`SELECT count(*) FROM ${table}_docsize`),
      // bm25() itself, not the rank column: ORDER BY rank takes FTS5's sorted plan, a third slower.
      scores: q(`SELECT rowid AS id, bm25(${table}) AS rank FROM ${table} WHERE ${table} MATCH ?`),
      // One string per statement: rows read one by one cost more than FTS5 takes to list them.
      averages: q(`SELECT block FROM ${table}_data WHERE id = 1`),
      sizes: q(
        `SELECT count(*) AS n, group_concat(id) AS ids, group_concat(hex(sz), '') AS sz FROM ${table}_docsize`,
      ),
      instances: q(`SELECT group_concat(doc) AS docs FROM temp.${table}_inst WHERE term = ?`),
      // Every term's, in one string: a statement each term would cost what reading it alone does.
      lists: q(
        `SELECT group_concat(term || ' ' || docs, ' ') AS lists FROM
           (SELECT term, group_concat(doc) AS docs FROM temp.${table}_inst GROUP BY term)`,
      ),
      top: q(
        `SELECT rowid AS id, bm25(${table}) AS rank FROM ${table} WHERE ${table} MATCH ? ORDER BY 2 LIMIT ?`,
      ),
    }
  }
}
