import { and, count, eq, inArray, isNull, sql } from 'drizzle-orm'
import { inList, inPairs, Prepared, PreparedVariants } from '../../platform/db/prepared'
import type { Store } from '../../platform/db/store'
import { statusesInto } from './corpora.lifecycle'
import type { corporaTables, DocumentColumns } from './corpora.rows'

/**
 * The statements a run takes and settles its rows with (UnitsRepo.take, settleLeaf and rollUpParents),
 * run for every batch, section and parent: prepared once per handle, not built by drizzle's builder on
 * each call.
 */
export class SettleWrites {
  private readonly leaves = new PreparedVariants<string, Prepared<Pick<DocumentColumns, 'id'>[]>>()
  /** A parent's sections counted by status. */
  readonly sectionCounts: Prepared<(Pick<DocumentColumns, 'status'> & { n: number })[]>
  /** A parent's status set from its sections'. */
  readonly parentStatus: Prepared<unknown>
  /** Rows by id (a JSON list) set `onboarding`, each only from a state that may go there; the ids moved. */
  readonly take: Prepared<Pick<DocumentColumns, 'id'>[]>
  /**
   * Leaves by id and the text each was read with (a JSON list of `[id, text]`) set `ready`, each
   * only while it holds that text and may go there; the ids set (`leaf`'s, for a group at once).
   */
  readonly ready: Prepared<Pick<DocumentColumns, 'id'>[]>

  constructor(
    private readonly store: Store,
    private readonly t: ReturnType<typeof corporaTables>,
  ) {
    const ph = sql.placeholder
    this.sectionCounts = new Prepared(store, (db) =>
      db
        .select({ status: t.d.status, n: count() })
        .from(t.d)
        .where(eq(t.d.parentId, ph('parent')))
        .groupBy(t.d.status)
        .prepare(),
    )
    this.parentStatus = new Prepared(store, (db) =>
      db
        .update(t.d)
        .set({ status: ph('status') as never, updatedAt: ph('now') as never })
        .where(eq(t.d.id, ph('id')))
        .prepare(),
    )
    this.take = new Prepared(store, (db) =>
      db
        .update(t.d)
        .set({ status: 'onboarding', error: null, updatedAt: ph('now') as never })
        .where(and(inList(store, t.d.id, 'ids'), inArray(t.d.status, statusesInto('onboarding'))))
        .returning({ id: t.d.id })
        .prepare(),
    )
    this.ready = new Prepared(store, (db) =>
      db
        .update(t.d)
        .set({ status: 'ready', error: null, updatedAt: ph('now') as never })
        .where(and(inPairs(store, t.d.id, t.d.textKey, 'pairs'), inArray(t.d.status, statusesInto('ready'))))
        .returning({ id: t.d.id })
        .prepare(),
    )
  }

  /**
   * A leaf's status set to `status`, only while it holds the text it was read with (`text`, or none)
   * and is in a state that may go there.
   */
  leaf(status: 'ready' | 'failed', noText: boolean): Prepared<Pick<DocumentColumns, 'id'>[]> {
    return this.leaves.of(`${status}:${noText}`, () => {
      const { d } = this.t
      const ph = sql.placeholder
      const sameText = noText ? isNull(d.textKey) : eq(d.textKey, ph('text'))
      return new Prepared(this.store, (db) =>
        db
          .update(d)
          .set({ status, error: ph('error') as never, updatedAt: ph('now') as never })
          .where(and(eq(d.id, ph('id')), sameText, inArray(d.status, statusesInto(status))))
          .returning({ id: d.id })
          .prepare(),
      )
    })
  }
}
