// The baseline of the retrieval bench: plain SQLite FTS5 `bm25()` over the same documents, the
// afternoon's work any user could write (the yardstick). One in-memory FTS5 table, one row per
// document (title, blank line, text); the query is the question's words, each quoted, OR-ed.
import { Database } from 'bun:sqlite'

/** FTS5's default tokenizer, and the same with the Porter stemmer in front. */
export type Fts5Tokenizer = 'unicode61' | 'porter unicode61'

/** The FTS5 query of a question: its distinct words (letters and digits), quoted and OR-ed. */
export function orQuery(question: string): string {
  const words = new Set(question.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
  return [...words].map((w) => `"${w}"`).join(' OR ')
}

/** A bm25() ranker over a fixed list of documents. */
export class Fts5Bm25 {
  private readonly db = new Database(':memory:')
  private readonly ids: string[]
  private readonly search: ReturnType<Database['prepare']>

  constructor(docs: readonly { id: string; title: string; text: string }[], tokenizer: Fts5Tokenizer) {
    this.ids = docs.map((d) => d.id)
    this.db.run(`CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = '${tokenizer}')`)
    const insert = this.db.prepare('INSERT INTO docs (rowid, body) VALUES (?, ?)')
    this.db.transaction(() => {
      for (const [i, d] of docs.entries()) insert.run(i + 1, `${d.title}\n\n${d.text}`)
    })()
    // Ties (equal scores) go to the earlier document, so a run is repeatable.
    this.search = this.db.prepare(
      'SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs), rowid LIMIT ?',
    )
  }

  /** The ids of the `k` best documents for `question`, best first. */
  rank(question: string, k: number): string[] {
    const match = orQuery(question)
    if (!match) return []
    const rows = this.search.all(match, k) as { rowid: number }[]
    return rows.map((r) => this.ids[r.rowid - 1]!)
  }

  close(): void {
    this.db.close()
  }
}
