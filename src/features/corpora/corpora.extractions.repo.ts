import { and, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm'
import { Prepared, PreparedVariants } from '../../platform/db/prepared'
import type { Store } from '../../platform/db/store'
import { statusesInto } from './corpora.lifecycle'
import type { corporaTables, DocumentColumns } from './corpora.rows'

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
