import type { Database, Statement } from 'bun:sqlite'
import {
  inReadingOrder,
  TABLE_FILE,
  type TableDocument,
  type TablePassage,
  type TableReader,
} from './compose/index'
import type { BaseRow, SectionRow } from './engine.rows'
import type { enginePassages } from './engine.tables'

/**
 * Prepared statements rag reads table rows with (compose/tables.ts): a base's table files, kept for
 * the base's generation (every change to its index bumps it), and a document's passages in reading
 * order, read until the caller's cap.
 */
export class TableRepo implements TableReader {
  private readonly s: Record<string, Statement>
  private readonly known = new Map<string, { generation: number; docs: TableDocument[] }>()
  constructor(client: Database) {
    const q = (sql: string) => client.prepare(sql)
    this.s = {
      generation: q('SELECT generation FROM engine_bases WHERE base_id = ?'),
      // Only sections of files whose kind is a table; the extension is checked again on the result.
      files: q(
        `SELECT document_id AS documentId, filename, title FROM engine_sections WHERE base_id = ?
         AND (lower(filename) LIKE '%.csv' OR lower(filename) LIKE '%.tsv' OR lower(filename) LIKE '%.xls%'
              OR lower(filename) LIKE '%.ods')
         ORDER BY document_id, section_id`,
      ),
      sections: q(
        'SELECT section_id AS sectionId, title FROM engine_sections WHERE base_id = ? AND document_id = ? ORDER BY section_id',
      ),
      passages: q('SELECT ordinal, text FROM engine_passages WHERE section_id = ? ORDER BY ordinal'),
    }
  }

  /** The base's documents whose kind is a table, one row each (its first section's title). */
  documents(baseId: string): TableDocument[] {
    const generation =
      (this.s.generation!.get(baseId) as Pick<BaseRow, 'generation'> | null)?.generation ?? -1
    const known = this.known.get(baseId)
    if (known && known.generation === generation) return known.docs
    const docs: TableDocument[] = []
    for (const r of this.s.files!.all(baseId) as Pick<SectionRow, 'documentId' | 'filename' | 'title'>[]) {
      if (docs[docs.length - 1]?.documentId === r.documentId || !TABLE_FILE.test(r.filename)) continue
      docs.push({ documentId: r.documentId, filename: r.filename, title: r.title })
    }
    // One entry a base: a process serves few bases' table questions at a time, and each is small.
    if (this.known.size > 1_000) this.known.clear()
    this.known.set(baseId, { generation, docs })
    return docs
  }

  /** A document's passages, its sections in reading order, until `maxChars` of text. */
  passages(baseId: string, documentId: string, maxChars: number): TablePassage[] {
    const sections = (
      this.s.sections!.all(baseId, documentId) as Pick<SectionRow, 'sectionId' | 'title'>[]
    ).map((x) => ({
      ref: { title: x.title },
      id: x.sectionId,
    }))
    const out: TablePassage[] = []
    let chars = 0
    for (const section of inReadingOrder(sections)) {
      for (const p of this.s.passages!.iterate(section.id) as Iterable<
        Pick<typeof enginePassages.$inferSelect, 'ordinal' | 'text'>
      >) {
        if (chars >= maxChars) return out
        chars += p.text.length
        out.push({ sectionId: section.id, ordinal: p.ordinal, title: section.ref.title, text: p.text })
      }
    }
    return out
  }
}
