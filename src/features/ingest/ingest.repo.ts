import { and, count, desc, eq, lt, or, sql } from 'drizzle-orm'
import { Prepared } from '../../platform/db/prepared'
import type { Store } from '../../platform/db/store'
import type { Outbox } from '../../platform/events/outbox'
import { timeIdCursor } from '../../platform/paging/paging'
import { type RunError, syncRuns } from './ingest.tables'

export type { RunError } from './ingest.tables'
export type { UploadRow } from './ingest.uploads.repo'

/** A sync run's row. */
export type SyncRunRow = typeof syncRuns.$inferSelect

/** A run keeps at most this many error entries; the `failed` counter keeps counting. */
export const MAX_RUN_ERRORS = 1000

/** How a run ends. */
type EndStatus = Exclude<SyncRunRow['status'], 'running'>

/**
 * Data functions of sync runs on the store, either engine (pending push uploads:
 * ingest.uploads.repo.ts). A run's counters change by relative updates: the first statement on a
 * run in a unit is an `UPDATE ... WHERE status = 'running'` whose returned row is the run as it is
 * now, so on PostgreSQL it also locks the row until the unit ends, and two units counting into one
 * run (two extraction settles, a batch and a settle) take turns instead of losing a count.
 */
export class IngestRepo {
  /** A run by base and id: every upload request reads its run back. */
  private readonly runById: Prepared<SyncRunRow[]>

  constructor(
    private readonly store: Store,
    /** A run that ends is told as `sync.finished`, in the unit that ends it. */
    private readonly events: Outbox,
  ) {
    const t = this.t
    const ph = sql.placeholder
    this.runById = new Prepared(store, (db) =>
      db
        .select()
        .from(t)
        .where(and(eq(t.corpusId, ph('corpus')), eq(t.id, ph('id'))))
        .limit(1)
        .prepare(),
    )
  }

  private get t() {
    return this.store.table(syncRuns)
  }

  /** Inserts a run with its counters; a run with nothing pending is finished at once. In a unit. */
  async insertRun(r: {
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
  }): Promise<void> {
    const status = r.pending > 0 ? 'running' : finalStatus(r.failed, r.created + r.updated)
    await this.store.db.insert(this.t).values({
      id: r.id,
      workspaceId: r.workspaceId,
      corpusId: r.corpusId,
      source: r.source,
      status,
      created: r.created,
      updated: r.updated,
      unchanged: r.unchanged,
      deleted: r.deleted,
      failed: r.failed,
      pending: r.pending,
      errors: JSON.stringify(r.errors.slice(0, MAX_RUN_ERRORS)),
      startedAt: r.now,
      finishedAt: r.pending > 0 ? null : r.now,
    })
    if (status !== 'running') await this.finished({ ...r, status })
  }

  /** Publishes `sync.finished` for a run that just ended; in the caller's unit. */
  private async finished(
    run: Pick<SyncRunRow, 'workspaceId' | 'corpusId' | 'id' | 'source' | 'created' | 'updated'> & {
      status: EndStatus
      deleted: number
      failed: number
    },
  ): Promise<void> {
    await this.events.publish({
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
  async openRun(r: {
    id: string
    workspaceId: string
    corpusId: string
    source: 'sync' | 'import' | 'push'
    sourceId: string | null
    jobId: string | null
    now: number
  }): Promise<void> {
    await this.store.db.insert(this.t).values({
      id: r.id,
      workspaceId: r.workspaceId,
      corpusId: r.corpusId,
      source: r.source,
      status: 'running',
      sourceId: r.sourceId,
      jobId: r.jobId,
      listing: 1,
      startedAt: r.now,
    })
  }

  /** Names the job that lists a source for its run. */
  async setRunJob(runId: string, jobId: string): Promise<void> {
    await this.store.db.update(this.t).set({ jobId }).where(eq(this.t.id, runId))
  }

  /** Adds a batch's counters and per-file errors to an open run; in the batch's unit. */
  async addToRun(
    runId: string,
    n: { created: number; updated: number; unchanged: number; deleted: number; pending: number },
    failures: RunError[],
  ): Promise<void> {
    const t = this.t
    const [run] = await this.store.db
      .update(t)
      .set({
        created: sql`${t.created} + ${n.created}`,
        updated: sql`${t.updated} + ${n.updated}`,
        unchanged: sql`${t.unchanged} + ${n.unchanged}`,
        deleted: sql`${t.deleted} + ${n.deleted}`,
        failed: sql`${t.failed} + ${failures.length}`,
        pending: sql`${t.pending} + ${n.pending}`,
      })
      .where(eq(t.id, runId))
      .returning({ errors: t.errors })
    if (!run || failures.length === 0) return
    const errors = JSON.parse(run.errors) as RunError[]
    if (errors.length >= MAX_RUN_ERRORS) return
    errors.push(...failures.slice(0, MAX_RUN_ERRORS - errors.length))
    await this.store.db
      .update(t)
      .set({ errors: JSON.stringify(errors) })
      .where(eq(t.id, runId))
  }

  /**
   * Ends a source's listing: the run ends now when nothing is pending (else when its last document
   * settles). `failed` or `canceled` end it at once whatever is pending, with the reason. Returns
   * the run (null when it had ended already; with `openOnly`, also when its listing was closed).
   * One unit; a conditional write on `running`.
   */
  closeListing(
    runId: string,
    now: number,
    end?: { status: 'failed' | 'canceled'; error: string | null },
    opts: { openOnly?: boolean } = {},
  ): Promise<SyncRunRow | null> {
    const t = this.t
    const open = opts.openOnly ? eq(t.listing, 1) : undefined
    return this.store.unit(async () => {
      const [run] = await this.store.db
        .update(t)
        .set({ listing: 0 })
        .where(and(eq(t.id, runId), eq(t.status, 'running'), open))
        .returning()
      if (!run) return null
      const status = end?.status ?? (run.pending > 0 ? 'running' : finalStatus(run.failed, taken(run)))
      if (status === 'running') return run
      await this.store.db
        .update(t)
        .set({ status, error: end?.error ?? null, finishedAt: now })
        .where(eq(t.id, runId))
      await this.finished({ ...run, status })
      return run
    })
  }

  /** The push runs whose commit is open: being registered, or cut short by a stop. */
  async openCommits(): Promise<string[]> {
    const t = this.t
    const rows = await this.store.db
      .select({ id: t.id })
      .from(t)
      .where(and(eq(t.source, 'push'), eq(t.listing, 1), eq(t.status, 'running')))
    return rows.map((r) => r.id)
  }

  /** One run of a base, or null. */
  async run(corpusId: string, id: string): Promise<SyncRunRow | null> {
    return (await this.runById.execute({ corpus: corpusId, id }))[0] ?? null
  }

  /** Runs of a base newest first after a keyset position (`limit + 1` rows; all when limit is null). */
  runsPage(
    corpusId: string,
    after: readonly (string | number)[] | null,
    limit: number | null,
  ): Promise<SyncRunRow[]> {
    const t = this.t
    // A cursor of another shape is 400 `invalid_cursor`, never a number bound to the id column (PostgreSQL refuses).
    const [at, id] = timeIdCursor(after) ?? [Number.MAX_SAFE_INTEGER, '']
    const q = this.store.db
      .select()
      .from(t)
      .where(and(eq(t.corpusId, corpusId), or(lt(t.startedAt, at), and(eq(t.startedAt, at), lt(t.id, id)))))
      .orderBy(desc(t.startedAt), desc(t.id))
    return limit === null ? q : q.limit(limit + 1)
  }

  /** Number of runs of a base. */
  async countRuns(corpusId: string): Promise<number> {
    const t = this.t
    const [row] = await this.store.db.select({ n: count() }).from(t).where(eq(t.corpusId, corpusId))
    return Number(row?.n ?? 0)
  }

  /**
   * Records that one document of a run finished (or will never be processed): one fewer pending,
   * maybe one more failure; the run ends when nothing is pending. Returns false for a gone (or
   * ended) run.
   */
  settle(runId: string, failure: RunError | null, now: number): Promise<boolean> {
    return this.settleMany(runId, 1, failure ? [failure] : [], now)
  }

  /**
   * `settle` for `settled` documents of a run at once (an extraction batch's), `failures` among
   * them. One unit; the counters move by a conditional relative update (see the class).
   */
  settleMany(runId: string, settled: number, failures: RunError[], now: number): Promise<boolean> {
    const t = this.t
    return this.store.unit(async () => {
      const [run] = await this.store.db
        .update(t)
        .set({
          pending: sql`CASE WHEN ${t.pending} > ${settled} THEN ${t.pending} - ${settled} ELSE 0 END`,
          failed: sql`${t.failed} + ${failures.length}`,
        })
        .where(and(eq(t.id, runId), eq(t.status, 'running')))
        .returning()
      if (!run) return false
      const errors = JSON.parse(run.errors) as RunError[]
      const listed = failures.length > 0 && errors.length < MAX_RUN_ERRORS
      if (listed) errors.push(...failures.slice(0, MAX_RUN_ERRORS - errors.length))
      const status = run.pending > 0 || run.listing === 1 ? 'running' : finalStatus(run.failed, taken(run))
      await this.store.db
        .update(t)
        .set({
          ...(listed ? { errors: JSON.stringify(errors) } : {}),
          status,
          finishedAt: run.pending > 0 ? null : now,
        })
        .where(eq(t.id, runId))
      if (status !== 'running') await this.finished({ ...run, status })
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
export function finalStatus(failed: number, registered: number): EndStatus {
  if (failed === 0) return 'succeeded'
  return failed >= registered ? 'failed' : 'partial'
}
