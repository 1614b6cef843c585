import type { Db } from '../../platform/db/db'
import { transaction } from '../../platform/db/transaction'
import type { Outbox } from '../../platform/events/outbox'
import { rangeBounds } from '../../platform/storage/ranges'
import { encodePageRanges, type PageRange } from './corpora.pages'
import type { DocumentRow } from './corpora.repo'

/** Rows one multi-row insert of new parents writes at most. */
const PARENTS_A_STATEMENT = 64

/** New content of a parent document, as an upload, push or upsert registers it. */
export interface NewContent {
  size: number
  contentType: string | null
  sha256: string
  source: string
  /** `push`, a source (`source:<id>`), or null for documents written by hand. */
  managedBy: string | null
  rawKey: string
  now: number
}

/** A new parent document and its content. */
export type NewParent = NewContent & { id: string; workspaceId: string; corpusId: string; path: string }

/** One section row to create after extraction. */
export interface NewSection {
  id: string
  index: number
  title: string | null
  cartId: string
  sha256: string
  /** UTF-8 bytes of the section's text. */
  size: number
  chars: number
  offset: number
}

/** What a finished extraction of a parent document produced. */
export interface Extraction {
  textKey: string
  textChars: number
  /** Bytes of the sidecar as stored (counted in the base's storage). */
  textBytes: number
  contentType: string
  title: string | null
  cartId: string | null
  sections: NewSection[]
  /** A PDF's pages as ranges of the sidecar; null for documents without pages. */
  pageRanges: PageRange[] | null
  /** Ingest's EXTRACTOR_VERSION of the extraction that made them. */
  extractorVersion: number
  now: number
}

/**
 * Data functions that give documents their content: registering new or replaced files, recording
 * extraction results, and the questions deletion and dedup ask about stored objects.
 */
export class DocumentContentRepo {
  constructor(private readonly db: Db) {}

  /** The stored object of a parent document of the base with this content, or null (dedup). A failed
   * document is never a source: its object may not hold what its SHA-256 says (a bad presigned PUT). */
  rawKeyBySha(corpusId: string, sha256: string): string | null {
    return (
      this.db.$client
        .query<{ raw_key: string }, [string, string]>(
          `SELECT raw_key FROM documents WHERE corpus_id = ? AND sha256 = ? AND parent_id IS NULL
             AND raw_key IS NOT NULL AND status != 'failed' LIMIT 1`,
        )
        .get(corpusId, sha256)?.raw_key ?? null
    )
  }

  /**
   * `rawKeyBySha` for many contents in one statement (the SHA-256s as one JSON array parameter):
   * the stored object of each that the base holds; absent ones are not in the map. One row a
   * content however many copies of it the base holds.
   */
  rawKeysBySha(corpusId: string, shas: string[]): Map<string, string> {
    const rows = this.db.$client
      .query<{ sha256: string; raw_key: string | null }, [string, string]>(
        `SELECT s.value AS sha256, (SELECT raw_key FROM documents WHERE corpus_id = ? AND sha256 = s.value
           AND parent_id IS NULL AND raw_key IS NOT NULL AND status != 'failed' LIMIT 1) AS raw_key
         FROM json_each(?) s`,
      )
      .all(corpusId, JSON.stringify(shas))
    const out = new Map<string, string>()
    for (const r of rows) if (r.raw_key !== null) out.set(r.sha256, r.raw_key)
    return out
  }

  /** Whether any row still uses an object, as its raw file or its text sidecar. */
  keyInUse(key: string): boolean {
    // A pack is in use while a row names any range of it (`<pack>#<offset>+<length>`, ranges.ts).
    const [lower, upper] = rangeBounds(key)
    return (
      this.db.$client
        .query<{ n: number }, [string, string, string]>(
          `SELECT (EXISTS (SELECT 1 FROM documents WHERE raw_key = ?1) OR EXISTS (SELECT 1 FROM documents WHERE text_key = ?1)
             OR EXISTS (SELECT 1 FROM documents WHERE raw_key > ?2 AND raw_key < ?3)
             OR EXISTS (SELECT 1 FROM documents WHERE text_key > ?2 AND text_key < ?3)) AS n`,
        )
        .get(key, lower, upper)?.n === 1
    )
  }

  /**
   * Inserts new parent documents with fresh (not yet extracted) content, up to 64 rows a statement:
   * a statement in a transaction that fires the counters trigger writes a statement journal, once a
   * statement rather than once a row.
   */
  insertParents(rows: NewParent[]): void {
    for (let at = 0; at < rows.length; at += PARENTS_A_STATEMENT) {
      const chunk = rows.slice(at, at + PARENTS_A_STATEMENT)
      const values = chunk.map(() => "(?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, 1, 0, ?, ?)").join(', ')
      this.db.$client
        .query(
          `INSERT INTO documents (id, workspace_id, corpus_id, path, size, content_type, sha256, status, source,
             managed_by, raw_key, section_count, text_chars, created_at, updated_at) VALUES ${values}`,
        )
        .run(
          ...chunk.flatMap((r) => [
            r.id,
            r.workspaceId,
            r.corpusId,
            r.path,
            r.size,
            r.contentType,
            r.sha256,
            r.source,
            r.managedBy,
            r.rawKey,
            r.now,
            r.now,
          ]),
        )
    }
  }

  /**
   * Gives a parent document new content in place (same id): its sections go and everything derived
   * from the old content is reset until the new content is extracted. Whoever writes the content
   * now manages the document (a hand upload over a pushed file takes it from push).
   */
  replaceContent(id: string, r: NewContent): void {
    const c = this.db.$client
    c.query('DELETE FROM documents WHERE parent_id = ?').run(id)
    c.query(
      `UPDATE documents SET size = ?, content_type = ?, sha256 = ?, status = 'pending', error = NULL, source = ?,
         managed_by = ?, raw_key = ?, text_key = NULL, text_chars = 0, text_bytes = 0, section_count = 1, section_title = NULL, cart_id = NULL,
         page_ranges = NULL, extractor_version = NULL, updated_at = ?
       WHERE id = ? AND parent_id IS NULL`,
    ).run(r.size, r.contentType, r.sha256, r.source, r.managedBy, r.rawKey, r.now, id)
  }

  /** Records a finished extraction: the sidecar, sizes and sections (replacing earlier ones). */
  setExtracted(parent: DocumentRow, x: Extraction): void {
    const c = this.db.$client
    c.query('DELETE FROM documents WHERE parent_id = ?').run(parent.id)
    c.query(
      `UPDATE documents SET text_key = ?, text_chars = ?, text_bytes = ?, content_type = ?, section_title = ?,
         cart_id = ?, section_count = ?, page_ranges = ?, extractor_version = ?, status = 'pending', error = NULL,
         updated_at = ?
       WHERE id = ?`,
    ).run(
      x.textKey,
      x.textChars,
      x.textBytes,
      x.contentType,
      x.title,
      x.cartId,
      Math.max(1, x.sections.length),
      x.pageRanges ? encodePageRanges(x.pageRanges) : null,
      x.extractorVersion,
      x.now,
      parent.id,
    )
    const insert = c.query(
      `INSERT INTO documents (id, workspace_id, corpus_id, parent_id, path, size, content_type, sha256, status,
         source, section_index, section_title, section_count, cart_id, text_key, text_chars, text_offset,
         created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, 'text/plain', ?, 'pending', ?, ?, ?, 1, ?, ?, ?, ?, ?, ?)`,
    )
    for (const s of x.sections) {
      insert.run(
        s.id,
        parent.workspace_id,
        parent.corpus_id,
        parent.id,
        parent.path,
        s.size,
        s.sha256,
        parent.source,
        s.index,
        s.title,
        s.cartId,
        x.textKey,
        s.chars,
        s.offset,
        x.now,
        x.now,
      )
    }
  }

  /** Marks a document failed with the reason the user will see, telling it in the same transaction. */
  setFailed(id: string, error: string, now: number, contentType: string | undefined, events: Outbox): void {
    transaction(this.db, () => {
      const at = this.db.$client
        .query<{ workspace_id: string; corpus_id: string }, [string, string | null, number, string]>(
          `UPDATE documents SET status = 'failed', error = ?, content_type = coalesce(?, content_type), updated_at = ?
           WHERE id = ? RETURNING workspace_id, corpus_id`,
        )
        .get(error, contentType ?? null, now, id)
      if (!at) return
      const payload = { corpusId: at.corpus_id, documentId: id, error }
      events.emit(this.db, { type: 'document.failed', workspaceId: at.workspace_id, payload })
    })
  }
}
