import { and, eq, inArray, isNotNull, isNull, lt, ne, sql } from 'drizzle-orm'
import type { Clock } from '../clock/clock'
import type { Db } from '../db/db'
import { RowsInsert } from '../db/prepared'
import type { Store } from '../db/store'
import type { DomainEvent, EventType } from './events'
import { domainEvents, eventDeliveries } from './events.tables'
import { DeliveryStatements, type EventRow } from './outbox.delivery.repo'
import { quietWorkspaces } from './outbox.order'

/** An undelivered event claimed by a dispatcher, with its delivery round count. */
export interface Claimed {
  seq: number
  attempts: number
  event: DomainEvent
}

/**
 * Why a claimed event is given back to be tried again, and after how long; `took`: the subscribers
 * (not transactional) that took it before one failed, recorded with the retry so it skips them.
 */
export interface RunFailure {
  error: string
  delayMs: number
  took?: string[]
}

/** Events a claim takes of one workspace at most: its head and the undelivered events after it. */
export const RUN_EVENTS = 64

/** The workspace and `seq` bounds of a claimed run's events from place `from` to place `to`. */
function rangeOf(run: Claimed[], from: number, to: number) {
  return { workspaceId: run[0]!.event.workspaceId, first: run[from]!.seq, last: run[to]!.seq }
}

function decode(r: EventRow): Claimed {
  const event = {
    id: r.id,
    type: r.type as EventType,
    workspaceId: r.workspaceId,
    payload: JSON.parse(r.payload),
    occurredAt: r.occurredAt,
  } as DomainEvent
  return { seq: r.seq, attempts: r.attempts, event }
}

/** A new event row, as the table takes it. */
type NewEventRow = typeof domainEvents.$inferInsert
/** The columns a new event is written with (each a column of the row: `column` reads it); the rest take their defaults. */
const EVENT_COLUMNS = ['id', 'workspaceId', 'type', 'payload', 'occurredAt', 'runAt', 'deliveredAt'] as const
type EventColumn = (typeof EVENT_COLUMNS)[number]

/**
 * The outbox's queries, on the store (either engine): the dispatcher's claims, leases and delivery
 * records. Every claim is one statement guarded by the expected lease, as in the job queue, so two
 * dispatchers (in one process or several sharing the database) never deliver the same event at once.
 */
export class OutboxRepo {
  /** The insert of published events (a question's too), many rows a statement, prepared once per count. */
  private readonly inserting: RowsInsert<NewEventRow, EventColumn, Record<EventColumn, never>>
  private readonly delivery: DeliveryStatements

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {
    const column = (name: EventColumn) => (r: NewEventRow) => r[name]
    const values = Object.fromEntries(EVENT_COLUMNS.map((c) => [c, column(c)])) as Record<
      EventColumn,
      (r: NewEventRow) => unknown
    >
    this.inserting = new RowsInsert(
      store,
      RUN_EVENTS,
      values,
      (p) => p,
      (db, rows) => db.insert(store.table(domainEvents)).values(rows).prepare(),
    )
    this.delivery = new DeliveryStatements(store)
  }

  private now(): number {
    return this.clock.now().getTime()
  }

  private get events() {
    return this.store.table(domainEvents)
  }

  private get deliveries() {
    return this.store.table(eventDeliveries)
  }

  /**
   * One write, in the caller's unit or in a unit of its own (outside one, the store only reads). The
   * outbox's own bookkeeping (leases, delivery records, retries) is no row any memo keeps: a unit of
   * its own is quiet (store.ts), so delivering a question's event moves no memo, here or elsewhere.
   */
  private async write(fn: (db: Db) => PromiseLike<unknown>): Promise<void> {
    await this.store.unit(
      async () => {
        await fn(this.store.db)
      },
      { quiet: true },
    )
  }

  /** Writes new event rows, in their order (in the caller's unit). */
  async insert(rows: readonly NewEventRow[]): Promise<void> {
    await this.inserting.run(rows)
  }

  /**
   * Claims a run of events for each workspace whose head (its lowest undelivered event) is due and
   * not leased by a live claim, up to `limit` workspaces: the head and the due, free events that
   * follow it without a gap, `runLength` at most, leased together, in `seq` order. A workspace whose
   * head is leased or waiting on a backoff is skipped whole, which is what keeps its events in
   * order, and so is one where a unit that may still commit an event with a lower `seq` is open
   * (PostgreSQL: outbox.order.ts).
   */
  async claimRuns(
    owner: string,
    leaseMs: number,
    limit: number,
    skip: ReadonlySet<string>,
    runLength = RUN_EVENTS,
  ): Promise<Claimed[][]> {
    if (limit <= 0) return []
    return this.store.unit(() => this.claim(owner, leaseMs, limit, skip, runLength), { quiet: true })
  }

  private async claim(
    owner: string,
    leaseMs: number,
    limit: number,
    skip: ReadonlySet<string>,
    runLength: number,
  ): Promise<Claimed[][]> {
    const now = this.now()
    const heads = await this.delivery.heads.execute()
    const due = heads
      .filter(
        (h) => !skip.has(h.workspaceId) && h.runAt <= now && (h.leaseUntil === null || h.leaseUntil <= now),
      )
      .slice(0, limit)
    // The workspaces where no unit that may commit a lower `seq` is open, held so none opens until
    // this unit ends (PostgreSQL; all of them on SQLite). A head is then claimed only if it is still
    // its workspace's lowest undelivered `seq`: a lower one may have committed since the read above.
    const quiet = await quietWorkspaces(this.store, [...new Set(due.map((h) => h.workspaceId))])
    const out: Claimed[][] = []
    for (const head of due) {
      if (!quiet.has(head.workspaceId)) continue
      const until = now + leaseMs
      const lease = { owner, until, now, workspaceId: head.workspaceId }
      const won = await this.delivery.lease.execute({ ...lease, seq: head.seq })
      if (won.length === 1) out.push([decode(head), ...(await this.follow(head, lease, runLength - 1))])
    }
    return out
  }

  /**
   * The events after a head just claimed, leased with it: the next `n` undelivered ones of its
   * workspace up to the first that is not due or is leased (none is, but for a lease left by a claim
   * that gave up its events unsettled). The rows read are the rows leased: this unit holds the
   * workspace (the one writer on SQLite, its key on PostgreSQL) and every event before them.
   */
  private async follow(
    head: EventRow,
    lease: { owner: string; until: number; now: number; workspaceId: string },
    n: number,
  ): Promise<Claimed[]> {
    if (n <= 0) return []
    const { now } = lease
    const rows = await this.delivery.following.execute({ workspaceId: head.workspaceId, after: head.seq, n })
    const gap = rows.findIndex((r) => r.runAt > now || (r.leaseUntil !== null && r.leaseUntil > now))
    const run = gap < 0 ? rows : rows.slice(0, gap)
    if (run.length === 0) return []
    const won = await this.delivery.leaseFollowing.execute({
      ...lease,
      after: head.seq,
      last: run.at(-1)!.seq,
    })
    const leased = new Set(won.map((w) => w.seq))
    const missing = run.findIndex((r) => !leased.has(r.seq))
    return (missing < 0 ? run : run.slice(0, missing)).map(decode)
  }

  /** The subscribers that have already taken each event of a claimed run, by event id. */
  async deliveredIn(run: Claimed[]): Promise<Map<string, Set<string>>> {
    const rows = await this.delivery.takenIn.execute(rangeOf(run, 0, run.length - 1))
    const taken = new Map<string, Set<string>>()
    for (const r of rows) {
      const of = taken.get(r.eventId) ?? new Set<string>()
      of.add(r.subscriber)
      taken.set(r.eventId, of)
    }
    return taken
  }

  /** Records that `subscriber` has taken event `id`. */
  recordDelivery(id: string, subscriber: string): Promise<void> {
    return this.write(() => this.delivery.took.execute({ id, subscriber, now: this.now() }))
  }

  /**
   * Ends a claimed run, in one unit: its first `delivered` events marked delivered; the next one,
   * when `failed`, given back to be tried again after its delay (a subscriber failed), with the
   * deliveries it made recorded (`failed.took`); and the rest given back undelivered, for the next
   * claim to take after it.
   */
  settleRun(run: Claimed[], owner: string, delivered: number, failed: RunFailure | null): Promise<void> {
    const range = (from: number, to: number) => ({ ...rangeOf(run, from, to), owner })
    const now = this.now()
    return this.write(async (db) => {
      if (delivered > 0) await this.delivery.done.execute({ ...range(0, delivered - 1), now })
      let rest = delivered
      if (failed && rest < run.length) await this.retry(db, run[rest++]!, owner, failed, now)
      if (rest < run.length) await this.delivery.released.execute(range(rest, run.length - 1))
    })
  }

  /** Gives a claimed event back to be tried again after `delayMs`, with the error and the deliveries it made. */
  private async retry(db: Db, c: Claimed, owner: string, failed: RunFailure, now: number): Promise<void> {
    for (const subscriber of failed.took ?? [])
      await this.delivery.took.execute({ id: c.event.id, subscriber, now })
    const e = this.events
    await db
      .update(e)
      .set({
        attempts: sql`${e.attempts} + 1`,
        runAt: now + failed.delayMs,
        lastError: failed.error,
        leaseOwner: null,
        leaseUntil: null,
      })
      .where(and(eq(e.seq, c.seq), eq(e.leaseOwner, owner)))
  }

  /** Extends the leases of events still being delivered. */
  async heartbeat(seqs: number[], owner: string, leaseMs: number): Promise<void> {
    if (seqs.length === 0) return
    const e = this.events
    await this.write((db) =>
      db
        .update(e)
        .set({ leaseUntil: this.now() + leaseMs })
        .where(and(inArray(e.seq, seqs), eq(e.leaseOwner, owner))),
    )
  }

  /** Lease owners other than `self` holding events now. */
  async otherOwners(self: string): Promise<string[]> {
    const e = this.events
    const rows = await this.store.db
      .selectDistinct({ owner: e.leaseOwner })
      .from(e)
      .where(and(isNotNull(e.leaseOwner), ne(e.leaseOwner, self)))
    return rows.map((r) => r.owner!)
  }

  /** Frees at once the events leased by an owner whose process has ended; returns how many. */
  async releaseOwner(owner: string): Promise<number> {
    const e = this.events
    return this.store.unit(
      async () => {
        const freed = await this.store.db
          .update(e)
          .set({ leaseOwner: null, leaseUntil: null })
          .where(and(eq(e.leaseOwner, owner), isNull(e.deliveredAt)))
          .returning({ seq: e.seq })
        return freed.length
      },
      { quiet: true },
    )
  }

  /** Deletes delivered events (and their delivery records) older than `beforeMs`; returns how many. */
  prune(beforeMs: number): Promise<number> {
    const e = this.events
    const d = this.deliveries
    const old = and(isNotNull(e.deliveredAt), lt(e.deliveredAt, beforeMs))
    return this.store.unit(async () => {
      const db = this.store.db
      await db.delete(d).where(inArray(d.eventId, db.select({ id: e.id }).from(e).where(old)))
      return (await db.delete(e).where(old).returning({ seq: e.seq })).length
    })
  }

  /** Events not yet delivered, oldest first; for tests and `engram doctor`-style checks. */
  async pending(): Promise<DomainEvent[]> {
    const e = this.events
    const rows = await this.store.db.select().from(e).where(isNull(e.deliveredAt)).orderBy(e.seq)
    return rows.map((r) => decode(r).event)
  }
}
