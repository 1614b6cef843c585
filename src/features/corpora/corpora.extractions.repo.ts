import { and, eq, gt, inArray, isNotNull, isNull, lt, ne, or, type Placeholder, sql } from 'drizzle-orm'
import { inList, Prepared, PreparedVariants, RowsInsert } from '../../platform/db/prepared'
import type { Store } from '../../platform/db/store'
import { statusesInto } from './corpora.lifecycle'
import type { corporaTables, DocumentColumns, NewParent, NewSection } from './corpora.rows'

/**
 * A parent of the base holding a usable copy of its content (dedup's source): a failed document is
 * never one, its object may not hold what its SHA-256 says (a bad presigned PUT).
 */
export function holdsCopy(d: ReturnType<typeof corporaTables>['d'], corpus: string | Placeholder) {
  return and(eq(d.corpusId, corpus), isNull(d.parentId), isNotNull(d.rawKey), ne(d.status, 'failed'))
}

/**
 * The statements that record an extraction (DocumentContentRepo.setExtracted), run for every file an
 * upload extracts: prepared once per handle, not built by drizzle's builder on each call.
 */
export class ExtractionWrites {
  private readonly updates = new PreparedVariants<boolean, Prepared<Pick<DocumentColumns, 'id'>[]>>()
  /** Deletes a parent's section rows (they are written again from the new extraction). */
  readonly dropSections: Prepared<unknown>

  /** The stored objects of a base's parents with these contents (a JSON list): every upload request's dedup. */
  readonly rawKeysOf: Prepared<Pick<DocumentColumns, 'sha256' | 'rawKey'>[]>

  /** A row that uses an object (as its raw file or text sidecar, or a range of it): an upload's every stored file. */
  readonly keyUse: Prepared<Pick<DocumentColumns, 'id'>[]>

  constructor(
    private readonly store: Store,
    private readonly t: ReturnType<typeof corporaTables>,
  ) {
    const { d } = t
    const ph = (name: string) => sql.placeholder(name) as never
    this.keyUse = new Prepared(store, (db) =>
      db
        .select({ id: d.id })
        .from(d)
        .where(
          or(
            eq(d.rawKey, ph('key')),
            eq(d.textKey, ph('key')),
            and(gt(d.rawKey, ph('lower')), lt(d.rawKey, ph('upper'))),
            and(gt(d.textKey, ph('lower')), lt(d.textKey, ph('upper'))),
          ),
        )
        .limit(1)
        .prepare(),
    )
    this.rawKeysOf = new Prepared(store, (db) =>
      db
        .select({ sha256: d.sha256, rawKey: d.rawKey })
        .from(d)
        .where(and(inList(store, d.sha256, 'shas'), holdsCopy(d, ph('corpus'))))
        .prepare(),
    )
    this.dropSections = new Prepared(store, (db) =>
      db
        .delete(t.d)
        .where(eq(t.d.parentId, sql.placeholder('parent')))
        .prepare(),
    )
  }

  /**
   * The conditional update of a parent read with a raw object (`raw`) or without one: it records the
   * extraction only while the row holds that object and is in a state that may go to `extracted`.
   */
  update(noRaw: boolean): Prepared<Pick<DocumentColumns, 'id'>[]> {
    return this.updates.of(noRaw, () => {
      const { d } = this.t
      const ph = (name: string) => sql.placeholder(name) as never
      const sameRaw = noRaw ? isNull(d.rawKey) : eq(d.rawKey, ph('raw'))
      return new Prepared(this.store, (db) =>
        db
          .update(d)
          .set({
            textKey: ph('textKey'),
            textChars: ph('textChars'),
            textBytes: ph('textBytes'),
            contentType: ph('contentType'),
            sectionTitle: ph('title'),
            cartId: ph('cartId'),
            sectionCount: ph('sectionCount'),
            pageRanges: ph('pageRanges'),
            extractorVersion: ph('extractorVersion'),
            status: 'pending',
            error: null,
            updatedAt: ph('now'),
          })
          .where(and(eq(d.id, ph('id')), sameRaw, inArray(d.status, statusesInto('extracted'))))
          .returning({ id: d.id })
          .prepare(),
      )
    })
  }
}

/**
 * Rows one multi-row insert of new documents writes at most: a statement in a transaction that fires
 * the counters trigger writes a statement journal, once a statement rather than once a row.
 */
const ROWS_A_STATEMENT = 64

/** The values of a parent row that differ from row to row, each a placeholder named with the row's place. */
const PARENT_VALUES = {
  id: (r: NewParent) => r.id,
  workspaceId: (r: NewParent) => r.workspaceId,
  corpusId: (r: NewParent) => r.corpusId,
  path: (r: NewParent) => r.path,
  size: (r: NewParent) => r.size,
  contentType: (r: NewParent) => r.text?.contentType ?? r.contentType,
  sha256: (r: NewParent) => r.sha256,
  source: (r: NewParent) => r.source,
  managedBy: (r: NewParent) => r.managedBy,
  rawKey: (r: NewParent) => r.rawKey,
  // A file read as it was uploaded is inserted extracted.
  textKey: (r: NewParent) => r.text?.key ?? null,
  textBytes: (r: NewParent) => r.text?.bytes ?? 0,
  textChars: (r: NewParent) => r.text?.chars ?? 0,
  sectionTitle: (r: NewParent) => r.text?.title ?? null,
  cartId: (r: NewParent) => r.text?.cartId ?? null,
  extractorVersion: (r: NewParent) => r.text?.extractorVersion ?? null,
  sectionCount: (r: NewParent) => Math.max(1, r.text?.sections.length ?? 0),
  now: (r: NewParent) => r.now,
}

/** The multi-row insert of new parents (an upload's files, a push's batch), prepared once per row count. */
export function parentInserts(store: Store, t: ReturnType<typeof corporaTables>) {
  return new RowsInsert(
    store,
    ROWS_A_STATEMENT,
    PARENT_VALUES,
    (p) => ({ ...p, status: 'pending' as const, createdAt: p.now, updatedAt: p.now }),
    (db, rows) => db.insert(t.d).values(rows).prepare(),
  )
}

/** One section row to insert: a slice of its parent's text at `textKey`. */
interface SectionInsert {
  parent: Pick<NewParent, 'id' | 'workspaceId' | 'corpusId' | 'path' | 'source'>
  textKey: string
  section: NewSection
  now: number
}

/** The values of a section row that differ from row to row (its parent's among them). */
const SECTION_VALUES = {
  id: (r: SectionInsert) => r.section.id,
  workspaceId: (r: SectionInsert) => r.parent.workspaceId,
  corpusId: (r: SectionInsert) => r.parent.corpusId,
  parentId: (r: SectionInsert) => r.parent.id,
  path: (r: SectionInsert) => r.parent.path,
  size: (r: SectionInsert) => r.section.size,
  sha256: (r: SectionInsert) => r.section.sha256,
  source: (r: SectionInsert) => r.parent.source,
  sectionIndex: (r: SectionInsert) => r.section.index,
  sectionTitle: (r: SectionInsert) => r.section.title,
  cartId: (r: SectionInsert) => r.section.cartId,
  textKey: (r: SectionInsert) => r.textKey,
  textChars: (r: SectionInsert) => r.section.chars,
  textOffset: (r: SectionInsert) => r.section.offset,
  now: (r: SectionInsert) => r.now,
}

/** The multi-row insert of a parent's section rows (every text of several sections), prepared once per row count. */
export function sectionInserts(store: Store, t: ReturnType<typeof corporaTables>) {
  return new RowsInsert(
    store,
    ROWS_A_STATEMENT,
    SECTION_VALUES,
    (p) => ({
      ...p,
      contentType: 'text/plain',
      status: 'pending' as const,
      sectionCount: 1,
      createdAt: p.now,
      updatedAt: p.now,
    }),
    (db, rows) => db.insert(t.d).values(rows).prepare(),
  )
}
