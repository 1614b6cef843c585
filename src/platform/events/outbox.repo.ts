import { and, eq, inArray, isNotNull, isNull, lt, ne, sql } from 'drizzle-orm'
import type { Clock } from '../clock/clock'
import type { Db } from '../db/db'
import { Prepared } from '../db/prepared'
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

/**
 * The outbox's queries, on the store (either engine): the dispatcher's claims, leases and delivery
 * records. Every claim is one statement guarded by the expected lease, as in the job queue, so two
 * dispatchers (in one process or several sharing the database) never deliver the same event at once.
 */
/** What a new event row is written with (the rest take their defaults). */
type NewEventRow = Pick<
  typeof domainEvents.$inferInsert,
  'id' | 'workspaceId' | 'type' | 'payload' | 'occurredAt' | 'runAt' | 'deliveredAt'
>

export class OutboxRepo {
  /** The insert every published event runs (a question's too), built once per handle. */
  private readonly inserting: Prepared<unknown>
  private readonly delivery: DeliveryStatements

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {
    const p = (name: keyof NewEventRow) => sql.placeholder(name)
    this.inserting = new Prepared(store, (db) =>
      db
        .insert(store.table(domainEvents))
        .values({
          id: p('id'),
          workspaceId: p('workspaceId'),
          type: p('type'),
          payload: p('payload'),
          occurredAt: p('occurredAt'),
          runAt: p('runAt'),
          deliveredAt: p('deliveredAt'),
        })
        .prepare(),
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

  /** Writes a new event row (in the caller's unit). */
  async insert(row: NewEventRow): Promise<void> {
    await this.inserting.execute(row)
  }

  /**
   * Claims the oldest undelivered event of each workspace whose head is due and not leased by a
   * live claim, up to `limit`; a workspace whose head is leased or waiting on a backoff is skipped
   * whole, which is what keeps its events in order, and so is one where a unit that may still commit
   * an event with a lower `seq` is open (PostgreSQL: outbox.order.ts).
   */
  async claimHeads(
    owner: string,
    leaseMs: number,
    limit: number,
    skip: ReadonlySet<string>,
  ): Promise<Claimed[]> {
    if (limit <= 0) return []
    return this.store.unit(() => this.claim(owner, leaseMs, limit, skip), { quiet: true })
  }

  private async claim(
    owner: string,
    leaseMs: number,
    limit: number,
    skip: ReadonlySet<string>,
  ): Promise<Claimed[]> {
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
    const out: Claimed[] = []
    for (const head of due) {
      if (!quiet.has(head.workspaceId)) continue
      const won = await this.delivery.lease.execute({
        owner,
        until: now + leaseMs,
        seq: head.seq,
        now,
        workspaceId: head.workspaceId,
      })
      if (won.length === 1) out.push(decode(head))
    }
    return out
  }

  /** Subscribers that have already taken event `id`. */
  async delivered(id: string): Promise<Set<string>> {
    const rows = await this.delivery.takenBy.execute({ id })
    return new Set(rows.map((r) => r.subscriber))
  }

  /** Records that `subscriber` has taken event `id`. */
  recordDelivery(id: string, subscriber: string): Promise<void> {
    return this.write(() => this.delivery.took.execute({ id, subscriber, now: this.now() }))
  }

  /** Marks a claimed event delivered to all its subscribers and lets its workspace move on. */
  finish(seq: number, owner: string): Promise<void> {
    return this.write(() => this.delivery.done.execute({ seq, owner, now: this.now() }))
  }

  /** Gives a claimed event back to be tried again after `delayMs` (a subscriber failed). */
  retry(seq: number, owner: string, error: string, delayMs: number): Promise<void> {
    const e = this.events
    return this.write((db) =>
      db
        .update(e)
        .set({
          attempts: sql`${e.attempts} + 1`,
          runAt: this.now() + delayMs,
          lastError: error,
          leaseOwner: null,
          leaseUntil: null,
        })
        .where(and(eq(e.seq, seq), eq(e.leaseOwner, owner))),
    )
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
