import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { workspaces } from '../workspaces/workspaces.tables'

/**
 * A workspace's webhook endpoints. The signing secret is kept sealed (AES-256-GCM bound to the
 * row's id, platform/crypto/sealed.ts): it must be read back to sign, so it cannot be a hash.
 */
export const webhookEndpoints = sqliteTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    description: text('description').notNull().default(''),
    /** JSON array of the webhook event types it receives. */
    events: text('events').notNull(),
    secretSealed: text('secret_sealed').notNull(),
    /** The secret before the last rotation: it signs beside the new one until `previousSecretExpiresAt`. */
    previousSecretSealed: text('previous_secret_sealed'),
    previousSecretExpiresAt: integer('previous_secret_expires_at'),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
    /** Why it was disabled (`failures`); null while enabled. */
    disabledReason: text('disabled_reason'),
    disabledAt: integer('disabled_at'),
    /** Failed attempts in a row, and when the first of them was; any success resets both. */
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    failingSince: integer('failing_since'),
    /** The last attempt made to it (any delivery), for the listing. */
    lastAt: integer('last_at'),
    lastEventType: text('last_event_type'),
    lastAttempt: integer('last_attempt'),
    lastStatusCode: integer('last_status_code'),
    lastOk: integer('last_ok', { mode: 'boolean' }),
    createdBy: text('created_by'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('webhook_endpoints_workspace').on(t.workspaceId, t.createdAt, t.id)],
)

/**
 * One message to one endpoint: its id is the `webhook-id` header, the same on every attempt, and
 * its body is fixed when it is made, so a receiver can drop a retry it has already taken.
 */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    /** The domain event it tells of; null for a test event. */
    eventId: text('event_id'),
    eventType: text('event_type').notNull(),
    /** The exact body sent, `{type, timestamp, data}`. */
    body: text('body').notNull(),
    status: text('status', { enum: ['pending', 'succeeded', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    // One delivery per event and endpoint, however often the event is handed over.
    uniqueIndex('webhook_deliveries_event').on(t.endpointId, t.eventId),
    index('webhook_deliveries_endpoint').on(t.endpointId, t.createdAt, t.id),
  ],
)

/** Each attempt at a delivery: when, what came back (status only, never the body) and how long it took. */
export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    at: integer('at').notNull(),
    statusCode: integer('status_code'),
    ok: integer('ok', { mode: 'boolean' }).notNull(),
    /** Why it failed (`timeout`, a refused address, `HTTP 500`); null on success. */
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
  },
  (t) => [uniqueIndex('webhook_attempts_delivery').on(t.deliveryId, t.attempt)],
)
