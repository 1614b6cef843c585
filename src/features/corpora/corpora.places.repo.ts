import { eq, inArray, sql } from 'drizzle-orm'
import { alias } from 'drizzle-orm/sqlite-core'
import { Prepared } from '../../platform/db/prepared'
import type { Store } from '../../platform/db/store'
import { StoreMemo } from '../../platform/db/store-memo'
import { decodePageRanges, type PageRange, pageAt } from './corpora.pages'
import { chunks, corporaTables, type DocumentColumns } from './corpora.rows'

/** A passage to place: the section (or one-section document) it is in and its span in that text. */
export interface PassageSpan {
  sectionId: string
  /** Offsets in the section's text; null when the index does not know them. */
  start: number | null
  end: number | null
}

/** Where a passage lies in its document: the page, the section's title, offsets in the document's text. */
export interface PassagePlace {
  page: number | null
  sectionTitle: string | null
  start: number | null
  end: number | null
}

/** A cited row as the placing query reads it (columns aliased to the table's JS keys; a section's sidecar and pages are its parent's). */
type Cited = Pick<
  DocumentColumns,
  'id' | 'corpusId' | 'parentId' | 'textOffset' | 'sectionTitle' | 'textKey' | 'pageRanges'
>

/** Documents whose parsed pages are kept (a cited manual's are parsed once, not at every question). */
const CACHED_DOCUMENTS = 512

/** Up to how many cited rows the query is prepared (one statement per count); more are built each time. */
const PREPARED_IDS = 16

/**
 * Data functions that place text in documents: the pages of a document, and where the passages an
 * answer cites lie (page, section, offsets), so that a viewer can open the document there.
 */
export class PlacesRepo {
  private readonly t
  private readonly ranges: Prepared<Pick<DocumentColumns, 'pageRanges'>[]>
  /** By sidecar key, with the column it was parsed from: a re-extraction that moved pages is seen. */
  private readonly cache = new Map<string, { column: string; pages: PageRange[] }>()
  /** The cited rows' query prepared for each count of ids up to PREPARED_IDS (an answer cites a few). */
  private readonly byCount = new Map<number, Prepared<Cited[]>>()
  /**
   * Cited rows by id, kept until the next commit that is not quiet (store-memo.ts): the questions
   * that cite them commit only quiet units, and any write to a document (or its parent) empties it.
   */
  private readonly citedRows: StoreMemo<Cited>

  constructor(private readonly store: Store) {
    const t = corporaTables(store)
    this.t = t
    this.citedRows = new StoreMemo(store, async (id) => (await this.cited([id]))[0])
    this.ranges = new Prepared(
      store,
      (db) =>
        db
          .select({ pageRanges: t.d.pageRanges })
          .from(t.d)
          .where(eq(t.d.id, sql.placeholder('id')))
          .prepare() as never,
    )
  }

  /**
   * Each cited row with its file's sidecar key and pages (a section's are its parent's), looked up by
   * primary key: the base is checked on the rows read, not in the WHERE clause, so that no planner
   * can choose the base's index and visit every document of the base for the five an answer cites.
   */
  rowsQuery(ids: string[], db = this.store.db) {
    const { d } = this.t
    const p = alias(d, 'p')
    return db
      .select({
        id: d.id,
        corpusId: d.corpusId,
        parentId: d.parentId,
        textOffset: d.textOffset,
        sectionTitle: d.sectionTitle,
        textKey: sql<string | null>`coalesce(${p.textKey}, ${d.textKey})`,
        pageRanges: sql<string | null>`coalesce(${p.pageRanges}, ${d.pageRanges})`,
      })
      .from(d)
      .leftJoin(p, eq(p.id, d.parentId))
      .where(inArray(d.id, ids))
  }

  /** The pages of a parent document (null: not paged, or extracted before pages were kept). */
  async pages(documentId: string, textKey: string | null): Promise<PageRange[] | null> {
    const rows = await this.ranges.execute({ id: documentId })
    return this.parsed(textKey, rows[0]?.pageRanges ?? null)
  }

  /** Where each passage lies, in order; a passage of a row the base no longer has gets nulls. */
  async place(corpusId: string, spans: readonly PassageSpan[]): Promise<PassagePlace[]> {
    const rows = await this.citedRows.getMany(idsOf(spans), async (ids) => {
      const read = new Map<string, Cited>()
      for (const some of chunks(ids)) for (const r of await this.cited(some)) read.set(r.id, r)
      return read
    })
    return this.placed(corpusId, spans, rows.values())
  }

  /** The cited rows: a query prepared once per count of ids (an answer's few), built for more. */
  private async cited(ids: string[]): Promise<Cited[]> {
    if (ids.length > PREPARED_IDS) return (await this.rowsQuery(ids)) as Cited[]
    let prepared = this.byCount.get(ids.length)
    if (!prepared) {
      const marks = ids.map((_, i) => sql.placeholder(`id${i}`)) as unknown as string[]
      prepared = new Prepared(this.store, (db) => this.rowsQuery(marks, db).prepare() as never)
      this.byCount.set(ids.length, prepared)
    }
    return prepared.execute(Object.fromEntries(ids.map((id, i) => [`id${i}`, id])))
  }

  private placed(corpusId: string, spans: readonly PassageSpan[], rows: Iterable<Cited>): PassagePlace[] {
    const byId = new Map<string, Cited>()
    // A row of another base is not this base's: it is placed as one the base no longer has.
    for (const r of rows) if (r.corpusId === corpusId) byId.set(r.id, r)
    return spans.map((s) => {
      const row = byId.get(s.sectionId)
      if (!row) return { page: null, sectionTitle: null, start: null, end: null }
      // A section is a slice of its parent's text; a one-section document is its own whole text.
      const base = row.parentId !== null ? (row.textOffset ?? 0) : 0
      const start = s.start === null ? null : base + s.start
      const end = s.end === null ? null : base + s.end
      const pages = this.parsed(row.textKey, row.pageRanges)
      return {
        page: start === null ? null : pageAt(pages, start),
        // A one-section document has no section of its own: its row's title is the document's.
        sectionTitle: row.parentId !== null ? row.sectionTitle : null,
        start,
        end,
      }
    })
  }

  private parsed(textKey: string | null, column: string | null): PageRange[] | null {
    if (column === null) return null
    if (textKey === null) return decodePageRanges(column)
    const hit = this.cache.get(textKey)
    if (hit?.column === column) return hit.pages
    const pages = decodePageRanges(column)!
    if (this.cache.size >= CACHED_DOCUMENTS) this.cache.delete(this.cache.keys().next().value as string)
    this.cache.set(textKey, { column, pages })
    return pages
  }
}

/** The rows the spans name, each once. */
function idsOf(spans: readonly PassageSpan[]): string[] {
  return [...new Set(spans.map((s) => s.sectionId))]
}
