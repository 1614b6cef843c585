import type { Statement } from 'bun:sqlite'
import type { Db } from '../../platform/db/db'

/** A stored scale run, as its row. */
export interface ScaleRunRow {
  id: string
  workspace_id: string
  corpus_id: string
  created_by: string | null
  note: string | null
  max_concurrency: number
  queries: string
  records: string
  created_at: number
}

/** Data functions of saved scale runs (prepared once; SQL stays behind this file). */
export class ScaleRepo {
  private readonly insertRun: Statement
  private readonly page: Statement<ScaleRunRow, [string, number, number, string, number]>
  private readonly count: Statement<{ n: number }, [string]>

  constructor(db: Db) {
    const c = db.$client
    this.insertRun = c.query(
      `INSERT INTO scale_runs (id, workspace_id, corpus_id, created_by, note, max_concurrency, queries, records,
         created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    // Newest first; the keyset (created_at, id) stays correct while runs are added.
    this.page = c.query(
      `SELECT * FROM scale_runs WHERE corpus_id = ? AND (created_at < ? OR (created_at = ? AND id < ?))
       ORDER BY created_at DESC, id DESC LIMIT ?`,
    )
    this.count = c.query('SELECT count(*) AS n FROM scale_runs WHERE corpus_id = ?')
  }

  /** Stores a run. */
  insert(row: ScaleRunRow): void {
    this.insertRun.run(
      row.id,
      row.workspace_id,
      row.corpus_id,
      row.created_by,
      row.note,
      row.max_concurrency,
      row.queries,
      row.records,
      row.created_at,
    )
  }

  /** Runs of a base newest first after a keyset position; `limit` null means all. */
  list(corpusId: string, after: readonly (string | number)[] | null, limit: number | null): ScaleRunRow[] {
    const [at, id] = after ?? [Number.MAX_SAFE_INTEGER, '\uffff']
    return this.page.all(corpusId, at as number, at as number, id as string, limit === null ? -1 : limit + 1)
  }

  /** Number of runs of a base. */
  countRuns(corpusId: string): number {
    return this.count.get(corpusId)?.n ?? 0
  }
}
