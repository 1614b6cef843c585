import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { workspaces } from '../workspaces/workspaces.tables'

/**
 * A workspace's billing account: its Stripe customer (created once, at its first checkout) and the
 * mirror of its subscription as Stripe last answered it. The customer id is the link events are
 * trusted by: an event is applied to the workspace that owns its customer, never to one its
 * metadata names. Times in ms.
 */
export const billingAccounts = sqliteTable(
  'billing_accounts',
  {
    workspaceId: text('workspace_id')
      .primaryKey()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    customerId: text('customer_id').notNull(),
    subscriptionId: text('subscription_id'),
    /** Stripe's status: trialing, active, past_due, unpaid, canceled, incomplete, ... */
    status: text('status'),
    /** The plan and term the subscription's price stands for. */
    tier: text('tier'),
    term: text('term'),
    trialEndsAt: integer('trial_ends_at'),
    /** The end of the paid period: the next renewal, or the end when it is cancelled. */
    renewsAt: integer('renews_at'),
    cancelAtPeriodEnd: integer('cancel_at_period_end', { mode: 'boolean' }).notNull().default(false),
    /** A downgrade waiting for the period end (a subscription schedule's next phase). */
    pendingTier: text('pending_tier'),
    pendingTerm: text('pending_term'),
    pendingAt: integer('pending_at'),
    scheduleId: text('schedule_id'),
    /**
     * The checkout session opened last: expired before another is opened, and refused while its
     * payment is being set up, so that one workspace cannot end up with two subscriptions.
     */
    openCheckoutId: text('open_checkout_id'),
    /** When the subscription was last read from Stripe, and the `created` of the latest event applied. */
    syncedAt: integer('synced_at'),
    lastEventCreated: integer('last_event_created'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [uniqueIndex('billing_accounts_customer').on(t.customerId)],
)

/**
 * Every verified webhook event, by Stripe's id: an event applied or ignored is never applied
 * again; a failed one is retried when Stripe sends it again.
 */
export const billingEvents = sqliteTable(
  'billing_events',
  {
    eventId: text('event_id').primaryKey(),
    type: text('type').notNull(),
    workspaceId: text('workspace_id'),
    receivedAt: integer('received_at').notNull(),
    /** `applied`, `ignored` or `failed`. */
    outcome: text('outcome').notNull(),
    error: text('error'),
    attempts: integer('attempts').notNull().default(1),
  },
  (t) => [index('billing_events_workspace').on(t.workspaceId, t.receivedAt)],
)
