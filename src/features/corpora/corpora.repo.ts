import { and, count, desc, eq, type gt, inArray, isNull, lt, or, sql } from 'drizzle-orm'
import { inList, Prepared } from '../../platform/db/prepared'
import type { Store } from '../../platform/db/store'
import { StoreMemo } from '../../platform/db/store-memo'
import { timeIdCursor } from '../../platform/paging/paging'
import { type CorpusRow, chunks, corporaTables, type DocumentRow } from './corpora.rows'

export type { CorpusRow, DocumentRow } from './corpora.rows'

/** Data functions of bases and documents on the store, either engine; every read is scoped by workspace. */
export class CorporaRepo {
  private readonly t
  private readonly byId: Prepared<CorpusRow[]>
  private readonly documentById: Prepared<DocumentRow[]>
  private readonly documentAtPath: Prepared<DocumentRow[]>
  /** Documents by a JSON list of ids, and a base's parents by one of paths (every upload request reads both). */
  private readonly documentsWithIds: Prepared<DocumentRow[]>
  private readonly documentsAtPaths: Prepared<DocumentRow[]>
  /** Base rows by workspace and id, reused only until the next commit to the database (any process's). */
  private readonly rows: StoreMemo<CorpusRow>

  constructor(private readonly store: Store) {
    const t = corporaTables(store)
    this.t = t
    // Every keyed read of a base starts here (each question, each upload): built once per handle.
    this.byId = new Prepared(
      store,
      (db) =>
        db
          .select(t.corpusCols)
          .from(t.c)
          .where(and(eq(t.c.workspaceId, sql.placeholder('ws')), eq(t.c.id, sql.placeholder('id'))))
          .prepare() as never,
    )
    // A document by id or by path: read for every file of an upload and every step of its extraction.
    const documentWhere = (where: ReturnType<typeof and>) =>
      new Prepared<DocumentRow[]>(
        store,
        (db) => db.select(t.documentCols).from(t.d).where(where).prepare() as never,
      )
    const ph = sql.placeholder
    this.documentById = documentWhere(and(eq(t.d.corpusId, ph('corpus')), eq(t.d.id, ph('id'))))
    this.documentAtPath = documentWhere(
      and(eq(t.d.corpusId, ph('corpus')), eq(t.d.path, ph('path')), isNull(t.d.parentId)),
    )
    this.documentsWithIds = documentWhere(inList(store, t.d.id, 'ids'))
    this.documentsAtPaths = documentWhere(
      and(eq(t.d.corpusId, ph('corpus')), inList(store, t.d.path, 'paths'), isNull(t.d.parentId)),
    )
    this.rows = new StoreMemo(store, async (key) => {
      const [ws, id] = key.split('\n') as [string, string]
      return (await this.byId.execute({ ws, id }))[0]
    })
  }

  private get db() {
    return this.store.db
  }

  /** Inserts a base. */
  async insert(row: { id: string; workspaceId: string; name: string; autoOnboard: boolean; now: number }) {
    await this.db.insert(this.t.c).values({
      id: row.id,
      workspaceId: row.workspaceId,
      name: row.name,
      sourceType: 'upload',
      status: 'new',
      autoOnboard: row.autoOnboard ? 1 : 0,
      createdAt: row.now,
      updatedAt: row.now,
    })
  }

  /** One base of a workspace, or null (another workspace's id is null too); inside a unit, its own writes. */
  async get(workspaceId: string, id: string): Promise<CorpusRow | null> {
    return (await this.rows.get(`${workspaceId}\n${id}`)) ?? null
  }

  /** The workspace a base belongs to, or null when there is no such base (start-up work only: no tenant check). */
  async workspaceOf(id: string): Promise<string | null> {
    const { c } = this.t
    const rows = await this.db.select({ w: c.workspaceId }).from(c).where(eq(c.id, id)).limit(1)
    return rows[0]?.w ?? null
  }

  /** A base's status and whether it has a ready document, or null (another workspace's id too). */
  async servingState(
    workspaceId: string,
    id: string,
  ): Promise<{ status: CorpusRow['status']; anyReady: boolean } | null> {
    // The row kept until the next commit (any process's): a question reads no table here.
    const r = await this.get(workspaceId, id)
    return r ? { status: r.status, anyReady: r.documents_ready > 0 } : null
  }

  /** Bases newest first after a keyset position, `limit + 1` rows. */
  async listPage(
    workspaceId: string,
    after: readonly (string | number)[] | null,
    limit: number,
  ): Promise<CorpusRow[]> {
    const [at, id] = timeIdCursor(after) ?? [Number.MAX_SAFE_INTEGER, '']
    const { c, corpusCols } = this.t
    return (await this.db
      .select(corpusCols)
      .from(c)
      .where(
        and(eq(c.workspaceId, workspaceId), or(lt(c.createdAt, at), and(eq(c.createdAt, at), lt(c.id, id)))),
      )
      .orderBy(desc(c.createdAt), desc(c.id))
      .limit(limit + 1)) as unknown as CorpusRow[]
  }

  /** Every base of a workspace, newest first. */
  async listAll(workspaceId: string): Promise<CorpusRow[]> {
    const { c, corpusCols } = this.t
    return (await this.db
      .select(corpusCols)
      .from(c)
      .where(eq(c.workspaceId, workspaceId))
      .orderBy(desc(c.createdAt), desc(c.id))) as unknown as CorpusRow[]
  }

  /** Number of bases of a workspace. */
  async countAll(workspaceId: string): Promise<number> {
    const { c } = this.t
    const rows = await this.db.select({ n: count() }).from(c).where(eq(c.workspaceId, workspaceId))
    return Number(rows[0]?.n ?? 0)
  }

  /** Sets status, description, sync time, the automatic onboarding switch or its pause (1 or 0). */
  async update(
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
  ): Promise<void> {
    // Only the fields given change.
    const set = Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined))
    if (Object.keys(set).length === 0) return
    const { c } = this.t
    await this.db
      .update(c)
      .set({ ...set, updatedAt: now })
      .where(and(eq(c.workspaceId, workspaceId), eq(c.id, id)))
  }

  /** Deletes a base row; documents go with it (foreign key cascade). */
  async delete(workspaceId: string, id: string): Promise<boolean> {
    const { c } = this.t
    const gone = await this.db
      .delete(c)
      .where(and(eq(c.workspaceId, workspaceId), eq(c.id, id)))
      .returning({ id: c.id })
    return gone.length > 0
  }

  /** Documents of a base: parent rows, or parents and sections, newest first after a keyset position. */
  async documentsPage(
    corpusId: string,
    sections: boolean,
    after: readonly (string | number)[] | null,
    limit: number | null,
  ): Promise<DocumentRow[]> {
    const [at, id] = timeIdCursor(after) ?? [Number.MAX_SAFE_INTEGER, '']
    const { d, documentCols } = this.t
    const q = this.db
      .select(documentCols)
      .from(d)
      .where(
        and(
          eq(d.corpusId, corpusId),
          sections ? undefined : isNull(d.parentId),
          or(lt(d.createdAt, at), and(eq(d.createdAt, at), lt(d.id, id))),
        ),
      )
      .orderBy(desc(d.createdAt), desc(d.id))
    return (await (limit === null ? q : q.limit(limit + 1))) as unknown as DocumentRow[]
  }

  /** Number of documents (parents, or parents and sections) of a base, from its counters. */
  async countDocuments(corpusId: string, sections: boolean): Promise<number> {
    const { c } = this.t
    const rows = await this.db
      .select({ n: sections ? c.nRows : c.nDocuments })
      .from(c)
      .where(eq(c.id, corpusId))
    return rows[0]?.n ?? 0
  }

  /** One document (or section) of a base, or null. */
  async document(corpusId: string, id: string): Promise<DocumentRow | null> {
    return (await this.documentById.execute({ corpus: corpusId, id }))[0] ?? null
  }

  /**
   * Documents (or sections) of a base by id, in one statement: those that exist.
   * Read by the primary key alone and kept only if the base's: with the base in the statement,
   * SQLite's planner walks the base's every row by one of its indexes instead.
   */
  async documentsByIds(corpusId: string, ids: string[]): Promise<Map<string, DocumentRow>> {
    const found = new Map<string, DocumentRow>()
    for (const row of await this.documentsWithIds.execute({ ids: JSON.stringify(ids) }))
      if (row.corpus_id === corpusId) found.set(row.id, row)
    return found
  }

  /** The parent documents of a base at these paths, in one statement: those that exist, by path. */
  async documentsByPaths(corpusId: string, paths: string[]): Promise<Map<string, DocumentRow>> {
    const rows = await this.documentsAtPaths.execute({ corpus: corpusId, paths: JSON.stringify(paths) })
    return new Map(rows.map((row) => [row.path, row]))
  }

  /** The parent document of a base at a relative path, or null. */
  async documentByPath(corpusId: string, path: string): Promise<DocumentRow | null> {
    return (await this.documentAtPath.execute({ corpus: corpusId, path }))[0] ?? null
  }

  /** A document's section rows in order. */
  sections(parentId: string): Promise<DocumentRow[]> {
    const { d } = this.t
    return this.documents(eq(d.parentId, parentId), d.sectionIndex)
  }

  /** Parent documents of a base with a given source, by path (the manifest). */
  documentsBySource(corpusId: string, source: string): Promise<DocumentRow[]> {
    const { d } = this.t
    return this.documents(and(eq(d.corpusId, corpusId), isNull(d.parentId), eq(d.source, source)), d.path)
  }

  /** Every row (parents and sections) of a base; used when deleting it. */
  allDocumentRows(corpusId: string): Promise<DocumentRow[]> {
    return this.documents(eq(this.t.d.corpusId, corpusId))
  }

  /** Parent documents of a base, optionally only those under a folder prefix (`a/b/`), by path. */
  parents(corpusId: string, prefix = ''): Promise<DocumentRow[]> {
    const { d } = this.t
    // substr: no LIKE, whose case rules and wildcards differ between the engines.
    const under = prefix === '' ? undefined : sql`substr(${d.path}, 1, ${prefix.length}) = ${prefix}`
    return this.documents(and(eq(d.corpusId, corpusId), isNull(d.parentId), under), d.path)
  }

  /** Deletes a document row and its sections (cascade). */
  async deleteDocument(corpusId: string, id: string): Promise<boolean> {
    const { d } = this.t
    const gone = await this.db
      .delete(d)
      .where(and(eq(d.corpusId, corpusId), eq(d.id, id)))
      .returning({ id: d.id })
    return gone.length > 0
  }

  /**
   * Of these cart ids, those a row outside `excludingIds` still uses (cartridges are shared by
   * content), in a statement a few hundred carts.
   */
  async cartsInUse(cartIds: string[], excludingIds: string[]): Promise<Set<string>> {
    const { d } = this.t
    const excluded = new Set(excludingIds)
    const used = new Set<string>()
    for (const some of chunks(cartIds)) {
      const rows = await this.db.select({ id: d.id, cart: d.cartId }).from(d).where(inArray(d.cartId, some))
      for (const r of rows) if (r.cart !== null && !excluded.has(r.id)) used.add(r.cart)
    }
    return used
  }

  private async documents(where: ReturnType<typeof and>, order?: Parameters<typeof gt>[0]) {
    const { d, documentCols } = this.t
    const q = this.db.select(documentCols).from(d).where(where)
    return (await (order ? q.orderBy(order as never) : q)) as unknown as DocumentRow[]
  }
}
