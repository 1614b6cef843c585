import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * The outbox: one row per domain event, written in the same transaction as the change it tells
 * of, so an event exists if and only if its change committed. `seq` orders a workspace's events;
 * the dispatcher delivers the oldest undelivered event of each workspace and marks it delivered
 * once every subscriber of its type has taken it.
 */
export const domainEvents = sqliteTable(
  'domain_events',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    workspaceId: text('workspace_id').notNull(),
    type: text('type').notNull(),
    payload: text('payload').notNull(),
    occurredAt: integer('occurred_at').notNull(),
    /** Set once every subscriber has taken the event; the row is pruned later. */
    deliveredAt: integer('delivered_at'),
    /** Failed delivery rounds, for the backoff. */
    attempts: integer('attempts').notNull().default(0),
    /** Not tried again before this time (ms): backoff after a subscriber failed. */
    runAt: integer('run_at').notNull(),
    lastError: text('last_error'),
    /** The dispatcher delivering it now, and until when its claim holds without a heartbeat. */
    leaseOwner: text('lease_owner'),
    leaseUntil: integer('lease_until'),
  },
  (t) => [
    index('domain_events_pending').on(t.deliveredAt, t.workspaceId, t.seq),
    // The events waiting alone, by workspace: a claim walks the workspaces and their heads by seeks
    // here (outbox.delivery.repo.ts); PostgreSQL's planner orders no scan of the index above by the
    // column after one held by IS NULL.
    index('domain_events_waiting').on(t.workspaceId, t.seq).where(sql`${t.deliveredAt} IS NULL`),
    index('domain_events_lease').on(t.leaseOwner),
  ],
)

/**
 * Which subscriber has taken which event: after a crash part way through an event, the
 * subscribers that already succeeded are not called again.
 */
export const eventDeliveries = sqliteTable(
  'event_deliveries',
  {
    eventId: text('event_id').notNull(),
    subscriber: text('subscriber').notNull(),
    deliveredAt: integer('delivered_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.subscriber] })],
)
