import type { Database, Statement } from 'bun:sqlite'
import type { PassageInput } from './cart/index'
import { CART_BYTES, SECTION_COLUMNS } from './engine.builds.repo'
import { FtsIndexes, ftsRow, ftsToken } from './engine.fts.repo'
import { type DecodedPassage, PassageCache } from './engine.passages'
import { Postings } from './engine.postings'
import type { BaseRow, PassageRow, SectionRow, SectionWrites } from './engine.rows'
import { bm25Top, bm25Within, type TopkHit } from './engine.topk'
import { VectorRepo } from './engine.vectors.repo'
import { TermCounts } from './rank/index'

// Tables of engine.tables.ts. A base's passages are indexed in an FTS5 table of its own
// (engine.fts.repo.ts), terms prefixed with its key ("12xoil"); their text in `engine_passages` (same rowid).

type BaseKey = Pick<BaseRow, 'key' | 'ownIndex'>
type BaseState = BaseKey & Pick<BaseRow, 'nPassages' | 'generation'>

/** Prepared statements over the engine tables; every hot path is one prepared call. */
export class EngineRepo {
  private readonly s: Record<string, Statement>
  private readonly keys = new Map<string, number>()
  private readonly own = new Map<number, boolean>() // whether a base (by key) has an FTS5 table of its own
  private readonly fts: FtsIndexes
  private readonly counts = new TermCounts() // from fts5vocab, per base key, for one generation (openBase)
  readonly vectors: VectorRepo // the passages' embeddings, written in the passages' transactions
  /** `postings`: posting lists and passage lengths for in-memory BM25, and `decoded`: rag's passages; per base key, for one generation. */
  constructor(
    readonly client: Database,
    private readonly postings = new Postings(),
    private readonly decoded = new PassageCache(4 * 1024 * 1024),
  ) {
    this.vectors = new VectorRepo(client)
    this.fts = new FtsIndexes(client)
    const q = (sql: string) => client.prepare(sql)
    this.s = {
      key: q('SELECT key, own_index AS ownIndex FROM engine_bases WHERE base_id = ?'),
      newKey: q(
        'INSERT INTO engine_bases (base_id, key, own_index) VALUES (?, (SELECT coalesce(max(key), 0) + 1 FROM engine_bases), 1) RETURNING key, own_index AS ownIndex',
      ),
      state: q(
        'SELECT key, n_passages AS nPassages, generation, own_index AS ownIndex FROM engine_bases WHERE base_id = ?',
      ),
      ownIndex: q('UPDATE engine_bases SET own_index = 1 WHERE base_id = ? AND n_passages = 0'),
      addCount: q(
        'UPDATE engine_bases SET n_passages = n_passages + ?, generation = generation + 1 WHERE base_id = ?',
      ),
      section: q(`SELECT ${SECTION_COLUMNS} FROM engine_sections WHERE section_id = ?`),
      sections: q(`SELECT ${SECTION_COLUMNS} FROM engine_sections WHERE base_id = ? ORDER BY section_id`),
      docSections: q(`SELECT ${SECTION_COLUMNS} FROM engine_sections WHERE base_id = ? AND document_id = ?`),
      putSection: q(
        'INSERT INTO engine_sections (section_id, base_id, document_id, title, filename, cart_key, n_passages, cart_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      // Cartridge bytes per base: kept as a row is inserted or deleted (CART_BYTES), by a trigger as a size is recorded.
      cartBytes: q('SELECT cart_bytes AS cartBytes FROM engine_bases WHERE base_id = ?'),
      addBytes: q(CART_BYTES.add),
      takeBytes: q(CART_BYTES.take),
      delSection: q('DELETE FROM engine_sections WHERE section_id = ?'),
      cartUsers: q('SELECT count(*) AS n FROM engine_sections WHERE cart_key = ?'),
      putPassage: q(
        'INSERT INTO engine_passages (section_id, ordinal, text, sents, words, start) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      passageIds: q('SELECT id FROM engine_passages WHERE section_id = ?'),
      putWords: q('UPDATE engine_passages SET words = ? WHERE section_id = ? AND ordinal = ?'),
      delPassages: q('DELETE FROM engine_passages WHERE section_id = ?'),
      delBase: q('DELETE FROM engine_bases WHERE base_id = ?'),
    }
  }

  /** The numeric key of a base, allocated on first use when `create`. */
  baseKey(baseId: string, create = false): number | null {
    const known = this.keys.get(baseId)
    if (known !== undefined) return known
    const row = (this.s.key!.get(baseId) ?? (create ? this.s.newKey!.get(baseId) : null)) as BaseKey | null
    if (!row) return null
    this.keys.set(baseId, row.key)
    this.own.set(row.key, row.ownIndex === 1)
    return row.key
  }

  /**
   * A base as one search sees it: its key and passage count (its idf's N), or null when nothing of it is
   * indexed. What is cached for it stays while its generation (bumped by any change, any process) is.
   */
  openBase(baseId: string): { key: number; passages: number } | null {
    const row = this.s.state!.get(baseId) as BaseState | null
    if (!row) return null
    // A base an older version indexed in the shared table moves to its own on its first search made with
    // no unit open on the connection (the move would join it, and go with a rollback): shared till then.
    const move = row.ownIndex === 0 && !this.client.inTransaction
    if (move) row.generation = this.fts.moveToOwn(row.key, baseId, (t) => ftsToken(row.key, t))
    this.own.set(row.key, row.ownIndex === 1 || move)
    this.counts.open(row.key, baseId, row.generation)
    this.postings.open(row.key, row.generation)
    this.decoded.open(row.key, row.generation)
    return { key: row.key, passages: row.nPassages }
  }

  /**
   * Indexes a section's passages and records the section, replacing an earlier indexing of it (which
   * it returns) in the same transaction; with `vectors`, also stores the passages' embeddings, with
   * `words` their stored words (else putWords adds them later), with `fts` their FTS5 rows (ftsRow).
   * With `counts` (a group's writes in the caller's transaction), no savepoint of its own and the
   * bases' passage counts are added up there for addCounts, once a group.
   */
  putSection(
    row: Omit<SectionRow, 'cartBytes'> & { cartBytes?: number },
    passages: PassageInput[],
    vectors?: { model: string; list: Float32Array[] } | null,
    { words, fts, prefix, counts, removed }: SectionWrites = {},
  ): SectionRow | null {
    const write = () => {
      const previous = removed ? null : this.removeSection(row.sectionId, counts)
      const key = this.baseKey(row.baseId, true)!
      // A base on the shared index moves to its own once nothing of it is left there.
      if (!this.own.get(key) && this.s.ownIndex!.run(row.baseId).changes > 0) this.own.set(key, true)
      const index = this.indexOf(key)
      this.s.putSection!.run(
        row.sectionId,
        row.baseId,
        row.documentId,
        row.title,
        row.filename,
        row.cartKey,
        passages.length,
        row.cartBytes ?? 0,
      )
      if (row.cartBytes) this.s.addBytes!.run(row.cartBytes, row.baseId, row.cartKey, row.sectionId)
      const tokens = new Map<string, string>()
      const token = (t: string) => tokens.get(t) ?? tokens.set(t, ftsToken(key, t)).get(t)!
      const put = this.s.putPassage!
      passages.forEach((p, i) => {
        const sents = new Uint8Array(p.sents.buffer, p.sents.byteOffset, p.sents.byteLength)
        const w = words?.[i] ?? null
        const { lastInsertRowid } = put.run(row.sectionId, p.ordinal, p.text, sents, w, p.start ?? null)
        const f = fts?.[i]
        index.put.run(lastInsertRowid, f ? ftsRow(key, f, prefix) : p.terms.map(token).join(' '))
      })
      if (vectors) this.vectors.insert(row.sectionId, passages, vectors)
      this.addCount(row.baseId, passages.length, counts)
      return previous
    }
    return counts ? write() : this.client.transaction(write)()
  }
  /** Adds a group's passage counts (putSection's `counts`) to their bases. */
  addCounts(counts: Map<string, number>): void {
    for (const [baseId, n] of counts) this.addCount(baseId, n)
  }
  private addCount(baseId: string, n: number, counts?: Map<string, number>): void {
    if (counts) counts.set(baseId, (counts.get(baseId) ?? 0) + n)
    else this.s.addCount!.run(n, baseId)
    const key = this.keys.get(baseId)
    if (key !== undefined) for (const kept of [this.counts, this.postings, this.decoded]) kept.forget(key)
  }
  /** Forgets the keys and indexes cached for bases whose writes were rolled back (a failed group). */
  forgetBases(baseIds: Iterable<string>): void {
    for (const baseId of baseIds) {
      const key = this.keys.get(baseId)
      this.keys.delete(baseId)
      if (key !== undefined) this.own.delete(key)
      if (key !== undefined) this.fts.forget(key)
    }
  }
  /** Stores the words of a section's passages (`words`: one per ordinal), when indexed without them. */
  putWords(sectionId: string, words: Uint8Array[]): void {
    for (const [ordinal, w] of words.entries()) this.s.putWords!.run(w, sectionId, ordinal)
    this.decoded.clear()
  }
  /** Removes a section's index entries and row (`known`: its row, read before); returns the row removed. */
  removeSection(sectionId: string, counts?: Map<string, number>, known?: SectionRow | null) {
    const row = known === undefined ? (this.s.section!.get(sectionId) as SectionRow | null) : known
    if (!row) return null
    const index = this.indexOf(this.baseKey(row.baseId)!)
    const remove = () => {
      for (const { id } of this.s.passageIds!.all(sectionId) as { id: number }[]) index.del.run(id)
      this.s.delPassages!.run(sectionId)
      this.vectors.deleteSection(sectionId)
      this.s.delSection!.run(sectionId)
      if (row.cartBytes > 0) this.s.takeBytes!.run(row.cartBytes, row.baseId, row.cartKey)
      this.addCount(row.baseId, -row.nPassages, counts)
    }
    if (counts) remove()
    else this.client.transaction(remove)()
    return row
  }
  /** The sections of a base, or of one of its documents. */
  sections(baseId: string): SectionRow[] {
    return this.s.sections!.all(baseId) as SectionRow[]
  }
  documentSections(baseId: string, documentId: string): SectionRow[] {
    return this.s.docSections!.all(baseId, documentId) as SectionRow[]
  }
  /** Whether any section still uses a cartridge (identical content is compiled once). */
  cartInUse(cartKey: string): boolean {
    return (this.s.cartUsers!.get(cartKey) as { n: number }).n > 0
  }
  /** Bytes of the cartridges a base's sections use, each once (kept by triggers). */
  cartBytes(baseId: string): number {
    return (this.s.cartBytes!.get(baseId) as Pick<BaseRow, 'cartBytes'> | null)?.cartBytes ?? 0
  }

  /** The FTS5 index a base's passages are in (its own, or the shared one of bases indexed before). */
  private indexOf(key: number) {
    return this.fts.of(key, this.own.get(key) ?? true)
  }
  /** Forgets a base's key and counters once its sections are gone. */
  dropBase(baseId: string): void {
    const key = this.keys.get(baseId) ?? this.baseKey(baseId)
    this.s.delBase!.run(baseId)
    if (key !== null) {
      for (const kept of [this.counts, this.postings, this.decoded]) kept.forget(key)
      if (this.own.get(key)) this.fts.drop(key)
      this.own.delete(key)
    }
    this.keys.delete(baseId)
  }

  /**
   * Passage counts of the given terms in a base (fts5vocab rows of the base's tokens). fts5vocab reads
   * a term's whole posting list to count it, so a count is kept for the base's current generation:
   * this repo's own changes drop it at once, another process's at the next openBase.
   */
  documentFrequencies(key: number, terms: string[]): number[] {
    return terms.map((t) => {
      let n = this.counts.df(key, t)
      if (n === undefined) {
        // One prepared point look-up per term: an IN list would be a new statement for every length.
        n = (this.indexOf(key).df.values(ftsToken(key, t))[0]?.[0] as number | undefined) ?? 0
        this.counts.keepDf(key, t, n)
      }
      return n
    })
  }

  /** Terms of a base starting with `prefix`, with their passage counts (for spelling fallbacks). */
  termsWithPrefix(key: number, prefix: string): readonly { term: string; doc: number }[] {
    let terms = this.counts.prefix(key, prefix)
    if (terms === undefined) {
      terms = this.readPrefix(key, prefix)
      this.counts.keepPrefix(key, prefix, terms)
    }
    return terms
  }

  private readPrefix(key: number, prefix: string): { term: string; doc: number }[] {
    const from = ftsToken(key, prefix)
    const to = from.slice(0, -1) + String.fromCodePoint(from.codePointAt(from.length - 1)! + 1)
    const head = `${key}x`.length
    return (this.indexOf(key).range.all(from, to) as { term: string; doc: number }[]).map((r) => ({
      term: r.term.slice(head),
      doc: r.doc,
    }))
  }

  /** The `limit` best passages of a base for an FTS5 OR-query of terms by BM25, optionally within documents. */
  match(key: number, terms: string[], limit: number, documentIds?: string[]): TopkHit[] {
    if (terms.length === 0) return []
    const index = this.indexOf(key)
    const tokens = terms.map((t) => ftsToken(key, t))
    if (documentIds) return bm25Within(this.client, index.table, tokens, documentIds, limit)
    // In-memory BM25 once the base's postings are worth reading; FTS5's own query until then.
    const kept = this.postings.top(key, index, tokens, limit)
    if (kept) return kept
    const df = this.documentFrequencies(key, terms).map((n, i) => ({ token: tokens[i]!, df: n }))
    const rows = this.counts.rows(key) ?? this.counts.keepRows(key, index.rows.values()[0]![0] as number)
    return bm25Top(index, rows, df, limit)
  }

  /** Passages by id with their section's source fields, in the order of `ids`. */
  passages(ids: number[]): PassageRow[] {
    if (ids.length === 0) return []
    const rows = this.client
      .query(
        `SELECT p.id, p.section_id AS sectionId, p.ordinal, p.text, p.sents, p.words, s.document_id AS documentId, s.title, s.filename
         FROM engine_passages p JOIN engine_sections s ON s.section_id = p.section_id
         WHERE p.id IN (${ids.map(() => '?').join(',')})`,
      )
      .all(...ids) as PassageRow[]
    const byId = new Map(rows.map((r) => [r.id, r]))
    return ids.map((id) => byId.get(id)).filter((r): r is PassageRow => r !== undefined)
  }
  /** Rag's pool: passages of a base opened by openBase, decoded, kept for its generation (engine.passages.ts). */
  pooled(key: number, ids: number[]): DecodedPassage[] {
    return this.decoded.passages(key, ids, (missing) => this.passages(missing))
  }

  /** Whether any base holds a section (a server with none need not load the engine's tables yet). */
  hasSections(): boolean {
    return Boolean(this.client.query('SELECT 1 AS one FROM engine_sections LIMIT 1').get())
  }
}
