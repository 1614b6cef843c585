import type { Db } from '../../platform/db/db'
import { transaction } from '../../platform/db/transaction'
import type { Outbox } from '../../platform/events/outbox'

export type { RunError, SyncRunRow, UploadRow } from './ingest.rows'

import type { RunError, SyncRunRow, UploadRow } from './ingest.rows'

/** A run keeps at most this many error entries; the `failed` counter keeps counting. */
export const MAX_RUN_ERRORS = 1000

/** Data functions of sync runs and pending push uploads. */
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
    if (status !== 'running')
      this.finished({ ...r, workspace_id: r.workspaceId, corpus_id: r.corpusId, status })
  }

  /** Emits `sync.finished` for a run that just ended; inside the caller's transaction. */
  private finished(
    run: Pick<SyncRunRow, 'workspace_id' | 'corpus_id' | 'id' | 'source' | 'created' | 'updated'> & {
      status: 'succeeded' | 'partial' | 'failed' | 'canceled'
      deleted: number
      failed: number
    },
  ): void {
    this.events.emit(this.db, {
      type: 'sync.finished',
      workspaceId: run.workspace_id,
      payload: {
        corpusId: run.corpus_id,
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

  /** Opens the run of a source's sync: it stays running while the source is listed (`listing`). */
  openRun(r: {
    id: string
    workspaceId: string
    corpusId: string
    source: 'sync' | 'import'
    sourceId: string
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
    const run = this.c.query<SyncRunRow, [string]>('SELECT * FROM sync_runs WHERE id = ?').get(runId)
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
   * settles). `failed` or `canceled` end it at once whatever is pending, with the reason.
   */
  closeListing(
    runId: string,
    now: number,
    end?: { status: 'failed' | 'canceled'; error: string | null },
  ): void {
    transaction(this.db, () => {
      const run = this.c.query<SyncRunRow, [string]>('SELECT * FROM sync_runs WHERE id = ?').get(runId)
      if (run?.status !== 'running') return
      const status = end?.status ?? (run.pending > 0 ? 'running' : finalStatus(run.failed, taken(run)))
      this.c
        .query('UPDATE sync_runs SET listing = 0, status = ?, error = ?, finished_at = ? WHERE id = ?')
        .run(status, end?.error ?? null, status === 'running' ? null : now, runId)
      if (status !== 'running') this.finished({ ...run, status })
    })
  }

  /** One run of a base, or null. */
  run(corpusId: string, id: string): SyncRunRow | null {
    return this.c
      .query<SyncRunRow, [string, string]>('SELECT * FROM sync_runs WHERE corpus_id = ? AND id = ?')
      .get(corpusId, id)
  }

  /** Runs of a base newest first after a keyset position (`limit + 1` rows; all when limit is null). */
  runsPage(corpusId: string, after: readonly (string | number)[] | null, limit: number | null): SyncRunRow[] {
    const [at, id] = after ?? [Number.MAX_SAFE_INTEGER, '']
    return this.c
      .query<SyncRunRow, (string | number)[]>(
        `SELECT * FROM sync_runs WHERE corpus_id = ? AND (started_at < ? OR (started_at = ? AND id < ?))
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
      const run = this.c.query<SyncRunRow, [string]>('SELECT * FROM sync_runs WHERE id = ?').get(runId)
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

  /** Records a pending push upload. */
  insertUpload(u: {
    id: string
    workspaceId: string
    corpusId: string
    sha256: string
    size: number
    key: string
    verified: boolean
    now: number
    expiresAt: number
  }): void {
    this.c
      .query(
        `INSERT INTO ingest_uploads (id, workspace_id, corpus_id, sha256, size, object_key, verified, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(u.id, u.workspaceId, u.corpusId, u.sha256, u.size, u.key, u.verified ? 1 : 0, u.now, u.expiresAt)
  }

  /** Live uploads of a base for one content, newest (and server-verified) first. */
  uploadsBySha(corpusId: string, sha256: string, now: number): UploadRow[] {
    return this.c
      .query<UploadRow, [string, string, number]>(
        `SELECT * FROM ingest_uploads WHERE corpus_id = ? AND sha256 = ? AND expires_at > ?
         ORDER BY verified DESC, created_at DESC, id DESC`,
      )
      .all(corpusId, sha256, now)
  }

  /** Forgets an upload (adopted by a commit, or refused). */
  deleteUpload(id: string): void {
    this.c.query('DELETE FROM ingest_uploads WHERE id = ?').run(id)
  }

  /** Forgets every upload of a base for one object key (a commit adopted the object). */
  deleteUploadsByKey(key: string): void {
    this.c.query('DELETE FROM ingest_uploads WHERE object_key = ?').run(key)
  }

  /** Whether a live upload still holds an object. */
  uploadHolds(key: string, now: number): boolean {
    return (
      this.c
        .query<{ n: number }, [string, number]>(
          'SELECT EXISTS (SELECT 1 FROM ingest_uploads WHERE object_key = ? AND expires_at > ?) AS n',
        )
        .get(key, now)?.n === 1
    )
  }

  /** Drops uploads whose commit never came; returns how many. Their objects become orphans. */
  deleteExpiredUploads(now: number): number {
    return this.c.query('DELETE FROM ingest_uploads WHERE expires_at <= ?').run(now).changes
  }
}

/**
 * What a run took that may fail: its registered documents, and for a source's sync also the files
 * it found unchanged or deleted (a sync that kept 99 files and could not read one is partial).
 */
function taken(run: SyncRunRow): number {
  return run.created + run.updated + (run.source_id ? run.unchanged + run.deleted : 0)
}

/** The end state of a run: every document taken, some failed, or none of those registered taken. */
export function finalStatus(failed: number, registered: number): SyncRunRow['status'] {
  if (failed === 0) return 'succeeded'
  return failed >= registered ? 'failed' : 'partial'
}
