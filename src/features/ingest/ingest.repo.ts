import type { Db } from '../../platform/db/db'
import { transaction } from '../../platform/db/transaction'
import type { Outbox } from '../../platform/events/outbox'

import type { RunError, syncRuns } from './ingest.tables'

export type { RunError } from './ingest.tables'
export type { UploadRow } from './ingest.uploads.repo'

/** A sync run's row (`SELECT ${RUN_COLUMNS}`: the columns under the table's JS keys). */
export type SyncRunRow = typeof syncRuns.$inferSelect

/** The columns of a `sync_runs` row under their JS keys (ingest.tables.ts). */
const RUN_COLUMNS = `id, workspace_id AS workspaceId, corpus_id AS corpusId, source, status, source_id AS sourceId,
  job_id AS jobId, listing, created, updated, unchanged, deleted, failed, pending, errors, error,
  started_at AS startedAt, finished_at AS finishedAt`

/** A run keeps at most this many error entries; the `failed` counter keeps counting. */
export const MAX_RUN_ERRORS = 1000

/** Data functions of sync runs (pending push uploads: ingest.uploads.repo.ts). */
export class IngestRepo {
  constructor(
    private readonly db: Db,
    /** A run that ends is told as `sync.finished`, in the transaction that ends it. */
    private readonly events: Outbox,
  ) {}

  private get c() {
    return this.db.$client
  }

  /** Inserts a run with its counters; a run with nothing pending is finished at once. */
  insertRun(r: {
    id: string
    workspaceId: string
    corpusId: string
    source: string
    created: number
    updated: number
    unchanged: number
    deleted: number
    failed: number
    pending: number
    errors: RunError[]
    now: number
  }): void {
    const status = r.pending > 0 ? 'running' : finalStatus(r.failed, r.created + r.updated)
    this.c
      .query(
        `INSERT INTO sync_runs (id, workspace_id, corpus_id, source, status, created, updated, unchanged, deleted,
           failed, pending, errors, started_at, finished_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        r.id,
        r.workspaceId,
        r.corpusId,
        r.source,
        status,
        r.created,
        r.updated,
        r.unchanged,
        r.deleted,
        r.failed,
        r.pending,
        JSON.stringify(r.errors.slice(0, MAX_RUN_ERRORS)),
        r.now,
        r.pending > 0 ? null : r.now,
      )
    if (status !== 'running') this.finished({ ...r, status })
  }

  /** Emits `sync.finished` for a run that just ended; inside the caller's transaction. */
  private finished(
    run: Pick<SyncRunRow, 'workspaceId' | 'corpusId' | 'id' | 'source' | 'created' | 'updated'> & {
      status: 'succeeded' | 'partial' | 'failed' | 'canceled'
      deleted: number
      failed: number
    },
  ): void {
    this.events.emit(this.db, {
      type: 'sync.finished',
      workspaceId: run.workspaceId,
      payload: {
        corpusId: run.corpusId,
        runId: run.id,
        source: run.source,
        status: run.status,
        created: run.created,
        updated: run.updated,
        deleted: run.deleted,
        failed: run.failed,
      },
    })
  }

  /**
   * Opens a run that stays running while its files are still coming (`listing`): a source's sync
   * while the source is listed, a push commit while its batches are registered.
   */
  openRun(r: {
    id: string
    workspaceId: string
    corpusId: string
    source: 'sync' | 'import' | 'push'
    sourceId: string | null
    jobId: string | null
    now: number
  }): void {
    this.c
      .query(
        `INSERT INTO sync_runs (id, workspace_id, corpus_id, source, status, source_id, job_id, listing, started_at)
         VALUES (?, ?, ?, ?, 'running', ?, ?, 1, ?)`,
      )
      .run(r.id, r.workspaceId, r.corpusId, r.source, r.sourceId, r.jobId, r.now)
  }

  /** Names the job that lists a source for its run. */
  setRunJob(runId: string, jobId: string): void {
    this.c.query('UPDATE sync_runs SET job_id = ? WHERE id = ?').run(jobId, runId)
  }

  /** Adds a batch's counters and per-file errors to an open run; inside the batch's transaction. */
  addToRun(
    runId: string,
    n: { created: number; updated: number; unchanged: number; deleted: number; pending: number },
    failures: RunError[],
  ): void {
    const run = this.c
      .query<SyncRunRow, [string]>(`SELECT ${RUN_COLUMNS} FROM sync_runs WHERE id = ?`)
      .get(runId)
    if (!run) return
    const errors = JSON.parse(run.errors) as RunError[]
    errors.push(...failures.slice(0, Math.max(0, MAX_RUN_ERRORS - errors.length)))
    this.c
      .query(
        `UPDATE sync_runs SET created = created + ?, updated = updated + ?, unchanged = unchanged + ?,
           deleted = deleted + ?, failed = failed + ?, pending = pending + ?, errors = ? WHERE id = ?`,
      )
      .run(
        n.created,
        n.updated,
        n.unchanged,
        n.deleted,
        failures.length,
        n.pending,
        JSON.stringify(errors),
        runId,
      )
  }

  /**
   * Ends a source's listing: the run ends now when nothing is pending (else when its last document
   * settles). `failed` or `canceled` end it at once whatever is pending, with the reason. Returns
   * the run as it was before (null when it had ended already).
   */
  closeListing(
    runId: string,
    now: number,
    end?: { status: 'failed' | 'canceled'; error: string | null },
  ): SyncRunRow | null {
    return transaction(this.db, () => {
      const run = this.c
        .query<SyncRunRow, [string]>(`SELECT ${RUN_COLUMNS} FROM sync_runs WHERE id = ?`)
        .get(runId)
      if (run?.status !== 'running') return null
      const status = end?.status ?? (run.pending > 0 ? 'running' : finalStatus(run.failed, taken(run)))
      this.c
        .query('UPDATE sync_runs SET listing = 0, status = ?, error = ?, finished_at = ? WHERE id = ?')
        .run(status, end?.error ?? null, status === 'running' ? null : now, runId)
      if (status !== 'running') this.finished({ ...run, status })
      return run
    })
  }

  /**
   * Ends the push runs a crash left open while their commit was being registered (none of
   * `inFlight`, the commits of this process): `failed`, with what to do, keeping what they took.
   * Returns how many.
   */
  closeInterruptedCommits(now: number, inFlight: ReadonlySet<string>): number {
    const open = this.c
      .query<{ id: string }, []>(
        `SELECT id FROM sync_runs WHERE source = 'push' AND listing = 1 AND status = 'running'`,
      )
      .all()
      .filter((r) => !inFlight.has(r.id))
    for (const r of open) {
      this.closeListing(r.id, now, {
        status: 'failed',
        error:
          'The server stopped while this commit was being registered; the files registered before are kept. Push again to finish.',
      })
    }
    return open.length
  }

  /** One run of a base, or null. */
  run(corpusId: string, id: string): SyncRunRow | null {
    return this.c
      .query<SyncRunRow, [string, string]>(
        `SELECT ${RUN_COLUMNS} FROM sync_runs WHERE corpus_id = ? AND id = ?`,
      )
      .get(corpusId, id)
  }

  /** Runs of a base newest first after a keyset position (`limit + 1` rows; all when limit is null). */
  runsPage(corpusId: string, after: readonly (string | number)[] | null, limit: number | null): SyncRunRow[] {
    const [at, id] = after ?? [Number.MAX_SAFE_INTEGER, '']
    return this.c
      .query<SyncRunRow, (string | number)[]>(
        `SELECT ${RUN_COLUMNS} FROM sync_runs WHERE corpus_id = ? AND (started_at < ? OR (started_at = ? AND id < ?))
         ORDER BY started_at DESC, id DESC ${limit === null ? '' : 'LIMIT ?'}`,
      )
      .all(corpusId, at as number, at as number, id as string, ...(limit === null ? [] : [limit + 1]))
  }

  /** Number of runs of a base. */
  countRuns(corpusId: string): number {
    return (
      this.c
        .query<{ n: number }, [string]>('SELECT count(*) AS n FROM sync_runs WHERE corpus_id = ?')
        .get(corpusId)?.n ?? 0
    )
  }

  /**
   * Records that one document of a run finished (or will never be processed): one fewer pending,
   * maybe one more failure; the run ends when nothing is pending. Returns false for a gone run.
   */
  settle(runId: string, failure: RunError | null, now: number): boolean {
    return transaction(this.db, () => {
      const run = this.c
        .query<SyncRunRow, [string]>(`SELECT ${RUN_COLUMNS} FROM sync_runs WHERE id = ?`)
        .get(runId)
      if (run?.status !== 'running') return false
      const pending = Math.max(0, run.pending - 1)
      const failed = run.failed + (failure ? 1 : 0)
      const errors = JSON.parse(run.errors) as RunError[]
      if (failure && errors.length < MAX_RUN_ERRORS) errors.push(failure)
      const status = pending > 0 || run.listing === 1 ? 'running' : finalStatus(failed, taken(run))
      this.c
        .query(
          `UPDATE sync_runs SET pending = ?, failed = ?, errors = ?, status = ?, finished_at = ? WHERE id = ?`,
        )
        .run(pending, failed, JSON.stringify(errors), status, pending > 0 ? null : now, runId)
      if (status !== 'running') this.finished({ ...run, status, failed })
      return true
    })
  }
}

/**
 * What a run took that may fail: its registered documents, and for a source's sync also the files
 * it found unchanged or deleted (a sync that kept 99 files and could not read one is partial).
 */
function taken(run: SyncRunRow): number {
  return run.created + run.updated + (run.sourceId ? run.unchanged + run.deleted : 0)
}

/** The end state of a run: every document taken, some failed, or none of those registered taken. */
export function finalStatus(failed: number, registered: number): SyncRunRow['status'] {
  if (failed === 0) return 'succeeded'
  return failed >= registered ? 'failed' : 'partial'
}
