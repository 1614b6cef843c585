import type { Table } from 'drizzle-orm'
import { CommitMemo, commitWatch } from '../../platform/db/commit-watch'
import type { Db } from '../../platform/db/db'
import type { corpora, documents } from './corpora.tables'

/**
 * A table's row under its SQL column names, as `SELECT *` on bun:sqlite returns it: each column's
 * type is the one drizzle infers from the declaration (`$inferSelect`), keyed by the column's name.
 */
type BySqlName<T extends Table> = {
  [K in keyof T['$inferSelect'] &
    keyof T['_']['columns'] as T['_']['columns'][K]['_']['name']]: T['$inferSelect'][K]
}

/** A base row with its document counters (kept by triggers; see corpora.tables.ts). */
export type CorpusRow = BySqlName<typeof corpora>

/** A document or section row. */
export type DocumentRow = BySqlName<typeof documents>

// The counters are columns kept in step by triggers, so a read costs the same at any size.
const CORPUS_SELECT = 'SELECT c.* FROM corpora c'

/** Data functions of bases and documents; every read is scoped by workspace. */
export class CorporaRepo {
  private readonly byId
  /** Base rows by workspace and id, reused only until the next commit to the database (any process's). */
  private readonly rows: CommitMemo<CorpusRow>
  private readonly page
  private readonly all
  private readonly count
  constructor(private readonly db: Db) {
    const c = db.$client
    this.byId = c.query<CorpusRow, [string, string]>(`${CORPUS_SELECT} WHERE c.workspace_id = ? AND c.id = ?`)
    // Every keyed read of a base starts here: a row kept until the next commit skips SQLite's read
    // lock (two system calls) on repeated reads, as the key lookup does (DESIGN, Performance notes).
    this.rows = new CommitMemo(commitWatch(c), (key) => {
      const [workspaceId, id] = key.split('\n') as [string, string]
      return this.byId.get(workspaceId, id) ?? undefined
    })
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
  insert(row: { id: string; workspaceId: string; name: string; autoOnboard: boolean; now: number }): void {
    this.db.$client
      .query(
        `INSERT INTO corpora (id, workspace_id, name, source_type, status, auto_onboard, created_at, updated_at)
         VALUES (?, ?, ?, 'upload', 'new', ?, ?, ?)`,
      )
      .run(row.id, row.workspaceId, row.name, row.autoOnboard ? 1 : 0, row.now, row.now)
  }

  /** One base of a workspace, or null (another workspace's id is null too). */
  get(workspaceId: string, id: string): CorpusRow | null {
    // Inside a transaction its own uncommitted writes must be seen: read the table.
    if (this.db.$client.inTransaction) return this.byId.get(workspaceId, id)
    return this.rows.get(`${workspaceId}\n${id}`) ?? null
  }

  /** The workspace a base belongs to, or null when there is no such base (start-up work only: no tenant check). */
  workspaceOf(id: string): string | null {
    const r = this.db.$client
      .query<{ w: string }, [string]>('SELECT workspace_id AS w FROM corpora WHERE id = ?')
      .get(id)
    return r?.w ?? null
  }

  /** A base's status and whether it has a ready document, or null (another workspace's id too). */
  servingState(workspaceId: string, id: string): { status: CorpusRow['status']; anyReady: boolean } | null {
    // The row kept until the next commit (any process's): a question reads no table here.
    const r = this.get(workspaceId, id)
    return r ? { status: r.status, anyReady: r.documents_ready > 0 } : null
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

  /** Sets status, description, sync time, the automatic onboarding switch or its pause (1 or 0). */
  update(
    workspaceId: string,
    id: string,
    p: {
      status?: CorpusRow['status']
      description?: string | null
      lastSyncedAt?: number
      autoOnboard?: 0 | 1
      autoOnboardPaused?: 0 | 1
      cartStatus?: CorpusRow['cart_status']
    },
    now: number,
  ): void {
    // Only the fields given change; the column names come from this fixed map, never from input.
    const columns = {
      status: 'status',
      description: 'description',
      lastSyncedAt: 'last_synced_at',
      autoOnboard: 'auto_onboard',
      autoOnboardPaused: 'auto_onboard_paused',
      cartStatus: 'cart_status',
    } as const
    const set = (Object.keys(columns) as (keyof typeof columns)[]).filter((k) => p[k] !== undefined)
    if (set.length === 0) return
    this.db.$client
      .query(
        `UPDATE corpora SET ${set.map((k) => `${columns[k]} = ?`).join(', ')}, updated_at = ?
         WHERE workspace_id = ? AND id = ?`,
      )
      .run(...set.map((k) => p[k] ?? null), now, workspaceId, id)
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

  /** Number of documents (parents, or parents and sections) of a base, from its counters. */
  countDocuments(corpusId: string, sections: boolean): number {
    return (
      this.db.$client
        .query<{ n: number }, [string]>(
          `SELECT ${sections ? 'n_rows' : 'n_documents'} AS n FROM corpora WHERE id = ?`,
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
}
