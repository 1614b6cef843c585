import type { Database, Statement } from 'bun:sqlite'
import type { BaseRow } from './engine.rows'
import type { enginePassages, engineVectors } from './engine.tables'

/** A passage still to embed: where it is and the text its vector is made from. */
export type PendingPassage = Pick<typeof enginePassages.$inferSelect, 'sectionId' | 'ordinal' | 'text'>
type Vector = Pick<typeof engineVectors.$inferSelect, 'ordinal' | 'vec'>

/**
 * Prepared statements over `engine_vectors`, the passages' embeddings by model, and
 * `engine_encodings`, their vectors under the built-in encoder for the support check (int8).
 */
export class VectorRepo {
  private readonly s: Record<string, Statement>
  constructor(readonly client: Database) {
    const q = (sql: string) => client.prepare(sql)
    this.s = {
      // Written only while the passage still holds the text the vector was made from.
      putVector: q(
        `INSERT OR REPLACE INTO engine_vectors (section_id, ordinal, model, vec)
         SELECT ?1, ?2, ?3, ?4 WHERE EXISTS
           (SELECT 1 FROM engine_passages WHERE section_id = ?1 AND ordinal = ?2 AND text = ?5)`,
      ),
      putVectorNow: q('INSERT INTO engine_vectors (section_id, ordinal, model, vec) VALUES (?, ?, ?, ?)'),
      unvectored: q(
        `SELECT p.section_id AS sectionId, p.ordinal, p.text FROM engine_passages p
         WHERE p.section_id = ? AND NOT EXISTS (SELECT 1 FROM engine_vectors v
           WHERE v.section_id = p.section_id AND v.ordinal = p.ordinal AND v.model = ?)
         ORDER BY p.ordinal`,
      ),
      unvectoredBases: q(
        `SELECT DISTINCT s.base_id AS baseId FROM engine_sections s WHERE EXISTS (SELECT 1 FROM engine_passages p
           WHERE p.section_id = s.section_id AND NOT EXISTS (SELECT 1 FROM engine_vectors v
             WHERE v.section_id = p.section_id AND v.ordinal = p.ordinal AND v.model = ?))
         ORDER BY s.base_id`,
      ),
      vector: q('SELECT vec FROM engine_vectors WHERE section_id = ? AND ordinal = ? AND model = ?'),
      sectionVectors: q(
        'SELECT ordinal, vec FROM engine_vectors WHERE section_id = ? AND model = ? ORDER BY ordinal',
      ),
      delVectors: q('DELETE FROM engine_vectors WHERE section_id = ?'),
      // As putVector: only while the passage still holds the text the encoding was made from.
      putEncoding: q(
        `INSERT OR REPLACE INTO engine_encodings (section_id, ordinal, vec)
         SELECT ?1, ?2, ?3 WHERE EXISTS
           (SELECT 1 FROM engine_passages WHERE section_id = ?1 AND ordinal = ?2 AND text = ?4)`,
      ),
      unencoded: q(
        `SELECT p.section_id AS sectionId, p.ordinal, p.text FROM engine_passages p
         WHERE p.section_id = ? AND NOT EXISTS (SELECT 1 FROM engine_encodings e
           WHERE e.section_id = p.section_id AND e.ordinal = p.ordinal)
         ORDER BY p.ordinal`,
      ),
      unencodedBases: q(
        `SELECT DISTINCT s.base_id AS baseId FROM engine_sections s WHERE EXISTS (SELECT 1 FROM engine_passages p
           WHERE p.section_id = s.section_id AND NOT EXISTS (SELECT 1 FROM engine_encodings e
             WHERE e.section_id = p.section_id AND e.ordinal = p.ordinal))
         ORDER BY s.base_id`,
      ),
      encoding: q('SELECT vec FROM engine_encodings WHERE section_id = ? AND ordinal = ?'),
      delEncodings: q('DELETE FROM engine_encodings WHERE section_id = ?'),
    }
  }

  /** Stores the vectors of a section's passages as they are indexed (one per passage, in order; in the caller's transaction). */
  insert(
    sectionId: string,
    passages: { ordinal: number }[],
    vectors: { model: string; list: Float32Array[] },
  ): void {
    for (const [i, p] of passages.entries()) {
      const v = vectors.list[i]!
      const bytes = new Uint8Array(v.buffer, v.byteOffset, v.byteLength)
      this.s.putVectorNow!.run(sectionId, p.ordinal, vectors.model, bytes)
    }
  }

  /** Removes a section's vectors and encodings (in the caller's transaction). */
  deleteSection(sectionId: string): void {
    this.s.delVectors!.run(sectionId)
    this.s.delEncodings!.run(sectionId)
  }

  /** The passages of a section without an encoding, in order. */
  passagesWithoutEncoding(sectionId: string): PendingPassage[] {
    return this.s.unencoded!.all(sectionId) as PendingPassage[]
  }

  /** Stores passages' encodings, skipping passages whose text is no longer `text`; returns how many. */
  putEncodings(rows: (PendingPassage & { vec: Uint8Array })[]): number {
    let stored = 0
    this.client.transaction(() => {
      for (const r of rows) stored += this.s.putEncoding!.run(r.sectionId, r.ordinal, r.vec, r.text).changes
    })()
    return stored
  }

  /** Bases with at least one passage without an encoding. */
  basesWithoutEncodings(): string[] {
    return (this.s.unencodedBases!.all() as Pick<BaseRow, 'baseId'>[]).map((r) => r.baseId)
  }

  /** A passage's stored encoding (support/encodings.ts quantize), or null when it has none yet. */
  encoding(sectionId: string, ordinal: number): Uint8Array | null {
    const row = this.s.encoding!.get(sectionId, ordinal) as Pick<Vector, 'vec'> | null
    return row?.vec ?? null
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
        stored += this.s.putVector!.run(r.sectionId, r.ordinal, model, bytes, r.text).changes
      }
    })()
    return stored
  }

  /** Bases with at least one passage lacking a vector from `model`. */
  basesWithoutVectors(model: string): string[] {
    return (this.s.unvectoredBases!.all(model) as Pick<BaseRow, 'baseId'>[]).map((r) => r.baseId)
  }

  /** The embeddings by `model` of a section's passages, by ordinal (null where a passage has none). */
  sectionVectors(sectionId: string, model: string): (Float32Array | null)[] {
    const rows = this.s.sectionVectors!.all(sectionId, model) as Vector[]
    const list: (Float32Array | null)[] = []
    for (const { ordinal, vec: b } of rows) {
      while (list.length < ordinal) list.push(null)
      list[ordinal] = new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength))
    }
    return list
  }

  /** A passage's embedding by `model`, or null when it has none from that model. */
  vector(sectionId: string, ordinal: number, model: string): Float32Array | null {
    const row = this.s.vector!.get(sectionId, ordinal, model) as Pick<Vector, 'vec'> | null
    if (!row) return null
    const b = row.vec
    return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength))
  }
}
