import type { Database, Statement } from 'bun:sqlite'
import type { PassageInput } from './lib/passages'

// The engine's tables are created by migrations/0004_engine.sql. The passage index is ONE
// contentless FTS5 table shared by every base; each base's terms are written with the base's numeric
// key as a prefix ("12xoil"), so a query only ever reads the posting lists of its own base: its cost
// does not grow with other bases' data, and the per-term document counts (fts5vocab) are per base
// too. Passage text lives beside it in `engine_passages` (same rowid).

/** What the engine records about an indexed section (the source fields come from here). */
export interface SectionRow {
  section_id: string
  base_id: string
  document_id: string
  title: string
  filename: string
  cart_key: string
  n_passages: number
  /** Bytes of the cartridge in the store; 0 while unknown (sections indexed before it was recorded). */
  cart_bytes: number
}

/** A passage still to embed: where it is and the text its vector is made from. */
export interface PendingPassage {
  section_id: string
  ordinal: number
  text: string
}

/** A passage as rag reads it back: its text, sentence spans within it, and its section's fields. */
export interface PassageRow {
  id: number
  section_id: string
  ordinal: number
  text: string
  sents: Uint8Array
  document_id: string
  title: string
  filename: string
}

/** The FTS token of a term in a base: the base key, "x", then the term without punctuation. */
export function ftsToken(key: number, term: string): string {
  return `${key}x${PLAIN.test(term) ? term : term.replace(/[^\p{L}\p{N}]/gu, '')}`
}
// Most terms are plain lower-case ASCII and need no clean-up.
const PLAIN = /^[a-z0-9]*$/

/** Term counts of one generation of a base's index. */
interface VocabCache {
  baseId: string
  generation: number
  df: Map<string, number>
  prefixes: Map<string, { term: string; doc: number }[]>
  /** Cached counts plus prefix-list entries, for the bound below. */
  entries: number
}
// Bound of the term-count cache over all bases (counts and prefix-list entries); past it, it starts again.
const VOCAB_ENTRIES = 200_000

/** Prepared statements over the engine tables; every hot path is one prepared call. */
export class EngineRepo {
  private readonly s: Record<string, Statement>
  private readonly keys = new Map<string, number>()
  /** Term counts read from fts5vocab, per base key, for one generation of the base (see openBase). */
  private readonly vocab = new Map<number, VocabCache>()
  private vocabEntries = 0
  constructor(readonly client: Database) {
    const q = (sql: string) => client.prepare(sql)
    this.s = {
      key: q('SELECT key FROM engine_bases WHERE base_id = ?'),
      newKey: q(
        'INSERT INTO engine_bases (base_id, key) VALUES (?, (SELECT coalesce(max(key), 0) + 1 FROM engine_bases)) RETURNING key',
      ),
      state: q('SELECT key, n_passages AS n, generation FROM engine_bases WHERE base_id = ?'),
      addCount: q(
        'UPDATE engine_bases SET n_passages = n_passages + ?, generation = generation + 1 WHERE base_id = ?',
      ),
      section: q('SELECT * FROM engine_sections WHERE section_id = ?'),
      sections: q('SELECT * FROM engine_sections WHERE base_id = ? ORDER BY section_id'),
      docSections: q('SELECT * FROM engine_sections WHERE document_id = ?'),
      putSection: q(
        'INSERT INTO engine_sections (section_id, base_id, document_id, title, filename, cart_key, n_passages, cart_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      // Cartridge bytes per base are kept by triggers (migrations/0012_engine_cart_bytes.sql).
      cartBytes: q('SELECT cart_bytes AS n FROM engine_bases WHERE base_id = ?'),
      unmeasured: q('SELECT DISTINCT cart_key FROM engine_sections WHERE cart_bytes = 0 LIMIT ?'),
      measure: q('UPDATE engine_sections SET cart_bytes = ? WHERE cart_key = ? AND cart_bytes = 0'),
      delSection: q('DELETE FROM engine_sections WHERE section_id = ?'),
      cartUsers: q('SELECT count(*) AS n FROM engine_sections WHERE cart_key = ?'),
      putPassage: q('INSERT INTO engine_passages (section_id, ordinal, text, sents) VALUES (?, ?, ?, ?)'),
      putFts: q('INSERT INTO engine_fts (rowid, terms) VALUES (?, ?)'),
      passageIds: q('SELECT id FROM engine_passages WHERE section_id = ?'),
      delFts: q('DELETE FROM engine_fts WHERE rowid = ?'),
      delPassages: q('DELETE FROM engine_passages WHERE section_id = ?'),
      delBase: q('DELETE FROM engine_bases WHERE base_id = ?'),
      // Written only while the passage still holds the text the vector was made from.
      putVector: q(
        `INSERT OR REPLACE INTO engine_vectors (section_id, ordinal, model, vec)
         SELECT ?1, ?2, ?3, ?4 WHERE EXISTS
           (SELECT 1 FROM engine_passages WHERE section_id = ?1 AND ordinal = ?2 AND text = ?5)`,
      ),
      putVectorNow: q('INSERT INTO engine_vectors (section_id, ordinal, model, vec) VALUES (?, ?, ?, ?)'),
      unvectored: q(
        `SELECT p.section_id, p.ordinal, p.text FROM engine_passages p
         WHERE p.section_id = ? AND NOT EXISTS (SELECT 1 FROM engine_vectors v
           WHERE v.section_id = p.section_id AND v.ordinal = p.ordinal AND v.model = ?)
         ORDER BY p.ordinal`,
      ),
      unvectoredBases: q(
        `SELECT DISTINCT s.base_id FROM engine_sections s WHERE EXISTS (SELECT 1 FROM engine_passages p
           WHERE p.section_id = s.section_id AND NOT EXISTS (SELECT 1 FROM engine_vectors v
             WHERE v.section_id = p.section_id AND v.ordinal = p.ordinal AND v.model = ?))
         ORDER BY s.base_id`,
      ),
      vector: q('SELECT vec FROM engine_vectors WHERE section_id = ? AND ordinal = ? AND model = ?'),
      sectionVectors: q(
        'SELECT ordinal, vec FROM engine_vectors WHERE section_id = ? AND model = ? ORDER BY ordinal',
      ),
      delVectors: q('DELETE FROM engine_vectors WHERE section_id = ?'),
      range: q('SELECT term, doc FROM engine_fts_vocab WHERE term >= ? AND term < ?'),
      df: q('SELECT doc FROM engine_fts_vocab WHERE term = ?'),
    }
  }

  /** The numeric key of a base, allocated on first use when `create`. */
  baseKey(baseId: string, create = false): number | null {
    const known = this.keys.get(baseId)
    if (known !== undefined) return known
    const row = this.s.key!.get(baseId) as { key: number } | null
    const key = row?.key ?? (create ? (this.s.newKey!.get(baseId) as { key: number }).key : null)
    if (key !== null) this.keys.set(baseId, key)
    return key
  }

  /**
   * A base as one search sees it: its key and number of passages (the N of its idf), or null when
   * nothing of it is indexed. Term counts cached for the base stay only while its generation (bumped
   * by every change to its index, in any process) is the one they were read at.
   */
  openBase(baseId: string): { key: number; passages: number } | null {
    const row = this.s.state!.get(baseId) as { key: number; n: number; generation: number } | null
    if (!row) return null
    const c = this.vocab.get(row.key)
    if (!c || c.baseId !== baseId || c.generation !== row.generation) {
      this.forget(row.key)
      this.vocab.set(row.key, {
        baseId,
        generation: row.generation,
        df: new Map(),
        prefixes: new Map(),
        entries: 0,
      })
    }
    return { key: row.key, passages: row.n }
  }

  /**
   * Indexes a section's passages and records the section, replacing an earlier indexing of it (which
   * it returns) in the same transaction; with `vectors`, also stores the passages' embeddings (one per
   * passage, in order).
   */
  putSection(
    row: Omit<SectionRow, 'cart_bytes'> & { cart_bytes?: number },
    passages: PassageInput[],
    vectors?: { model: string; list: Float32Array[] } | null,
  ): SectionRow | null {
    return this.client.transaction(() => {
      const previous = this.removeSection(row.section_id)
      const key = this.baseKey(row.base_id, true)!
      this.s.putSection!.run(
        row.section_id,
        row.base_id,
        row.document_id,
        row.title,
        row.filename,
        row.cart_key,
        passages.length,
        row.cart_bytes ?? 0,
      )
      const tokens = new Map<string, string>()
      const token = (t: string) => {
        let k = tokens.get(t)
        if (k === undefined) {
          k = ftsToken(key, t)
          tokens.set(t, k)
        }
        return k
      }
      for (const p of passages) {
        const sents = new Uint8Array(p.sents.buffer, p.sents.byteOffset, p.sents.byteLength)
        const { lastInsertRowid } = this.s.putPassage!.run(row.section_id, p.ordinal, p.text, sents)
        this.s.putFts!.run(lastInsertRowid, p.terms.map(token).join(' '))
      }
      if (vectors) {
        for (const [i, p] of passages.entries()) {
          const v = vectors.list[i]!
          const bytes = new Uint8Array(v.buffer, v.byteOffset, v.byteLength)
          this.s.putVectorNow!.run(row.section_id, p.ordinal, vectors.model, bytes)
        }
      }
      this.s.addCount!.run(passages.length, row.base_id)
      this.forget(key)
      return previous
    })()
  }

  /** Removes a section's index entries and row; returns the row that was removed, if any. */
  removeSection(sectionId: string): SectionRow | null {
    const row = this.s.section!.get(sectionId) as SectionRow | null
    if (!row) return null
    this.client.transaction(() => {
      for (const { id } of this.s.passageIds!.all(sectionId) as { id: number }[]) this.s.delFts!.run(id)
      this.s.delPassages!.run(sectionId)
      this.s.delVectors!.run(sectionId)
      this.s.delSection!.run(sectionId)
      this.s.addCount!.run(-row.n_passages, row.base_id)
      const key = this.keys.get(row.base_id)
      if (key !== undefined) this.forget(key)
    })()
    return row
  }

  /** The passages of a section with no vector from `model`, in order. */
  passagesWithoutVector(sectionId: string, model: string): PendingPassage[] {
    return this.s.unvectored!.all(sectionId, model) as PendingPassage[]
  }

  /** Stores passages' vectors from `model`, skipping passages whose text is no longer `text`; returns how many. */
  putVectors(model: string, rows: (PendingPassage & { vec: Float32Array })[]): number {
    let stored = 0
    this.client.transaction(() => {
      for (const r of rows) {
        const bytes = new Uint8Array(r.vec.buffer, r.vec.byteOffset, r.vec.byteLength)
        stored += this.s.putVector!.run(r.section_id, r.ordinal, model, bytes, r.text).changes
      }
    })()
    return stored
  }

  /** Bases with at least one passage lacking a vector from `model`. */
  basesWithoutVectors(model: string): string[] {
    return (this.s.unvectoredBases!.all(model) as { base_id: string }[]).map((r) => r.base_id)
  }

  /** The embeddings by `model` of a section's passages, by ordinal (null where a passage has none). */
  sectionVectors(sectionId: string, model: string): (Float32Array | null)[] {
    const rows = this.s.sectionVectors!.all(sectionId, model) as { ordinal: number; vec: Uint8Array }[]
    const list: (Float32Array | null)[] = []
    for (const { ordinal, vec: b } of rows) {
      while (list.length < ordinal) list.push(null)
      list[ordinal] = new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength))
    }
    return list
  }

  /** A passage's embedding by `model`, or null when it has none from that model. */
  vector(sectionId: string, ordinal: number, model: string): Float32Array | null {
    const row = this.s.vector!.get(sectionId, ordinal, model) as { vec: Uint8Array } | null
    if (!row) return null
    const b = row.vec
    return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength))
  }

  /** The sections of a base, or of one document. */
  sections(baseId: string): SectionRow[] {
    return this.s.sections!.all(baseId) as SectionRow[]
  }
  /** The sections of one document. */
  documentSections(documentId: string): SectionRow[] {
    return this.s.docSections!.all(documentId) as SectionRow[]
  }

  /** Whether any section still uses a cartridge (identical content is compiled once). */
  cartInUse(cartKey: string): boolean {
    return (this.s.cartUsers!.get(cartKey) as { n: number }).n > 0
  }

  /** Bytes of the cartridges a base's sections use, each once (kept by triggers). */
  cartBytes(baseId: string): number {
    return (this.s.cartBytes!.get(baseId) as { n: number } | null)?.n ?? 0
  }

  /** Up to `limit` cartridge keys whose size no section records yet. */
  unmeasuredCarts(limit: number): string[] {
    return (this.s.unmeasured!.all(limit) as { cart_key: string }[]).map((r) => r.cart_key)
  }

  /** Records a cartridge's size on the sections that did not know it. */
  measureCart(cartKey: string, bytes: number): void {
    this.s.measure!.run(bytes, cartKey)
  }

  /** Forgets a base's key and counters once its sections are gone. */
  dropBase(baseId: string): void {
    this.s.delBase!.run(baseId)
    const key = this.keys.get(baseId)
    if (key !== undefined) this.forget(key)
    this.keys.delete(baseId)
  }

  /**
   * Passage counts of the given terms in a base (fts5vocab rows of the base's tokens). fts5vocab
   * counts a term's passages by reading its whole posting list, so a count is kept for the base's
   * current generation once read: this repo's own changes drop it at once, another process's at
   * the next openBase.
   */
  documentFrequencies(key: number, terms: string[]): number[] {
    const c = this.vocab.get(key)
    return terms.map((t) => {
      let n = c?.df.get(t)
      if (n === undefined) {
        // One prepared point look-up per term: an IN list would be a new statement for every length.
        n = (this.s.df!.values(ftsToken(key, t))[0]?.[0] as number | undefined) ?? 0
        if (c && this.kept(c, 1)) c.df.set(t, n)
      }
      return n
    })
  }

  /** Terms of a base starting with `prefix`, with their passage counts (for spelling fallbacks). */
  termsWithPrefix(key: number, prefix: string): readonly { term: string; doc: number }[] {
    const c = this.vocab.get(key)
    let terms = c?.prefixes.get(prefix)
    if (terms === undefined) {
      terms = this.readPrefix(key, prefix)
      if (c && this.kept(c, 1 + terms.length)) c.prefixes.set(prefix, terms)
    }
    return terms
  }

  /** Counts `n` more entries cached for `c`; false (and the cache emptied) when that would pass the bound. */
  private kept(c: VocabCache, n: number): boolean {
    if (this.vocabEntries + n > VOCAB_ENTRIES) {
      this.vocab.clear()
      this.vocabEntries = 0
      return false
    }
    c.entries += n
    this.vocabEntries += n
    return true
  }

  private forget(key: number): void {
    const c = this.vocab.get(key)
    if (!c) return
    this.vocabEntries -= c.entries
    this.vocab.delete(key)
  }

  private readPrefix(key: number, prefix: string): { term: string; doc: number }[] {
    const from = ftsToken(key, prefix)
    const to = from.slice(0, -1) + String.fromCodePoint(from.codePointAt(from.length - 1)! + 1)
    const head = `${key}x`.length
    return (this.s.range!.all(from, to) as { term: string; doc: number }[]).map((r) => ({
      term: r.term.slice(head),
      doc: r.doc,
    }))
  }

  /** The `limit` best passages of a base for an FTS5 OR-query of terms, optionally within documents. */
  match(key: number, terms: string[], limit: number, documentIds?: string[]): { id: number; rank: number }[] {
    if (terms.length === 0) return []
    const expr = terms.map((t) => `"${ftsToken(key, t)}"`).join(' OR ')
    if (!documentIds) {
      return this.client
        .query('SELECT rowid AS id, rank FROM engine_fts WHERE engine_fts MATCH ? ORDER BY rank LIMIT ?')
        .all(expr, limit) as { id: number; rank: number }[]
    }
    const marks = documentIds.map(() => '?').join(',')
    return this.client
      .query(
        `SELECT f.rowid AS id, f.rank AS rank FROM engine_fts f JOIN engine_passages p ON p.id = f.rowid
         JOIN engine_sections s ON s.section_id = p.section_id
         WHERE engine_fts MATCH ? AND s.document_id IN (${marks}) ORDER BY f.rank LIMIT ?`,
      )
      .all(expr, ...documentIds, limit) as { id: number; rank: number }[]
  }

  /** Passages by id with their section's source fields, in the order of `ids`. */
  passages(ids: number[]): PassageRow[] {
    if (ids.length === 0) return []
    const rows = this.client
      .query(
        `SELECT p.id, p.section_id, p.ordinal, p.text, p.sents, s.document_id, s.title, s.filename
         FROM engine_passages p JOIN engine_sections s ON s.section_id = p.section_id
         WHERE p.id IN (${ids.map(() => '?').join(',')})`,
      )
      .all(...ids) as PassageRow[]
    const byId = new Map(rows.map((r) => [r.id, r]))
    return ids.map((id) => byId.get(id)).filter((r): r is PassageRow => r !== undefined)
  }
}
