import { and, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm'
import { Prepared, PreparedVariants } from '../../platform/db/prepared'
import type { Store } from '../../platform/db/store'
import { statusesInto } from './corpora.lifecycle'
import type { corporaTables, DocumentColumns, NewParent } from './corpora.rows'

/**
 * The statements that record an extraction (DocumentContentRepo.setExtracted), run for every file an
 * upload extracts: prepared once per handle, not built by drizzle's builder on each call.
 */
export class ExtractionWrites {
  private readonly updates = new PreparedVariants<boolean, Prepared<Pick<DocumentColumns, 'id'>[]>>()
  /** Deletes a parent's section rows (they are written again from the new extraction). */
  readonly dropSections: Prepared<unknown>

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
} as const
type ParentValue = keyof typeof PARENT_VALUES
const PARENT_NAMES = Object.keys(PARENT_VALUES) as ParentValue[]

/**
 * The multi-row insert of new parents (an upload's files, a push's batch), prepared once per row
 * count instead of built by drizzle's builder on each call: building a 50-row insert cost about 1 ms
 * (an upload's 50 small files, bench/RESULTS.md issue 38 session 34), more than running it.
 */
export class ParentInserts {
  private readonly inserts = new PreparedVariants<number, Prepared<unknown>>()
  /** Placeholder names by place: `id0`, `workspaceId0`, ... (made once, not once a row). */
  private readonly names: string[][] = []

  constructor(
    private readonly store: Store,
    private readonly t: ReturnType<typeof corporaTables>,
  ) {}

  /** Inserts the rows (at most as many as one statement takes: the caller chunks them). */
  run(rows: NewParent[]): Promise<unknown> {
    const values: Record<string, unknown> = {}
    for (const [i, row] of rows.entries()) {
      const names = this.namesAt(i)
      for (let v = 0; v < PARENT_NAMES.length; v++) values[names[v]!] = PARENT_VALUES[PARENT_NAMES[v]!](row)
    }
    return this.statement(rows.length).execute(values)
  }

  private namesAt(i: number): string[] {
    this.names[i] ??= PARENT_NAMES.map((v) => `${v}${i}`)
    return this.names[i]!
  }

  private statement(n: number): Prepared<unknown> {
    return this.inserts.of(n, () => {
      const ph = (i: number, v: ParentValue) => sql.placeholder(`${v}${i}`) as never
      const rows = Array.from({ length: n }, (_, i) => ({
        id: ph(i, 'id'),
        workspaceId: ph(i, 'workspaceId'),
        corpusId: ph(i, 'corpusId'),
        path: ph(i, 'path'),
        size: ph(i, 'size'),
        contentType: ph(i, 'contentType'),
        sha256: ph(i, 'sha256'),
        status: 'pending' as const,
        source: ph(i, 'source'),
        managedBy: ph(i, 'managedBy'),
        rawKey: ph(i, 'rawKey'),
        textKey: ph(i, 'textKey'),
        textBytes: ph(i, 'textBytes'),
        textChars: ph(i, 'textChars'),
        sectionTitle: ph(i, 'sectionTitle'),
        cartId: ph(i, 'cartId'),
        extractorVersion: ph(i, 'extractorVersion'),
        sectionCount: ph(i, 'sectionCount'),
        createdAt: ph(i, 'now'),
        updatedAt: ph(i, 'now'),
      }))
      return new Prepared(this.store, (db) => db.insert(this.t.d).values(rows).prepare())
    })
  }
}
