import type { Db } from '../../platform/db/db'

/** A base row with its derived document counters. */
export interface CorpusRow {
  id: string
  workspace_id: string
  name: string
  source_type: string
  status: 'new' | 'training' | 'ready' | 'failed'
  description: string | null
  last_synced_at: number | null
  created_at: number
  updated_at: number
  n_documents: number
  documents_ready: number
  documents_onboarding: number
  documents_failed: number
}

/** A document or section row. */
export interface DocumentRow {
  id: string
  workspace_id: string
  corpus_id: string
  parent_id: string | null
  path: string
  size: number
  content_type: string | null
  sha256: string | null
  status: 'pending' | 'onboarding' | 'ready' | 'failed'
  error: string | null
  source: string
  section_index: number | null
  section_title: string | null
  section_count: number
  cart_id: string | null
  raw_key: string | null
  text_key: string | null
  text_chars: number
  text_offset: number | null
  created_at: number
  updated_at: number
}

/** New content of a parent document, as an upload, push or upsert registers it. */
export interface NewContent {
  size: number
  contentType: string | null
  sha256: string
  source: string
  rawKey: string
  now: number
}

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

const CORPUS_SELECT = `
  SELECT c.*,
    (SELECT count(*) FROM documents d WHERE d.corpus_id = c.id AND d.parent_id IS NULL) AS n_documents,
    (SELECT count(*) FROM documents d WHERE d.corpus_id = c.id AND d.parent_id IS NULL AND d.status = 'ready') AS documents_ready,
    (SELECT count(*) FROM documents d WHERE d.corpus_id = c.id AND d.parent_id IS NULL AND d.status IN ('pending','onboarding')) AS documents_onboarding,
    (SELECT count(*) FROM documents d WHERE d.corpus_id = c.id AND d.parent_id IS NULL AND d.status = 'failed') AS documents_failed
  FROM corpora c`

/** Data functions of bases and documents; every read is scoped by workspace. */
export class CorporaRepo {
  private readonly byId
  private readonly page
  private readonly all
  private readonly count
  constructor(private readonly db: Db) {
    const c = db.$client
    this.byId = c.query<CorpusRow, [string, string]>(`${CORPUS_SELECT} WHERE c.workspace_id = ? AND c.id = ?`)
    this.page = c.query<CorpusRow, [string, number, number, string, number]>(
      `${CORPUS_SELECT} WHERE c.workspace_id = ? AND (c.created_at < ? OR (c.created_at = ? AND c.id < ?))
       ORDER BY c.created_at DESC, c.id DESC LIMIT ?`,
    )
    this.all = c.query<CorpusRow, [string]>(
      `${CORPUS_SELECT} WHERE c.workspace_id = ? ORDER BY c.created_at DESC, c.id DESC`,
    )
    this.count = c.query<{ n: number }, [string]>('SELECT count(*) AS n FROM corpora WHERE workspace_id = ?')
  }

  /** Inserts a base. */
  insert(row: { id: string; workspaceId: string; name: string; now: number }): void {
    this.db.$client
      .query(
        `INSERT INTO corpora (id, workspace_id, name, source_type, status, created_at, updated_at)
         VALUES (?, ?, ?, 'upload', 'new', ?, ?)`,
      )
      .run(row.id, row.workspaceId, row.name, row.now, row.now)
  }

  /** One base of a workspace, or null (another workspace's id is null too). */
  get(workspaceId: string, id: string): CorpusRow | null {
    return this.byId.get(workspaceId, id)
  }

  /** Bases newest first after a keyset position, `limit + 1` rows. */
  listPage(workspaceId: string, after: readonly (string | number)[] | null, limit: number): CorpusRow[] {
    const [at, id] = after ?? [Number.MAX_SAFE_INTEGER, '']
    return this.page.all(workspaceId, at as number, at as number, id as string, limit + 1)
  }

  /** Every base of a workspace, newest first. */
  listAll(workspaceId: string): CorpusRow[] {
    return this.all.all(workspaceId)
  }

  /** Number of bases of a workspace. */
  countAll(workspaceId: string): number {
    return this.count.get(workspaceId)?.n ?? 0
  }

  /** Sets status, description or sync time. */
  update(
    workspaceId: string,
    id: string,
    p: { status?: CorpusRow['status']; description?: string | null; lastSyncedAt?: number },
    now: number,
  ): void {
    const c = this.db.$client
    if (p.status !== undefined) {
      c.query('UPDATE corpora SET status = ?, updated_at = ? WHERE workspace_id = ? AND id = ?').run(
        p.status,
        now,
        workspaceId,
        id,
      )
    }
    if (p.description !== undefined) {
      c.query('UPDATE corpora SET description = ?, updated_at = ? WHERE workspace_id = ? AND id = ?').run(
        p.description,
        now,
        workspaceId,
        id,
      )
    }
    if (p.lastSyncedAt !== undefined) {
      c.query('UPDATE corpora SET last_synced_at = ?, updated_at = ? WHERE workspace_id = ? AND id = ?').run(
        p.lastSyncedAt,
        now,
        workspaceId,
        id,
      )
    }
  }

  /** Deletes a base row; documents go with it (foreign key cascade). */
  delete(workspaceId: string, id: string): boolean {
    return (
      this.db.$client.query('DELETE FROM corpora WHERE workspace_id = ? AND id = ?').run(workspaceId, id)
        .changes > 0
    )
  }

  /** Documents of a base: parent rows, or parents and sections, newest first after a keyset position. */
  documentsPage(
    corpusId: string,
    sections: boolean,
    after: readonly (string | number)[] | null,
    limit: number | null,
  ): DocumentRow[] {
    const [at, id] = after ?? [Number.MAX_SAFE_INTEGER, '']
    return this.db.$client
      .query<DocumentRow, (string | number)[]>(
        `SELECT * FROM documents WHERE corpus_id = ? ${sections ? '' : 'AND parent_id IS NULL'}
           AND (created_at < ? OR (created_at = ? AND id < ?))
         ORDER BY created_at DESC, id DESC ${limit === null ? '' : 'LIMIT ?'}`,
      )
      .all(...[corpusId, at as number, at as number, id as string, ...(limit === null ? [] : [limit + 1])])
  }

  /** Number of documents (parents, or parents and sections) of a base. */
  countDocuments(corpusId: string, sections: boolean): number {
    return (
      this.db.$client
        .query<{ n: number }, [string]>(
          `SELECT count(*) AS n FROM documents WHERE corpus_id = ? ${sections ? '' : 'AND parent_id IS NULL'}`,
        )
        .get(corpusId)?.n ?? 0
    )
  }

  /** One document (or section) of a base, or null. */
  document(corpusId: string, id: string): DocumentRow | null {
    return this.db.$client
      .query<DocumentRow, [string, string]>('SELECT * FROM documents WHERE corpus_id = ? AND id = ?')
      .get(corpusId, id)
  }

  /** The parent document of a base at a relative path, or null. */
  documentByPath(corpusId: string, path: string): DocumentRow | null {
    return this.db.$client
      .query<DocumentRow, [string, string]>(
        'SELECT * FROM documents WHERE corpus_id = ? AND path = ? AND parent_id IS NULL',
      )
      .get(corpusId, path)
  }

  /** A document's section rows in order. */
  sections(parentId: string): DocumentRow[] {
    return this.db.$client
      .query<DocumentRow, [string]>('SELECT * FROM documents WHERE parent_id = ? ORDER BY section_index')
      .all(parentId)
  }

  /** Parent documents of a base with a given source, oldest first (the manifest). */
  documentsBySource(corpusId: string, source: string): DocumentRow[] {
    return this.db.$client
      .query<DocumentRow, [string, string]>(
        'SELECT * FROM documents WHERE corpus_id = ? AND parent_id IS NULL AND source = ? ORDER BY path',
      )
      .all(corpusId, source)
  }

  /** Every row (parents and sections) of a base; used when deleting it. */
  allDocumentRows(corpusId: string): DocumentRow[] {
    return this.db.$client
      .query<DocumentRow, [string]>('SELECT * FROM documents WHERE corpus_id = ?')
      .all(corpusId)
  }

  /** Deletes a document row and its sections (cascade). */
  deleteDocument(corpusId: string, id: string): boolean {
    return (
      this.db.$client.query('DELETE FROM documents WHERE corpus_id = ? AND id = ?').run(corpusId, id)
        .changes > 0
    )
  }

  /** How many rows outside `excludingIds` still use a cart id (cartridges are shared by content). */
  cartUsers(cartId: string, excludingIds: string[]): number {
    const marks = excludingIds.map(() => '?').join(',') || "''"
    return (
      this.db.$client
        .query<{ n: number }, string[]>(
          `SELECT count(*) AS n FROM documents WHERE cart_id = ? AND id NOT IN (${marks})`,
        )
        .get(cartId, ...excludingIds)?.n ?? 0
    )
  }

  /** Parent documents of a base, optionally only those under a folder prefix (`a/b/`), by path. */
  parents(corpusId: string, prefix = ''): DocumentRow[] {
    return this.db.$client
      .query<DocumentRow, [string, number, string]>(
        'SELECT * FROM documents WHERE corpus_id = ? AND parent_id IS NULL AND substr(path, 1, ?) = ? ORDER BY path',
      )
      .all(corpusId, prefix.length, prefix)
  }

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

  /** Whether any row still uses an object, as its raw file or its text sidecar. */
  keyInUse(key: string): boolean {
    return (
      this.db.$client
        .query<{ n: number }, [string, string]>(
          'SELECT (EXISTS (SELECT 1 FROM documents WHERE raw_key = ?) OR EXISTS (SELECT 1 FROM documents WHERE text_key = ?)) AS n',
        )
        .get(key, key)?.n === 1
    )
  }

  /** Inserts a new parent document with fresh (not yet extracted) content. */
  insertParent(r: NewContent & { id: string; workspaceId: string; corpusId: string; path: string }): void {
    this.db.$client
      .query(
        `INSERT INTO documents (id, workspace_id, corpus_id, path, size, content_type, sha256, status, source,
           raw_key, section_count, text_chars, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, 1, 0, ?, ?)`,
      )
      .run(
        r.id,
        r.workspaceId,
        r.corpusId,
        r.path,
        r.size,
        r.contentType,
        r.sha256,
        r.source,
        r.rawKey,
        r.now,
        r.now,
      )
  }

  /**
   * Gives a parent document new content in place (same id): its sections go and everything derived
   * from the old content is reset until the new content is extracted.
   */
  replaceContent(id: string, r: NewContent): void {
    const c = this.db.$client
    c.query('DELETE FROM documents WHERE parent_id = ?').run(id)
    c.query(
      `UPDATE documents SET size = ?, content_type = ?, sha256 = ?, status = 'pending', error = NULL, source = ?,
         raw_key = ?, text_key = NULL, text_chars = 0, section_count = 1, section_title = NULL, cart_id = NULL,
         updated_at = ?
       WHERE id = ? AND parent_id IS NULL`,
    ).run(r.size, r.contentType, r.sha256, r.source, r.rawKey, r.now, id)
  }

  /** Records a finished extraction: the sidecar, sizes and sections (replacing earlier ones). */
  setExtracted(
    parent: DocumentRow,
    x: {
      textKey: string
      textChars: number
      contentType: string
      title: string | null
      cartId: string | null
      sections: NewSection[]
      now: number
    },
  ): void {
    const c = this.db.$client
    c.query('DELETE FROM documents WHERE parent_id = ?').run(parent.id)
    c.query(
      `UPDATE documents SET text_key = ?, text_chars = ?, content_type = ?, section_title = ?, cart_id = ?,
         section_count = ?, status = 'pending', error = NULL, updated_at = ?
       WHERE id = ?`,
    ).run(
      x.textKey,
      x.textChars,
      x.contentType,
      x.title,
      x.cartId,
      Math.max(1, x.sections.length),
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

  /** Marks a document failed with the reason the user will see. */
  setFailed(id: string, error: string, now: number, contentType?: string): void {
    this.db.$client
      .query(
        `UPDATE documents SET status = 'failed', error = ?, content_type = coalesce(?, content_type), updated_at = ?
         WHERE id = ?`,
      )
      .run(error, contentType ?? null, now, id)
  }
}
