import type { Db } from '../../platform/db/db'
import { transaction } from '../../platform/db/transaction'
import type { Outbox } from '../../platform/events/outbox'
import { statusesInto, type WireStatus } from './corpora.lifecycle'
import type { documents } from './corpora.tables'

/**
 * A unit of onboarding: a section row, a one-section document, or a document still to extract, as
 * the `documents` table holds it (the columns a run reads, by their JS keys), with its `version`: the
 * content a run takes, its file's SHA-256 (a section's parent's). A new upload of the file changes
 * it; extracting the same content does not (a run may take a file before its extraction).
 */
export type Unit = Pick<
  typeof documents.$inferSelect,
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

// Aliased to the table's JS keys, so a statement returns `Unit`s as they are.
const UNIT_COLUMNS = `d.id, d.workspace_id AS workspaceId, d.corpus_id AS corpusId, d.parent_id AS parentId,
  d.path, d.status, d.section_title AS sectionTitle, d.text_key AS textKey, d.text_chars AS textChars,
  d.text_offset AS textOffset, d.cart_id AS cartId, COALESCE(p.sha256, d.sha256, '') AS version`
const WITH_PARENT = 'documents d LEFT JOIN documents p ON p.id = d.parent_id'

// A leaf is a section row, or a parent that has no section rows.
const LEAF = `(d.parent_id IS NOT NULL OR NOT EXISTS (SELECT 1 FROM documents s WHERE s.parent_id = d.id))`

/** `status IN (...)` for the rows that may move to a state (corpora.lifecycle.ts). */
const into = (to: 'ready' | 'failed' | 'onboarding') => `(${statusesInto(to).map((s) => `'${s}'`)})`

/** Data functions of the documents onboarding runs take and settle (corpora's rows; corpora.runs.ts commands them). */
export class UnitsRepo {
  constructor(private readonly db: Db) {}

  private get c() {
    return this.db.$client
  }

  /**
   * Units a run should onboard: with `force`, every leaf that did not fail extraction; otherwise the
   * leaves still pending (new or changed since the last run). `extracted` leaves out documents
   * whose text is still being extracted (an automatic run takes them in the run after their sync).
   */
  units(corpusId: string, force: boolean, extracted = false): Unit[] {
    const statuses = force ? "('pending','onboarding','ready')" : "('pending','onboarding')"
    return this.c
      .query<Unit, [string]>(
        `SELECT ${UNIT_COLUMNS}
         FROM ${WITH_PARENT} WHERE d.corpus_id = ? AND ${LEAF} AND d.status IN ${statuses}
           ${extracted ? 'AND d.text_key IS NOT NULL' : ''}
         ORDER BY d.created_at, d.path, d.section_index`,
      )
      .all(corpusId)
  }

  /** Whether a base has extracted units waiting for a run (`pending`: not in one now). */
  hasWaiting(corpusId: string): boolean {
    return (
      this.c
        .query<{ n: number }, [string]>(
          `SELECT 1 AS n FROM documents d WHERE d.corpus_id = ? AND d.status = 'pending' AND d.text_key IS NOT NULL
             AND ${LEAF} LIMIT 1`,
        )
        .get(corpusId) !== null
    )
  }

  /** Number of parent documents of a base. */
  documentCount(corpusId: string): number {
    return (
      this.c
        .query<{ n: number }, [string]>(
          'SELECT count(*) AS n FROM documents WHERE corpus_id = ? AND parent_id IS NULL',
        )
        .get(corpusId)?.n ?? 0
    )
  }

  /** One unit by id (null when it was deleted meanwhile). */
  unit(id: string): Unit | null {
    return this.c.query<Unit, [string]>(`SELECT ${UNIT_COLUMNS} FROM ${WITH_PARENT} WHERE d.id = ?`).get(id)
  }

  /** Units by id, each as `unit` reads it (one deleted meanwhile is missing), in one query. */
  unitsById(ids: string[]): Map<string, Unit> {
    const rows = this.c
      .query<Unit, [string]>(
        `SELECT ${UNIT_COLUMNS} FROM ${WITH_PARENT} WHERE d.id IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(ids))
    return new Map(rows.map((r) => [r.id, r]))
  }

  /** The leaves of each of these documents (its sections, or itself), in one query. */
  leavesOfAll(ids: string[]): Map<string, Unit[]> {
    type Owned = Unit & { owner: string; sortIndex: number | null }
    const rows = this.c
      .query<Owned, [string]>(
        `SELECT ${UNIT_COLUMNS}, d.parent_id AS owner, d.section_index AS sortIndex
           FROM ${WITH_PARENT} WHERE d.parent_id IN (SELECT value FROM json_each(?1))
         UNION ALL
         SELECT ${UNIT_COLUMNS}, d.id AS owner, d.section_index AS sortIndex
           FROM ${WITH_PARENT} WHERE d.id IN (SELECT value FROM json_each(?1)) AND ${LEAF}
         ORDER BY sortIndex`,
      )
      .all(JSON.stringify(ids))
    const out = new Map(ids.map((id) => [id, [] as Unit[]]))
    for (const { owner, sortIndex: _, ...row } of rows) out.get(owner)!.push(row)
    return out
  }

  /** The leaves of a document (its sections, or itself), one document at a time (`leavesOfAll`'s reference). */
  leavesOf(documentId: string): Unit[] {
    return this.c
      .query<Unit, [string, string]>(
        `SELECT ${UNIT_COLUMNS}
         FROM ${WITH_PARENT} WHERE (d.parent_id = ? OR (d.id = ? AND ${LEAF})) ORDER BY d.section_index`,
      )
      .all(documentId, documentId)
  }

  /** Sets `onboarding` on rows a run takes (each only from a state that may go there), in one transaction. */
  take(ids: string[], now: number): void {
    if (ids.length === 0) return
    const set = this.c.query(
      `UPDATE documents SET status = 'onboarding', error = NULL, updated_at = ? WHERE id = ? AND status IN ${into('onboarding')}`,
    )
    transaction(this.db, () => {
      for (const id of ids) set.run(now, id)
    })
  }

  /**
   * Sets the status of rows a batch onboarded (or failed to), each only while it still holds the
   * text the batch read and is in a state that may go there: a row given new content meanwhile stays
   * `pending` for the run that follows. Returns the rows it set.
   */
  private settleLeaves(rows: Unit[], status: 'ready' | 'failed', error: string | null, now: number): Unit[] {
    if (rows.length === 0) return []
    const set = this.c.query(
      `UPDATE documents SET status = ?, error = ?, updated_at = ? WHERE id = ? AND text_key IS ? AND status IN ${into(status)}`,
    )
    return rows.filter((r) => set.run(status, error, now, r.id, r.textKey).changes > 0)
  }

  /**
   * Settles a group's onboarded and failed units and rolls their parents up, in one transaction
   * with the events of the whole documents that became ready or failed (`document.ready`,
   * `document.failed`: a one-section document itself, a sectioned one once its sections are done).
   */
  settleGroup(
    g: { ready: Unit[]; failed: { unit: Unit; error: string }[]; parents: string[] },
    now: number,
    events: Outbox,
  ): void {
    transaction(this.db, () => {
      const tell = (d: Pick<Unit, 'workspaceId' | 'corpusId' | 'id'>, error: string | null) => {
        const ids = { corpusId: d.corpusId, documentId: d.id }
        events.emit(
          this.db,
          error === null
            ? { type: 'document.ready', workspaceId: d.workspaceId, payload: ids }
            : { type: 'document.failed', workspaceId: d.workspaceId, payload: { ...ids, error } },
        )
      }
      for (const r of this.settleLeaves(g.ready, 'ready', null, now)) if (!r.parentId) tell(r, null)
      for (const f of g.failed) {
        for (const r of this.settleLeaves([f.unit], 'failed', f.error, now)) if (!r.parentId) tell(r, f.error)
      }
      const place = new Map([...g.ready, ...g.failed.map((f) => f.unit)].map((u) => [u.parentId, u]))
      for (const p of this.rollUpParents(g.parents, now)) {
        const unit = place.get(p.id)
        if (!unit || (p.status !== 'ready' && p.status !== 'failed')) continue
        const doc = { workspaceId: unit.workspaceId, corpusId: unit.corpusId, id: p.id }
        tell(doc, p.status === 'ready' ? null : 'Every section of the document failed to onboard.')
      }
    })
  }

  /**
   * Recomputes each parent's status from its sections: failed only when every section failed,
   * ready when every section is ready or failed, else onboarding or pending.
   */
  rollUpParents(parentIds: string[], now: number): { id: string; status: WireStatus }[] {
    const rows = this.c.query<{ status: WireStatus; n: number }, [string]>(
      'SELECT status, count(*) AS n FROM documents WHERE parent_id = ? GROUP BY status',
    )
    const set = this.c.query('UPDATE documents SET status = ?, updated_at = ? WHERE id = ?')
    const out: { id: string; status: WireStatus }[] = []
    transaction(this.db, () => {
      for (const id of new Set(parentIds)) {
        const counts = new Map(rows.all(id).map((r) => [r.status, r.n]))
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
        set.run(status, now, id)
        out.push({ id, status })
      }
    })
    return out
  }

  /** Puts rows left `onboarding` by a stopped run back to `pending` (`uploaded` or `extracted`). */
  release(corpusId: string, now: number): void {
    this.c
      .query(
        "UPDATE documents SET status = 'pending', updated_at = ? WHERE corpus_id = ? AND status = 'onboarding'",
      )
      .run(now, corpusId)
  }

  /** Counts of parent documents by status (`pending`: waiting or in a run now). */
  parentCounts(corpusId: string): { ready: number; failed: number; pending: number } {
    const out = { ready: 0, failed: 0, pending: 0 }
    for (const r of this.c
      .query<{ status: WireStatus; n: number }, [string]>(
        'SELECT status, count(*) AS n FROM documents WHERE corpus_id = ? AND parent_id IS NULL GROUP BY status',
      )
      .all(corpusId)) {
      if (r.status === 'ready') out.ready += r.n
      else if (r.status === 'failed') out.failed += r.n
      else out.pending += r.n
    }
    return out
  }
}
