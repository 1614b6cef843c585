import type { Clock } from '../clock/clock'
import { newSortableId, type Random } from '../crypto/random'
import type { Db } from '../db/db'
import { type Store, sqliteStore } from '../db/store'
import type { DomainEvent, EventType, NewEvent } from './events'
import { holdPublishing } from './outbox.order'
import { type Claimed, OutboxRepo, type RunFailure } from './outbox.repo'

export type { Claimed, RunFailure }

/** A subscriber applied in the emitter's unit (Subscriber.inline, dispatcher.ts). */
export interface InlineSubscriber {
  name: string
  handle(event: DomainEvent): void | Promise<void>
}

/** What publish does for the dispatcher's inline subscribers of one event type (Dispatcher.inlinePlan). */
export interface InlinePlan {
  /** The subscribers applied in the emitter's unit. */
  inline: InlineSubscriber[]
  /** Whether subscribers that are not inline take it too (then it waits for the dispatcher). */
  others: boolean
  /**
   * Those subscribers' `takes` (Subscriber.takes), when every one of them has one: an event none of
   * them takes as it is published is written delivered. Null when one has none.
   */
  asks: ((event: DomainEvent) => boolean | Promise<boolean>)[] | null
}

/**
 * The outbox: `publish` for features, which writes an event in the change's own unit of work; the
 * dispatcher's claims and delivery records through its repo (outbox.repo.ts). All on the store, on
 * either engine.
 */
export class Outbox {
  private listeners: (() => void)[] = []
  /** The dispatcher's inline subscribers of a type, applied at publish. */
  private inline: ((type: EventType) => InlinePlan) | null = null
  private readonly store: Store
  /** The queries; the dispatcher's are reached through the methods below. */
  private readonly repo: OutboxRepo
  /** Events given to `later` and not written yet; the writes, chained (each after the one before). */
  private soon: NewEvent<EventType>[] = []
  private writing: Promise<void> = Promise.resolve()
  private laterFailed: (error: unknown, events: number) => void = () => {}

  constructor(
    db: Db,
    private readonly clock: Clock,
    private readonly random: Random,
    store?: Store,
  ) {
    this.store = store ?? sqliteStore(db)
    this.repo = new OutboxRepo(this.store, clock)
  }

  private now(): number {
    return this.clock.now().getTime()
  }

  /** Calls `fn` after each publish, once the caller's unit has committed (the dispatcher pokes itself). */
  onEmit(fn: () => void): void {
    this.listeners.push(fn)
  }

  /** Sets what publish applies in the publisher's unit (the dispatcher's inline subscribers). */
  applyInline(plan: (type: EventType) => InlinePlan): void {
    this.inline = plan
  }

  /** The event as a delivery would read it back (payload through JSON), its time and its plan. */
  private prepare<T extends EventType>(e: NewEvent<T>) {
    const now = this.now()
    // Sortable: a run's thousands of events land at the end of the outbox's id index, not all over it.
    const id = newSortableId(this.random, 'evt', now)
    const payload = JSON.stringify(e.payload)
    const plan = this.inline?.(e.type) ?? { inline: [], others: true, asks: null }
    const event =
      plan.inline.length > 0
        ? ({
            id,
            type: e.type,
            workspaceId: e.workspaceId,
            payload: JSON.parse(payload),
            occurredAt: now,
          } as DomainEvent)
        : null
    // An event nobody here takes stays for the dispatcher (another process may take it).
    const delivered = plan.inline.length > 0 && !plan.others ? now : null
    return { now, id, payload, plan, event, delivered }
  }

  /**
   * Writes `event` to the outbox in the caller's unit (store.unit), so the event commits or rolls
   * back with the change it tells of; outside a unit it throws, since an event written on its own
   * could tell of a change that never happened (or miss one that did). Inline subscribers are
   * applied here, in that unit; an event only they take is written delivered, and so is one that
   * each of the others says it does not take (InlinePlan.asks, asked in the unit). An event left for
   * the dispatcher first marks the unit as publishing in its workspace (`holdPublishing`: a shared
   * advisory lock on PostgreSQL, nothing on SQLite), so the dispatcher delivers none of the
   * workspace's events while a lower `seq` may still commit (docs/events.md). Returns its id.
   */
  async publish<T extends EventType>(e: NewEvent<T>): Promise<string> {
    return (await this.publishAll([e as NewEvent<EventType>]))[0]!
  }

  /** `publish` of several events, in their order, their rows written by one statement (64 at most). */
  async publishAll(events: readonly NewEvent<EventType>[]): Promise<string[]> {
    const rows = []
    let waiting = false
    for (const e of events) {
      if (!this.store.inUnit()) throw new Error(`event ${e.type} published outside a unit of work`)
      const p = this.prepare(e)
      for (const s of p.plan.inline) {
        await s.handle(p.event!)
        if (p.plan.others) await this.repo.recordDelivery(p.id, s.name)
      }
      const delivered = p.delivered ?? (await this.untaken(e, p))
      // Until the unit ends, the dispatcher delivers none of the workspace's events (outbox.order.ts).
      if (delivered === null) await holdPublishing(this.store, e.workspaceId)
      waiting ||= delivered === null
      const { id, payload, now } = p
      rows.push({
        id,
        workspaceId: e.workspaceId,
        type: e.type,
        payload,
        occurredAt: now,
        runAt: now,
        deliveredAt: delivered,
      })
    }
    await this.repo.insert(rows)
    if (waiting && this.listeners.length > 0) this.store.afterCommit(() => this.notify())
    return rows.map((r) => r.id)
  }

  /** The event's time when every subscriber left for the dispatcher says it does not take it (InlinePlan.asks), else null. */
  private async untaken<T extends EventType>(
    e: NewEvent<T>,
    p: ReturnType<Outbox['prepare']>,
  ): Promise<number | null> {
    if (!p.plan.asks) return null
    const event = p.event ?? ({ ...e, id: p.id, occurredAt: p.now } as unknown as DomainEvent)
    for (const takes of p.plan.asks) if (await takes(event)) return null
    return p.now
  }

  /**
   * Publishes `event` in a quiet unit of its own, once the caller's turn of the event loop is over
   * (with every other event given meanwhile: one commit for them all), instead of in the caller's
   * unit: for an event that tells of nothing written (a question answered) and whose inline
   * subscribers write no row a memo keeps (store.ts, `UnitOptions.quiet`), so that the answer is sent
   * without waiting for its commit. Readers of what such events count wait for `settled` first. A
   * write that fails loses its events (they are told to `onLaterFailure`); so does a crash before
   * the turn ends.
   */
  later<T extends EventType>(e: NewEvent<T>): void {
    this.soon.push(e as NewEvent<EventType>)
    // The first event since the last write chains the next one, which takes every event told until it runs.
    if (this.soon.length === 1) this.writing = this.writing.then(nextTurn).then(() => this.writeSoon())
  }

  private async writeSoon(): Promise<void> {
    const events = this.soon
    this.soon = []
    try {
      await this.store.unit(
        async () => {
          await this.publishAll(events)
        },
        { quiet: true },
      )
    } catch (error) {
      this.laterFailed(error, events.length)
    }
  }

  /** Resolves once every event given to `later` so far is written (or its write failed). */
  settled(): Promise<void> {
    return this.writing
  }

  /** Told when a write of `later`'s events failed (the operator's log). */
  onLaterFailure(fn: (error: unknown, events: number) => void): void {
    this.laterFailed = fn
  }

  private notify(): void {
    for (const fn of this.listeners) fn()
  }

  // The dispatcher's side (outbox.repo.ts).
  claimRuns(owner: string, leaseMs: number, limit: number, skip: ReadonlySet<string>): Promise<Claimed[][]> {
    return this.repo.claimRuns(owner, leaseMs, limit, skip)
  }
  deliveredIn(run: Claimed[]): Promise<Map<string, Set<string>>> {
    return this.repo.deliveredIn(run)
  }
  recordDelivery(id: string, subscriber: string): Promise<void> {
    return this.repo.recordDelivery(id, subscriber)
  }
  /** Runs `fn` as one unit (a transactional subscriber's work with its delivery record). */
  atomically(fn: () => Promise<void>): Promise<void> {
    return this.store.unit(fn)
  }
  settleRun(run: Claimed[], owner: string, delivered: number, failed: RunFailure | null): Promise<void> {
    return this.repo.settleRun(run, owner, delivered, failed)
  }
  heartbeat(seqs: number[], owner: string, leaseMs: number): Promise<void> {
    return this.repo.heartbeat(seqs, owner, leaseMs)
  }
  otherOwners(self: string): Promise<string[]> {
    return this.repo.otherOwners(self)
  }
  releaseOwner(owner: string): Promise<number> {
    return this.repo.releaseOwner(owner)
  }
  prune(beforeMs: number): Promise<number> {
    return this.repo.prune(beforeMs)
  }
  /** Events not yet delivered, oldest first; for tests and `engram doctor`-style checks. */
  pending(): Promise<DomainEvent[]> {
    return this.repo.pending()
  }
}

/** Resolves once the event loop's current turn is over. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}
