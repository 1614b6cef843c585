// The job queue on the store, on either engine, as features use it: enqueue in the caller's unit,
// reads, cancellation and aggregates (the worker side is leases.repo.ts).
import { and, eq, inArray, or, sql } from 'drizzle-orm'
import type { Clock } from '../clock/clock'
import { newId, type Random } from '../crypto/random'
import { Prepared } from '../db/prepared'
import type { Store } from '../db/store'
import { type ChildTotals, ChildTotalsReads } from './child-totals'
import { inserted } from './claim'
import { isTerminal, type Job, type JobRow, type JobStatus, type NewJob } from './job'
import { jobs } from './jobs.tables'
import { tellCanceled } from './wake'

const ACTIVE: JobStatus[] = ['pending', 'running']

/** The job a drizzle row stores, payload and result decoded. */
export function decodeRow(r: JobRow): Job {
  return {
    ...r,
    payload: JSON.parse(r.payload) as Record<string, unknown>,
    result: r.result === null ? null : JSON.parse(r.result),
  }
}

/** The jobs table's queries on the store. */
export class JobsRepo {
  private readonly cancelListeners: ((ids: readonly string[]) => void)[] = []

  /** A job by id, and its stop flag with its parent's: read by every poll of a job and every batch's step. */
  private readonly byId: Prepared<JobRow[]>
  private readonly flagOf: Prepared<{ flag: JobRow['cancelRequested']; parentId: JobRow['parentId'] }[]>
  private readonly totals: ChildTotalsReads

  constructor(
    readonly store: Store,
    private readonly clock: Clock,
    private readonly random: Random,
  ) {
    const id = sql.placeholder('id')
    this.totals = new ChildTotalsReads(store)
    this.byId = new Prepared(store, (db) =>
      db.select().from(this.j).where(eq(this.j.id, id)).limit(1).prepare(),
    )
    this.flagOf = new Prepared(store, (db) => {
      const j = this.j
      return db
        .select({ flag: j.cancelRequested, parentId: j.parentId })
        .from(j)
        .where(eq(j.id, id))
        .limit(1)
        .prepare()
    })
  }

  private get j() {
    return this.store.table(jobs)
  }

  private now(): number {
    return this.clock.now().getTime()
  }

  /**
   * Calls `fn` with the ids of the jobs asked to stop, once the cancel has committed: by this process
   * at once, by another on PostgreSQL when its notice arrives (wake.ts); the scheduler stops those it
   * runs. A notice missed is read at the scheduler's next step.
   */
  onCancel(fn: (ids: readonly string[]) => void): void {
    this.cancelListeners.push(fn)
  }

  /** Another process asked these jobs to stop (its notice, wake.ts). */
  heardCancel(ids: readonly string[]): void {
    for (const fn of this.cancelListeners) fn(ids)
  }

  /** In the cancel's unit: tells this process's listeners and the other processes once it commits. */
  private async canceled(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return
    await tellCanceled(this.store, ids)
    if (this.cancelListeners.length > 0) this.store.afterCommit(() => this.heardCancel(ids))
  }

  /**
   * Adds a job in the caller's unit (it commits or rolls back with the change that asked for it);
   * outside a unit it throws, like the outbox's `publish`. Returns the job as written.
   */
  async insert(n: NewJob): Promise<Job> {
    if (!this.store.inUnit()) throw new Error(`job ${n.kind} enqueued outside a unit of work`)
    const now = this.now()
    const status = n.status ?? 'pending'
    const [row] = await this.store.db
      .insert(this.j)
      .values({
        id: newId(this.random, 'job'),
        workspaceId: n.workspaceId,
        subjectId: n.subjectId ?? null,
        parentId: n.parentId ?? null,
        kind: n.kind,
        status,
        payload: JSON.stringify(n.payload ?? {}),
        detail: n.detail ?? null,
        unitsTotal: n.unitsTotal ?? 0,
        maxAttempts: n.maxAttempts ?? 5,
        runAt: n.runAt ?? now,
        createdAt: now,
        startedAt: status === 'running' ? now : null,
        updatedAt: now,
      })
      .returning()
    return decodeRow(row!)
  }

  /** One job by id, or null. */
  async get(id: string): Promise<Job | null> {
    const [row] = await this.byId.execute({ id })
    return row ? decodeRow(row) : null
  }

  /** Whether a job or its parent has been asked to stop. */
  async cancelRequested(id: string): Promise<boolean> {
    const [row] = await this.flagOf.execute({ id })
    if (!row) return false
    if (row.flag || row.parentId === null) return row.flag
    const [parent] = await this.flagOf.execute({ id: row.parentId })
    return parent?.flag === true
  }

  /** One write of the caller's unit, or a unit of its own; returns how many rows it changed. */
  private changed(q: (db: Store['db']) => PromiseLike<{ id: string }[]>): Promise<number> {
    return this.store.unit(async () => (await q(this.store.db)).length)
  }

  /** The children of an aggregate, oldest first. */
  async children(parentId: string): Promise<Job[]> {
    const j = this.j
    const rows = await this.store.db
      .select()
      .from(j)
      .where(eq(j.parentId, parentId))
      .orderBy(...inserted(j, 'asc'))
    return rows.map(decodeRow)
  }

  /**
   * Jobs of one subject in a workspace, newest first; with `kinds`, those of these kinds only (a
   * base's extraction batches, whose payloads list their documents, are then not read).
   */
  async listBySubject(workspaceId: string, subjectId: string, kinds?: readonly string[]): Promise<Job[]> {
    if (kinds?.length === 0) return []
    const j = this.j
    const rows = await this.store.db
      .select()
      .from(j)
      .where(
        and(
          eq(j.workspaceId, workspaceId),
          eq(j.subjectId, subjectId),
          kinds ? inArray(j.kind, [...kinds]) : undefined,
        ),
      )
      .orderBy(...inserted(j, 'desc'))
    return rows.map(decodeRow)
  }

  /** Sums over the children of an aggregate, in one query (`JobQueue.childTotals`; ChildTotalsReads.of). */
  childTotals(parentId: string, resultField?: string): Promise<ChildTotals> {
    return this.totals.of(parentId, resultField)
  }

  /** Sets the cancel flag on a job and its children; pending children end `canceled` at once. */
  async requestCancel(id: string): Promise<void> {
    const j = this.j
    const now = this.now()
    await this.store.unit(async () => {
      const asked = await this.store.db
        .update(j)
        .set({ cancelRequested: true, updatedAt: now })
        .where(and(or(eq(j.id, id), eq(j.parentId, id)), inArray(j.status, ACTIVE)))
        .returning({ id: j.id })
      await this.canceled(asked.map((r) => r.id))
      await this.store.db
        .update(j)
        .set({ status: 'canceled', finishedAt: now, updatedAt: now })
        .where(and(eq(j.parentId, id), eq(j.status, 'pending')))
    })
  }

  /** Asks every job of a subject that has not ended to stop (pending ones end at once); how many. */
  cancelSubject(workspaceId: string, subjectId: string): Promise<number> {
    const j = this.j
    const now = this.now()
    const ofSubject = and(eq(j.workspaceId, workspaceId), eq(j.subjectId, subjectId))
    return this.store.unit(async () => {
      const asked = await this.store.db
        .update(j)
        .set({ cancelRequested: true, updatedAt: now })
        .where(and(ofSubject, inArray(j.status, ACTIVE)))
        .returning({ id: j.id })
      await this.canceled(asked.map((r) => r.id))
      await this.store.db
        .update(j)
        .set({ status: 'canceled', finishedAt: now, updatedAt: now })
        .where(and(ofSubject, eq(j.status, 'pending')))
      return asked.length
    })
  }

  /** Moves a job that has not started to another due time; false when it is no longer pending. */
  async postpone(id: string, runAt: number): Promise<boolean> {
    const j = this.j
    const n = await this.changed((db) =>
      db
        .update(j)
        .set({ runAt, updatedAt: this.now() })
        .where(and(eq(j.id, id), eq(j.status, 'pending')))
        .returning({ id: j.id }),
    )
    return n > 0
  }

  /** Ends a job that has not started `canceled`; false when it is no longer pending. */
  async cancelPending(id: string): Promise<boolean> {
    const j = this.j
    const now = this.now()
    const n = await this.changed((db) =>
      db
        .update(j)
        .set({ status: 'canceled', cancelRequested: true, finishedAt: now, updatedAt: now })
        .where(and(eq(j.id, id), eq(j.status, 'pending')))
        .returning({ id: j.id }),
    )
    return n > 0
  }

  /** Sets an aggregate's state, progress or outcome (aggregates are never claimed). */
  async updateAggregate(
    id: string,
    p: {
      status?: JobStatus
      unitsDone?: number
      unitsTotal?: number
      detail?: string | null
      error?: string | null
    },
  ): Promise<void> {
    const j = this.j
    const now = this.now()
    const set: Partial<typeof jobs.$inferInsert> = { updatedAt: now }
    if (p.status !== undefined) set.status = p.status
    if (p.unitsDone !== undefined) set.unitsDone = p.unitsDone
    if (p.unitsTotal !== undefined) set.unitsTotal = p.unitsTotal
    // A null detail or error leaves the one stored.
    if (p.detail !== undefined && p.detail !== null) set.detail = p.detail
    if (p.error !== undefined && p.error !== null) set.error = p.error
    if (p.status !== undefined && isTerminal(p.status)) set.finishedAt = now
    await this.changed((db) => db.update(j).set(set).where(eq(j.id, id)).returning({ id: j.id }))
  }

  /** Stores a result on a job (aggregates record what their children measured). */
  async setResult(id: string, result: unknown): Promise<void> {
    const j = this.j
    await this.changed((db) =>
      db
        .update(j)
        .set({ result: JSON.stringify(result), updatedAt: this.now() })
        .where(eq(j.id, id))
        .returning({ id: j.id }),
    )
  }

  /** Deletes every job of a subject (the subject itself is deleted); how many. */
  deleteBySubject(workspaceId: string, subjectId: string): Promise<number> {
    const j = this.j
    return this.changed((db) =>
      db
        .delete(j)
        .where(and(eq(j.workspaceId, workspaceId), eq(j.subjectId, subjectId)))
        .returning({ id: j.id }),
    )
  }
}
