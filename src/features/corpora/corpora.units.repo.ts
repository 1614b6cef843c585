import { and, asc, count, eq, inArray, isNotNull, isNull, or, type SQL, sql } from 'drizzle-orm'
import { alias } from 'drizzle-orm/sqlite-core'
import { holdInUnit } from '../../platform/db/hold'
import { inList, Prepared } from '../../platform/db/prepared'
import type { Store } from '../../platform/db/store'
import type { WireStatus } from './corpora.lifecycle'
import { corporaTables, type DocumentColumns } from './corpora.rows'
import { SettleWrites } from './corpora.settles.repo'

/**
 * A unit of onboarding: a section row, a one-section document, or a document still to extract, as
 * the `documents` table holds it (the columns a run reads, by their JS keys), with its `version`: the
 * content a run takes, its file's SHA-256 (a section's parent's). A new upload of the file changes
 * it; extracting the same content does not (a run may take a file before its extraction).
 */
export type Unit = Pick<
  DocumentColumns,
  | 'id'
  | 'workspaceId'
  | 'corpusId'
  | 'parentId'
  | 'path'
  | 'status'
  | 'sectionTitle'
  | 'textKey'
  | 'textChars'
  | 'textOffset'
  | 'cartId'
> & { version: string }

/** Data functions of the documents onboarding runs take and settle (corpora's rows; corpora.runs.ts commands them). */
export class UnitsRepo {
  private readonly t
  /** The parent of a row, joined to read a section's version (its file's SHA-256). */
  private readonly p

  /** A unit by id (a deferred build reads each section it builds), built once per handle. */
  private readonly unitById: Prepared<Unit[]>
  /** Units by id, and the leaves of documents by id (every batch of a run reads both): a JSON list of ids. */
  private readonly byIds: Prepared<Unit[]>
  private readonly leavesByIds: Prepared<Unit[]>
  /** A run's per-row statements (every section a run settles, every parent), built once per handle. */
  private readonly settles

  constructor(private readonly store: Store) {
    const t = corporaTables(store)
    this.t = t
    this.p = alias(this.t.d, 'p')
    const ph = sql.placeholder
    this.unitById = new Prepared(store, (db) =>
      this.from(db)
        .where(eq(t.d.id, ph('id')))
        .prepare(),
    )
    this.byIds = new Prepared(store, (db) =>
      this.from(db)
        .where(inList(store, t.d.id, 'ids'))
        .prepare(),
    )
    const leaves = or(inList(store, t.d.parentId, 'ids'), and(inList(store, t.d.id, 'ids'), this.leaf()))
    this.leavesByIds = new Prepared(store, (db) =>
      this.from(db).where(leaves).orderBy(nullsFirst(t.d.sectionIndex)).prepare(),
    )
    this.settles = new SettleWrites(store, t)
  }

  private get db() {
    return this.store.db
  }

  /** A leaf is a section row, or a parent that has no section rows. */
  private leaf(): SQL {
    const { d } = this.t
    return sql`(${d.parentId} IS NOT NULL OR NOT EXISTS (SELECT 1 FROM documents s WHERE s.parent_id = ${d.id}))`
  }

  /** Units (with the parent joined) where `where` holds, in `order`. */
  private async select(where: SQL | undefined, ...order: SQL[]): Promise<Unit[]> {
    const q = this.from(this.db).where(where)
    return order.length > 0 ? await q.orderBy(...order) : await q
  }

  /** The units' columns (with the parent joined), from `db`. */
  private from(db: Store['db']) {
    const { d } = this.t
    const p = this.p
    return db
      .select({
        id: d.id,
        workspaceId: d.workspaceId,
        corpusId: d.corpusId,
        parentId: d.parentId,
        path: d.path,
        status: d.status,
        sectionTitle: d.sectionTitle,
        textKey: d.textKey,
        textChars: d.textChars,
        textOffset: d.textOffset,
        cartId: d.cartId,
        version: sql<string>`coalesce(${p.sha256}, ${d.sha256}, '')`,
      })
      .from(d)
      .leftJoin(p, eq(p.id, d.parentId))
  }

  /**
   * Units a run should onboard: with `force`, every leaf that did not fail extraction; otherwise the
   * leaves still pending (new or changed since the last run). `extracted` leaves out documents
   * whose text is still being extracted (an automatic run takes them in the run after their sync).
   */
  units(corpusId: string, force: boolean, extracted = false): Promise<Unit[]> {
    const { d } = this.t
    const statuses: WireStatus[] = force ? ['pending', 'onboarding', 'ready'] : ['pending', 'onboarding']
    const where = and(
      eq(d.corpusId, corpusId),
      this.leaf(),
      inArray(d.status, statuses),
      extracted ? isNotNull(d.textKey) : undefined,
    )
    // NULLs first, as SQLite orders them: a parent (no section index) before its sections.
    // Paths by their bytes, as SQLite compares text (PostgreSQL would use the database's collation).
    const path = this.store.dialect === 'postgres' ? sql`${d.path} COLLATE "C"` : asc(d.path)
    return this.select(where, asc(d.createdAt), path, nullsFirst(d.sectionIndex))
  }

  /** Whether a base has extracted units waiting for a run (`pending`: not in one now). */
  async hasWaiting(corpusId: string): Promise<boolean> {
    const { d } = this.t
    const rows = await this.db
      .select({ id: d.id })
      .from(d)
      .where(and(eq(d.corpusId, corpusId), eq(d.status, 'pending'), isNotNull(d.textKey), this.leaf()))
      .limit(1)
    return rows.length > 0
  }

  /** Number of parent documents of a base. */
  async documentCount(corpusId: string): Promise<number> {
    const { d } = this.t
    const rows = await this.db
      .select({ n: count() })
      .from(d)
      .where(and(eq(d.corpusId, corpusId), isNull(d.parentId)))
    return Number(rows[0]?.n ?? 0)
  }

  /** One unit by id (null when it was deleted meanwhile). */
  async unit(id: string): Promise<Unit | null> {
    return (await this.unitById.execute({ id }))[0] ?? null
  }

  /** Units by id, each as `unit` reads it (one deleted meanwhile is missing), in one query. */
  async unitsById(ids: string[]): Promise<Map<string, Unit>> {
    const rows = await this.byIds.execute({ ids: JSON.stringify(ids) })
    return new Map(rows.map((r) => [r.id, r]))
  }

  /** The leaves of each of these documents (its sections, or itself), in one query. */
  async leavesOfAll(ids: string[]): Promise<Map<string, Unit[]>> {
    const out = new Map(ids.map((id) => [id, [] as Unit[]]))
    for (const row of await this.leavesByIds.execute({ ids: JSON.stringify(ids) })) {
      if (row.parentId !== null) out.get(row.parentId)?.push(row)
      // A leaf asked for itself (a one-section document, or a section named by its own id).
      out.get(row.id)?.push(row)
    }
    return out
  }

  /** The leaves of a document (its sections, or itself), one document at a time (`leavesOfAll`'s reference). */
  leavesOf(documentId: string): Promise<Unit[]> {
    const { d } = this.t
    const where = or(eq(d.parentId, documentId), and(eq(d.id, documentId), this.leaf()))
    return this.select(where, nullsFirst(d.sectionIndex))
  }

  /** Sets `onboarding` on rows a run takes, each only from a state that may go there; the ids it moved. */
  async take(ids: string[], now: number): Promise<string[]> {
    const rows = await this.settles.take.execute({ ids: JSON.stringify(ids), now })
    return rows.map((r) => r.id)
  }

  /**
   * Sets the status of a row a batch onboarded (or failed to), only while it still holds the text
   * the batch read and is in a state that may go there: a row given new content meanwhile stays
   * `pending` for the run that follows. True when it was set.
   */
  async settleLeaf(
    row: Unit,
    status: 'ready' | 'failed',
    error: string | null,
    now: number,
  ): Promise<boolean> {
    const set = await this.settles.leaf(status, row.textKey === null).execute({
      id: row.id,
      text: row.textKey,
      error,
      now,
    })
    return set.length > 0
  }

  /**
   * `settleLeaf(row, 'ready', ...)` for each of these rows, in one statement for those read with a
   * text (a group's, at every settle) and one each for the others; the ids set.
   */
  async settleReady(rows: readonly Unit[], now: number): Promise<Set<string>> {
    const read = rows.filter((r) => r.textKey !== null)
    const pairs = JSON.stringify(read.map((r) => [r.id, r.textKey]))
    const set = new Set(
      read.length > 0 ? (await this.settles.ready.execute({ pairs, now })).map((r) => r.id) : [],
    )
    for (const r of rows)
      if (r.textKey === null && (await this.settleLeaf(r, 'ready', null, now))) set.add(r.id)
    return set
  }

  /**
   * Makes the calling unit the only one moving a base's run units until it ends (`holdInUnit`; none
   * for no base): called first by every unit that takes, settles or releases them. On PostgreSQL two
   * units settling sections of one document at once would each count the other's section as still
   * onboarding (neither committed) and the last to write would leave the parent so; and one holding
   * the base's counter row (a whole document's update, through its trigger) while waiting for a
   * parent another holds would deadlock with it. Such units are short; they take turns.
   */
  async holdMoves(corpusId: string | undefined): Promise<void> {
    if (corpusId !== undefined) await holdInUnit(this.store, `documents.moves:${corpusId}`)
  }

  /**
   * Recomputes each parent's status from its sections (in a unit that holds the base's moves,
   * `holdMoves`): failed only when every section failed, ready when every section is ready or
   * failed, else onboarding or pending.
   */
  async rollUpParents(parentIds: string[], now: number): Promise<{ id: string; status: WireStatus }[]> {
    const out: { id: string; status: WireStatus }[] = []
    // In id order: the documents a settle tells ready or failed are told in it.
    for (const id of [...new Set(parentIds)].sort()) {
      const rows = await this.settles.sectionCounts.execute({ parent: id })
      const counts = new Map(rows.map((r) => [r.status, Number(r.n)]))
      const total = [...counts.values()].reduce((a, b) => a + b, 0)
      if (total === 0) continue
      const failed = counts.get('failed') ?? 0
      const ready = counts.get('ready') ?? 0
      const status: WireStatus =
        failed === total
          ? 'failed'
          : ready + failed === total
            ? 'ready'
            : counts.get('onboarding')
              ? 'onboarding'
              : 'pending'
      await this.settles.parentStatus.execute({ id, status, now })
      out.push({ id, status })
    }
    return out
  }

  /** Puts rows left `onboarding` by a stopped run back to `pending` (`uploaded` or `extracted`). */
  async release(corpusId: string, now: number): Promise<void> {
    const { d } = this.t
    await this.db
      .update(d)
      .set({ status: 'pending', updatedAt: now })
      .where(and(eq(d.corpusId, corpusId), eq(d.status, 'onboarding')))
  }

  /** Counts of parent documents by status (`pending`: waiting or in a run now). */
  async parentCounts(corpusId: string): Promise<{ ready: number; failed: number; pending: number }> {
    const { d } = this.t
    const out = { ready: 0, failed: 0, pending: 0 }
    const rows = await this.db
      .select({ status: d.status, n: count() })
      .from(d)
      .where(and(eq(d.corpusId, corpusId), isNull(d.parentId)))
      .groupBy(d.status)
    for (const r of rows) {
      const n = Number(r.n)
      if (r.status === 'ready') out.ready += n
      else if (r.status === 'failed') out.failed += n
      else out.pending += n
    }
    return out
  }
}

/** Ascending with NULLs first on both engines (SQLite's default; PostgreSQL puts them last). */
function nullsFirst(column: SQL.Aliased | Parameters<typeof asc>[0]): SQL {
  return sql`${column} IS NOT NULL, ${column}`
}
