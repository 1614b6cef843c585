import { and, asc, eq, gt, gte, isNull, lte, or, sql } from 'drizzle-orm'
import type { Db } from '../db/db'
import { Prepared } from '../db/prepared'
import type { Store } from '../db/store'
import { domainEvents, eventDeliveries } from './events.tables'

/** What a claim reads of a `domain_events` row. */
export type EventRow = Pick<
  typeof domainEvents.$inferSelect,
  'seq' | 'id' | 'workspaceId' | 'type' | 'payload' | 'occurredAt' | 'attempts' | 'runAt' | 'leaseUntil'
>

/**
 * The statements every delivered event runs (OutboxRepo's claim, delivery records and finish): on
 * SQLite drizzle's builder would build and prepare each again for every event, about a millisecond
 * an event on a cold path; prepared once per handle here (bench/RESULTS.md, issue 38, session 31).
 */
export class DeliveryStatements {
  /** Each workspace's oldest undelivered event, in `seq` order. */
  readonly heads: Prepared<EventRow[]>
  /** A head leased to a claimer, only while it is still due, free and its workspace's lowest. */
  readonly lease: Prepared<Pick<typeof domainEvents.$inferSelect, 'seq'>[]>
  /** Records that a subscriber took an event. */
  readonly took: Prepared<unknown>
  /** The undelivered events of a workspace after a `seq`, in order, `n` at most (a run's followers). */
  readonly following: Prepared<EventRow[]>
  /** A head's followers up to `last` leased with it, while due and free. */
  readonly leaseFollowing: Prepared<Pick<typeof domainEvents.$inferSelect, 'seq'>[]>
  /** The subscribers that have taken each event of a workspace from `first` to `last`. */
  readonly takenIn: Prepared<Pick<typeof eventDeliveries.$inferSelect, 'eventId' | 'subscriber'>[]>
  /** The claimed events of a workspace from `first` to `last` marked delivered. */
  readonly done: Prepared<unknown>
  /** The claimed events of a workspace from `first` to `last` given back undelivered. */
  readonly released: Prepared<unknown>

  constructor(store: Store) {
    const e = store.table(domainEvents)
    const d = store.table(eventDeliveries)
    const p = (name: string) => sql.placeholder(name) as never
    this.heads = new Prepared(store, (db) => headsQuery(db, store.dialect, e))
    this.lease = new Prepared(store, (db) => {
      const stillHead = sql`${e.seq} = (SELECT min(h2.seq) FROM ${e} AS h2 WHERE h2.workspace_id = ${p('workspaceId')} AND h2.delivered_at IS NULL)`
      return db
        .update(e)
        .set({ leaseOwner: p('owner'), leaseUntil: p('until') })
        .where(and(eq(e.seq, p('seq')), ...dueAndFree(e), stillHead))
        .returning({ seq: e.seq })
        .prepare()
    })
    this.took = new Prepared(store, (db) =>
      db
        .insert(d)
        .values({ eventId: p('id'), subscriber: p('subscriber'), deliveredAt: p('now') })
        .onConflictDoNothing()
        .prepare(),
    )
    this.done = new Prepared(store, (db) =>
      db
        .update(e)
        .set({ deliveredAt: p('now'), leaseOwner: null, leaseUntil: null, lastError: null })
        .where(claimedRange(e))
        .prepare(),
    )
    this.released = new Prepared(store, (db) =>
      db.update(e).set({ leaseOwner: null, leaseUntil: null }).where(claimedRange(e)).prepare(),
    )
    this.following = new Prepared(store, (db) =>
      db
        .select(eventRow(e))
        .from(e)
        .where(and(eq(e.workspaceId, p('workspaceId')), isNull(e.deliveredAt), gt(e.seq, p('after'))))
        .orderBy(asc(e.seq))
        .limit(p('n'))
        .prepare(),
    )
    this.leaseFollowing = new Prepared(store, (db) =>
      db
        .update(e)
        .set({ leaseOwner: p('owner'), leaseUntil: p('until') })
        .where(
          and(
            eq(e.workspaceId, p('workspaceId')),
            gt(e.seq, p('after')),
            lte(e.seq, p('last')),
            ...dueAndFree(e),
          ),
        )
        .returning({ seq: e.seq })
        .prepare(),
    )
    this.takenIn = new Prepared(store, (db) =>
      db
        .select({ eventId: d.eventId, subscriber: d.subscriber })
        .from(d)
        .innerJoin(e, eq(e.id, d.eventId))
        .where(and(eq(e.workspaceId, p('workspaceId')), gte(e.seq, p('first')), lte(e.seq, p('last'))))
        .prepare(),
    )
  }
}

/** An undelivered event's conditions to be leased at `now`: due, and not leased by a live claim. */
function dueAndFree(e: typeof domainEvents) {
  const now = sql.placeholder('now') as never
  return [isNull(e.deliveredAt), lte(e.runAt, now), or(isNull(e.leaseUntil), lte(e.leaseUntil, now))]
}

/** A claimed run's events from `first` to `last`, while `owner` still holds them. */
function claimedRange(e: typeof domainEvents) {
  const p = (name: string) => sql.placeholder(name) as never
  return and(
    eq(e.workspaceId, p('workspaceId')),
    gte(e.seq, p('first')),
    lte(e.seq, p('last')),
    eq(e.leaseOwner, p('owner')),
  )
}

/** The columns of an EventRow. */
function eventRow(e: typeof domainEvents) {
  return {
    seq: e.seq,
    id: e.id,
    workspaceId: e.workspaceId,
    type: e.type,
    payload: e.payload,
    occurredAt: e.occurredAt,
    attempts: e.attempts,
    runAt: e.runAt,
    leaseUntil: e.leaseUntil,
  }
}

/** Each workspace's oldest undelivered event, in `seq` order (the claim's read), for the store's engine. */
function headsQuery(db: Db, dialect: Store['dialect'], e: typeof domainEvents) {
  const row = eventRow(e)
  if (dialect === 'sqlite') {
    // Each workspace with undelivered events found by a seek on an index of the waiting events from the
    // one before (a loose index scan), and its head by another seek. A grouped min reads every
    // undelivered event at each claim, which behind an upload of many files is thousands: 0.3 ms
    // a claim at 5,000 and 2.9 ms at 50,000, against 0.03-0.04 ms this way.
    const heads = sql`WITH RECURSIVE ws(w) AS (
        SELECT min(x.workspace_id) FROM ${e} AS x WHERE x.delivered_at IS NULL
        UNION ALL
        SELECT (SELECT min(x.workspace_id) FROM ${e} AS x WHERE x.delivered_at IS NULL AND x.workspace_id > ws.w)
        FROM ws WHERE ws.w IS NOT NULL
      )
      SELECT (SELECT min(y.seq) FROM ${e} AS y WHERE y.delivered_at IS NULL AND y.workspace_id = ws.w)
      FROM ws WHERE ws.w IS NOT NULL`
    return db.select(row).from(e).where(sql`${e.seq} IN (${heads})`).orderBy(e.seq).prepare()
  }
  // The same walk on PostgreSQL, each step the next workspace and its head at once (the first
  // waiting event in (workspace_id, seq) order after the workspace before): its planner looked for
  // a head alone along the primary key instead, and joined the heads' rows by a scan of the table
  // (an array of their `seq`s is read by the key). 0.35-0.39 ms a claim at 500 to 50,000 waiting,
  // round trip included, against 0.4 to 9.6 ms for the grouped min.
  const heads = sql`ARRAY(WITH RECURSIVE ws(w, s) AS (
      (SELECT x.workspace_id, x.seq FROM ${e} AS x WHERE x.delivered_at IS NULL
       ORDER BY x.workspace_id, x.seq LIMIT 1)
      UNION ALL
      SELECT n.workspace_id, n.seq FROM ws CROSS JOIN LATERAL (
        SELECT x.workspace_id, x.seq FROM ${e} AS x WHERE x.delivered_at IS NULL AND x.workspace_id > ws.w
        ORDER BY x.workspace_id, x.seq LIMIT 1) AS n
    )
    SELECT s FROM ws)`
  return db.select(row).from(e).where(sql`${e.seq} = ANY (${heads})`).orderBy(e.seq).prepare()
}
