import type { Db } from '../../platform/db/db'
import { transaction } from '../../platform/db/transaction'
import type { Outbox } from '../../platform/events/outbox'

/** A unit of onboarding: a section row, a one-section document, or a document still to extract. */
export interface UnitRow {
  id: string
  workspace_id: string
  corpus_id: string
  parent_id: string | null
  path: string
  status: 'pending' | 'onboarding' | 'ready' | 'failed'
  section_title: string | null
  text_key: string | null
  text_chars: number
  /** Where a section starts in its document's text sidecar (null: the whole sidecar). */
  text_offset: number | null
  cart_id: string | null
  /**
   * The content a run takes: its file's SHA-256 (a section's parent's). A new upload of the file
   * changes it; extracting the same content does not (a run may take a file before its extraction).
   */
  version: string
}

const UNIT_COLUMNS = `d.id, d.workspace_id, d.corpus_id, d.parent_id, d.path, d.status, d.section_title, d.text_key,
  d.text_chars, d.text_offset, d.cart_id, COALESCE(p.sha256, d.sha256, '') AS version`
const WITH_PARENT = 'documents d LEFT JOIN documents p ON p.id = d.parent_id'

// A leaf is a section row, or a parent that has no section rows.
const LEAF = `(d.parent_id IS NOT NULL OR NOT EXISTS (SELECT 1 FROM documents s WHERE s.parent_id = d.id))`

/** Document lifecycle moves made by onboarding (the rows belong to the corpora feature's tables). */
export class OnboardingRepo {
  constructor(private readonly db: Db) {}

  private get c() {
    return this.db.$client
  }

  /**
   * Units a run should onboard: with `force`, every leaf that did not fail extraction; otherwise the
   * leaves still pending (new or changed since the last run). `extracted` leaves out documents
   * whose text is still being extracted (an automatic run takes them in the run after their sync).
   */
  units(corpusId: string, force: boolean, extracted = false): UnitRow[] {
    const statuses = force ? "('pending','onboarding','ready')" : "('pending','onboarding')"
    return this.c
      .query<UnitRow, [string]>(
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
  unit(id: string): UnitRow | null {
    return this.c
      .query<UnitRow, [string]>(`SELECT ${UNIT_COLUMNS} FROM ${WITH_PARENT} WHERE d.id = ?`)
      .get(id)
  }

  /** Units by id, each as `unit` reads it (one deleted meanwhile is missing), in one query. */
  unitsById(ids: string[]): Map<string, UnitRow> {
    const rows = this.c
      .query<UnitRow, [string]>(
        `SELECT ${UNIT_COLUMNS} FROM ${WITH_PARENT} WHERE d.id IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(ids))
    return new Map(rows.map((r) => [r.id, r]))
  }

  /** The leaves of each of these documents, each list as `leavesOf` reads it, in one query. */
  leavesOfAll(ids: string[]): Map<string, UnitRow[]> {
    type Owned = UnitRow & { owner: string; sort_index: number | null }
    const rows = this.c
      .query<Owned, [string]>(
        `SELECT ${UNIT_COLUMNS}, d.parent_id AS owner, d.section_index AS sort_index
           FROM ${WITH_PARENT} WHERE d.parent_id IN (SELECT value FROM json_each(?1))
         UNION ALL
         SELECT ${UNIT_COLUMNS}, d.id AS owner, d.section_index AS sort_index
           FROM ${WITH_PARENT} WHERE d.id IN (SELECT value FROM json_each(?1)) AND ${LEAF}
         ORDER BY sort_index`,
      )
      .all(JSON.stringify(ids))
    const out = new Map(ids.map((id) => [id, [] as UnitRow[]]))
    for (const { owner, sort_index: _, ...row } of rows) out.get(owner)!.push(row)
    return out
  }

  /** The leaves of a document (its sections, or itself). */
  leavesOf(documentId: string): UnitRow[] {
    return this.c
      .query<UnitRow, [string, string]>(
        `SELECT ${UNIT_COLUMNS}
         FROM ${WITH_PARENT} WHERE (d.parent_id = ? OR (d.id = ? AND ${LEAF})) ORDER BY d.section_index`,
      )
      .all(documentId, documentId)
  }

  /** Sets the status of rows and of their parents, in one transaction. */
  setStatus(ids: string[], status: UnitRow['status'], error: string | null, now: number): void {
    if (ids.length === 0) return
    const set = this.c.query('UPDATE documents SET status = ?, error = ?, updated_at = ? WHERE id = ?')
    transaction(this.db, () => {
      for (const id of ids) set.run(status, error, now, id)
    })
  }

  /**
   * Sets the status of rows a batch onboarded (or failed to), each only while it still holds the
   * text the batch read: a row given new content meanwhile stays `pending` for the run that follows.
   * Returns the rows it set.
   */
  settleLeaves(rows: UnitRow[], status: 'ready' | 'failed', error: string | null, now: number): UnitRow[] {
    if (rows.length === 0) return []
    const set = this.c.query(
      'UPDATE documents SET status = ?, error = ?, updated_at = ? WHERE id = ? AND text_key IS ?',
    )
    return transaction(this.db, () =>
      rows.filter((r) => set.run(status, error, now, r.id, r.text_key).changes > 0),
    )
  }

  /**
   * Settles a group's onboarded and failed units and rolls their parents up, in one transaction
   * with the events of the whole documents that became ready or failed (`document.ready`,
   * `document.failed`: a one-section document itself, a sectioned one once its sections are done).
   */
  settleGroup(
    g: { ready: UnitRow[]; failed: { unit: UnitRow; error: string }[]; parents: string[] },
    now: number,
    events: Outbox,
  ): void {
    transaction(this.db, () => {
      const tell = (d: { workspace_id: string; corpus_id: string; id: string }, error: string | null) => {
        const ids = { corpusId: d.corpus_id, documentId: d.id }
        events.emit(
          this.db,
          error === null
            ? { type: 'document.ready', workspaceId: d.workspace_id, payload: ids }
            : { type: 'document.failed', workspaceId: d.workspace_id, payload: { ...ids, error } },
        )
      }
      for (const r of this.settleLeaves(g.ready, 'ready', null, now)) if (!r.parent_id) tell(r, null)
      for (const f of g.failed) {
        for (const r of this.settleLeaves([f.unit], 'failed', f.error, now))
          if (!r.parent_id) tell(r, f.error)
      }
      const place = new Map([...g.ready, ...g.failed.map((f) => f.unit)].map((u) => [u.parent_id, u]))
      for (const p of this.rollUpParents(g.parents, now)) {
        const unit = place.get(p.id)
        if (!unit || (p.status !== 'ready' && p.status !== 'failed')) continue
        const doc = { workspace_id: unit.workspace_id, corpus_id: unit.corpus_id, id: p.id }
        tell(doc, p.status === 'ready' ? null : 'Every section of the document failed to onboard.')
      }
    })
  }

  /**
   * Recomputes each parent's status from its sections: failed only when every section failed,
   * ready when every section is ready or failed, else onboarding or pending.
   */
  rollUpParents(parentIds: string[], now: number): { id: string; status: string }[] {
    const rows = this.c.query<{ status: string; n: number }, [string]>(
      'SELECT status, count(*) AS n FROM documents WHERE parent_id = ? GROUP BY status',
    )
    const set = this.c.query('UPDATE documents SET status = ?, updated_at = ? WHERE id = ?')
    const out: { id: string; status: string }[] = []
    transaction(this.db, () => {
      for (const id of new Set(parentIds)) {
        const counts = new Map(rows.all(id).map((r) => [r.status, r.n]))
        const total = [...counts.values()].reduce((a, b) => a + b, 0)
        if (total === 0) continue
        const failed = counts.get('failed') ?? 0
        const ready = counts.get('ready') ?? 0
        const status =
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

  /** Puts rows left `onboarding` by a stopped run back to `pending`. */
  resetOnboarding(corpusId: string, now: number): void {
    this.c
      .query(
        "UPDATE documents SET status = 'pending', updated_at = ? WHERE corpus_id = ? AND status = 'onboarding'",
      )
      .run(now, corpusId)
  }

  /** Counts of parent documents by status. */
  parentCounts(corpusId: string): { ready: number; failed: number; pending: number } {
    const out = { ready: 0, failed: 0, pending: 0 }
    for (const r of this.c
      .query<{ status: string; n: number }, [string]>(
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
