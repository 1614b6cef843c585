import { and, eq, isNull, lte, min, or, sql } from 'drizzle-orm'
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
  /** The subscribers that have taken an event. */
  readonly takenBy: Prepared<Pick<typeof eventDeliveries.$inferSelect, 'subscriber'>[]>
  /** Records that a subscriber took an event. */
  readonly took: Prepared<unknown>
  /** A claimed event marked delivered. */
  readonly done: Prepared<unknown>

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
        .where(
          and(
            eq(e.seq, p('seq')),
            isNull(e.deliveredAt),
            lte(e.runAt, p('now')),
            or(isNull(e.leaseUntil), lte(e.leaseUntil, p('now'))),
            stillHead,
          ),
        )
        .returning({ seq: e.seq })
        .prepare()
    })
    this.takenBy = new Prepared(store, (db) =>
      db
        .select({ subscriber: d.subscriber })
        .from(d)
        .where(eq(d.eventId, p('id')))
        .prepare(),
    )
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
        .where(and(eq(e.seq, p('seq')), eq(e.leaseOwner, p('owner'))))
        .prepare(),
    )
  }
}

/** Each workspace's oldest undelivered event, in `seq` order (the claim's read), for the store's engine. */
function headsQuery(db: Db, dialect: Store['dialect'], e: typeof domainEvents) {
  const row = {
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
  if (dialect === 'sqlite') {
    // Each workspace with undelivered events found by a seek on the pending index from the one
    // before (a loose index scan), and its head by another seek. A grouped min reads every
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
  // PostgreSQL's planner makes no seeks of that query (it orders no scan by a column after one
  // held by IS NULL; with a partial index it looked for each head along the primary key): 2-6 ms
  // where this grouped min takes 0.4-1.3 at 500-5,000 waiting (docs/events.md).
  const h = db
    .select({ seq: min(e.seq).as('head') })
    .from(e)
    .where(isNull(e.deliveredAt))
    .groupBy(e.workspaceId)
    .as('h')
  return db.select(row).from(e).innerJoin(h, eq(h.seq, e.seq)).orderBy(e.seq).prepare()
}
