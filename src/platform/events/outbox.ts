import type { Database } from 'bun:sqlite'
import type { Clock } from '../clock/clock'
import { newId, type Random } from '../crypto/random'
import type { Db } from '../db/db'
import type { DomainEvent, EventType, NewEvent } from './events'
import type { domainEvents } from './events.tables'

/** The columns of a `domain_events` row its claims read, under their JS keys (events.tables.ts). */
const EVENT_COLUMNS = `e.seq, e.id, e.workspace_id AS workspaceId, e.type, e.payload, e.occurred_at AS occurredAt,
  e.attempts, e.run_at AS runAt, e.lease_until AS leaseUntil`
type EventRow = Pick<
  typeof domainEvents.$inferSelect,
  'seq' | 'id' | 'workspaceId' | 'type' | 'payload' | 'occurredAt' | 'attempts' | 'runAt' | 'leaseUntil'
>

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
 * The outbox's data functions: `emit` for features, the rest for the dispatcher. Every claim is one
 * statement guarded by the expected lease, as in the job queue, so two dispatchers (in one process
 * or several on the same data dir) never deliver the same event at once.
 */
export class Outbox {
  private listeners: (() => void)[] = []
  /** The dispatcher's inline subscribers, applied at emit (true: nobody else takes the event). */
  private inline: ((event: DomainEvent) => boolean) | null = null

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly random: Random,
  ) {}

  private get c(): Database {
    return this.db.$client
  }

  private now(): number {
    return this.clock.now().getTime()
  }

  /** Calls `fn` soon after each emit (the dispatcher pokes itself, once the caller has committed). */
  onEmit(fn: () => void): void {
    this.listeners.push(fn)
  }

  /** Sets what emit applies in the emitter's transaction (the dispatcher's inline subscribers). */
  applyInline(fn: (event: DomainEvent) => boolean): void {
    this.inline = fn
  }

  /**
   * Writes `event` to the outbox on `tx`, which must be inside the caller's open transaction on the
   * same connection as the change: the event then commits or rolls back with it. Called outside a
   * transaction it throws, since an event written on its own could tell of a change that never
   * happened (or miss one that did). Inline subscribers are applied here, in that transaction; an
   * event only they take is written delivered. Returns the event's id.
   */
  emit<T extends EventType>(tx: Pick<Db, '$client'>, e: NewEvent<T>): string {
    if (!tx.$client.inTransaction) throw new Error(`event ${e.type} emitted outside a transaction`)
    const now = this.now()
    const id = newId(this.random, 'evt')
    const payload = JSON.stringify(e.payload)
    // The subscribers see the event as a delivery would read it back (built only when there are any).
    const delivered = this.inline?.({
      id,
      type: e.type,
      workspaceId: e.workspaceId,
      payload: JSON.parse(payload),
      occurredAt: now,
    } as DomainEvent)
      ? now
      : null
    tx.$client
      .query(
        `INSERT INTO domain_events (id, workspace_id, type, payload, occurred_at, run_at, delivered_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, e.workspaceId, e.type, payload, now, now, delivered)
    // After the caller's synchronous transaction has ended; a rolled-back event leaves nothing to find.
    if (delivered === null && this.listeners.length > 0) setImmediate(() => this.notify())
    return id
  }

  private notify(): void {
    for (const fn of this.listeners) fn()
  }

  /**
   * Claims the oldest undelivered event of each workspace whose head is due and not leased by a
   * live claim, up to `limit`; a workspace whose head is leased or waiting on a backoff is skipped
   * whole, which is what keeps its events in order.
   */
  claimHeads(owner: string, leaseMs: number, limit: number, skip: ReadonlySet<string>): Claimed[] {
    if (limit <= 0) return []
    const now = this.now()
    const heads = this.c
      .query<EventRow, []>(
        `SELECT ${EVENT_COLUMNS} FROM domain_events e
         JOIN (SELECT min(seq) AS seq FROM domain_events WHERE delivered_at IS NULL GROUP BY workspace_id) h
           ON h.seq = e.seq
         ORDER BY e.seq`,
      )
      .all()
    const claim = this.c.query(
      `UPDATE domain_events SET lease_owner = ?, lease_until = ?
       WHERE seq = ? AND delivered_at IS NULL AND run_at <= ? AND (lease_until IS NULL OR lease_until <= ?)`,
    )
    const out: Claimed[] = []
    for (const h of heads) {
      if (out.length >= limit) break
      if (skip.has(h.workspaceId) || h.runAt > now) continue
      if (h.leaseUntil !== null && h.leaseUntil > now) continue
      if (claim.run(owner, now + leaseMs, h.seq, now, now).changes === 1) out.push(decode(h))
    }
    return out
  }

  /** Subscribers that have already taken event `id`. */
  delivered(id: string): Set<string> {
    const rows = this.c
      .query<{ subscriber: string }, [string]>('SELECT subscriber FROM event_deliveries WHERE event_id = ?')
      .all(id)
    return new Set(rows.map((r) => r.subscriber))
  }

  /** Records that `subscriber` has taken event `id`. */
  recordDelivery(id: string, subscriber: string): void {
    this.c
      .query('INSERT OR IGNORE INTO event_deliveries (event_id, subscriber, delivered_at) VALUES (?, ?, ?)')
      .run(id, subscriber, this.now())
  }

  /** Runs `fn` in one transaction on the outbox's connection (a transactional subscriber's delivery). */
  atomically(fn: () => void): void {
    this.c.transaction(fn)()
  }

  /** Marks a claimed event delivered to all its subscribers and lets its workspace move on. */
  finish(seq: number, owner: string): void {
    this.c
      .query(
        `UPDATE domain_events SET delivered_at = ?, lease_owner = NULL, lease_until = NULL, last_error = NULL
         WHERE seq = ? AND lease_owner = ?`,
      )
      .run(this.now(), seq, owner)
  }

  /** Gives a claimed event back to be tried again after `delayMs` (a subscriber failed). */
  retry(seq: number, owner: string, error: string, delayMs: number): void {
    this.c
      .query(
        `UPDATE domain_events SET attempts = attempts + 1, run_at = ?, last_error = ?,
           lease_owner = NULL, lease_until = NULL
         WHERE seq = ? AND lease_owner = ?`,
      )
      .run(this.now() + delayMs, error, seq, owner)
  }

  /** Extends the lease of an event still being delivered. */
  heartbeat(seq: number, owner: string, leaseMs: number): void {
    this.c
      .query('UPDATE domain_events SET lease_until = ? WHERE seq = ? AND lease_owner = ?')
      .run(this.now() + leaseMs, seq, owner)
  }

  /** Lease owners other than `self` holding events now. */
  otherOwners(self: string): string[] {
    return this.c
      .query<{ leaseOwner: string }, [string]>(
        'SELECT DISTINCT lease_owner AS leaseOwner FROM domain_events WHERE lease_owner IS NOT NULL AND lease_owner != ?',
      )
      .all(self)
      .map((r) => r.leaseOwner)
  }

  /** Frees at once the events leased by an owner whose process has ended; returns how many. */
  releaseOwner(owner: string): number {
    return this.c
      .query(
        'UPDATE domain_events SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ? AND delivered_at IS NULL',
      )
      .run(owner).changes
  }

  /** Deletes delivered events (and their delivery records) older than `beforeMs`; returns how many. */
  prune(beforeMs: number): number {
    return this.c.transaction(() => {
      this.c
        .query(
          `DELETE FROM event_deliveries WHERE event_id IN
             (SELECT id FROM domain_events WHERE delivered_at IS NOT NULL AND delivered_at < ?)`,
        )
        .run(beforeMs)
      return this.c
        .query('DELETE FROM domain_events WHERE delivered_at IS NOT NULL AND delivered_at < ?')
        .run(beforeMs).changes
    })()
  }

  /** Events not yet delivered, oldest first; for tests and `engram doctor`-style checks. */
  pending(): DomainEvent[] {
    return this.c
      .query<EventRow, []>(
        `SELECT ${EVENT_COLUMNS} FROM domain_events e WHERE delivered_at IS NULL ORDER BY seq`,
      )
      .all()
      .map((r) => decode(r).event)
  }
}
