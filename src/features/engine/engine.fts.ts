import type { Database, Statement } from 'bun:sqlite'

// Where a base's passages are indexed. A base has an FTS5 table of its own, `engine_fts_<key>`
// (migrations/0015_engine_own_index.sql), so BM25's passage count and average length, which FTS5
// takes from the whole table, are the base's alone: its ranking never moves because another
// workspace indexed something. Bases indexed before that keep the shared `engine_fts` (their terms
// carry the base's key, so their term counts were already their own) until they are emptied.

/** The statements over one FTS5 table and its vocabulary. */
export interface FtsIndex {
  table: string
  put: Statement
  del: Statement
  df: Statement
  range: Statement
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

  /** Drops a base's own table once the base is gone. */
  drop(key: number): void {
    const table = `engine_fts_${Math.trunc(key)}`
    this.byKey.delete(key)
    this.client.run(`DROP TABLE IF EXISTS ${table}_vocab`)
    this.client.run(`DROP TABLE IF EXISTS ${table}`)
  }

  private prepare(table: string): FtsIndex {
    const q = (sql: string) => this.client.prepare(sql)
    return {
      table,
      put: q(`INSERT INTO ${table} (rowid, terms) VALUES (?, ?)`),
      del: q(`DELETE FROM ${table} WHERE rowid = ?`),
      df: q(`SELECT doc FROM ${table}_vocab WHERE term = ?`),
      range: q(`SELECT term, doc FROM ${table}_vocab WHERE term >= ? AND term < ?`),
    }
  }
}
