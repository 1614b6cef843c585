import { eq } from 'drizzle-orm'
import type { Db } from '../../platform/db/db'
import { billingAccounts, billingEvents } from './billing.tables'

/** A workspace's billing account row (times in ms). */
export type BillingAccountRow = typeof billingAccounts.$inferSelect

/** One webhook event as it was received and what came of it. */
export type BillingEventRow = typeof billingEvents.$inferSelect

/** What a read of the subscription from Stripe sets on the account. */
export type SubscriptionMirror = Pick<
  BillingAccountRow,
  | 'subscriptionId'
  | 'status'
  | 'tier'
  | 'term'
  | 'trialEndsAt'
  | 'renewsAt'
  | 'cancelAtPeriodEnd'
  | 'pendingTier'
  | 'pendingTerm'
  | 'pendingAt'
  | 'scheduleId'
>

/** SQL of the billing feature: its two tables and nothing else. */
export class BillingRepo {
  constructor(private readonly db: Db) {}

  /** A workspace's account, if it ever started a checkout. */
  byWorkspace(workspaceId: string): BillingAccountRow | undefined {
    return this.db.select().from(billingAccounts).where(eq(billingAccounts.workspaceId, workspaceId)).get()
  }

  /** The account that owns a Stripe customer: the only link an event is trusted by. */
  byCustomer(customerId: string): BillingAccountRow | undefined {
    return this.db.select().from(billingAccounts).where(eq(billingAccounts.customerId, customerId)).get()
  }

  /** Links a workspace to its customer once; a second link of the same workspace changes nothing. */
  link(workspaceId: string, customerId: string, at: number): BillingAccountRow {
    this.db
      .insert(billingAccounts)
      .values({ workspaceId, customerId, createdAt: at, updatedAt: at })
      .onConflictDoNothing()
      .run()
    return this.byWorkspace(workspaceId) as BillingAccountRow
  }

  /** Writes what Stripe answered about the workspace's subscription. */
  mirror(workspaceId: string, m: SubscriptionMirror, at: number, eventCreated: number | null): void {
    const set = { ...m, syncedAt: at, updatedAt: at }
    this.db
      .update(billingAccounts)
      .set(eventCreated === null ? set : { ...set, lastEventCreated: eventCreated })
      .where(eq(billingAccounts.workspaceId, workspaceId))
      .run()
  }

  /** Records the checkout session the workspace opened last. */
  setOpenCheckout(workspaceId: string, sessionId: string, at: number): void {
    this.db
      .update(billingAccounts)
      .set({ openCheckoutId: sessionId, updatedAt: at })
      .where(eq(billingAccounts.workspaceId, workspaceId))
      .run()
  }

  /** A received event, if it was seen before. */
  event(eventId: string): BillingEventRow | undefined {
    return this.db.select().from(billingEvents).where(eq(billingEvents.eventId, eventId)).get()
  }

  /** Records an event's outcome: a first delivery inserts, a redelivery of a failed one updates. */
  recordEvent(row: Omit<BillingEventRow, 'attempts'>): void {
    const { eventId, ...rest } = row
    const before = this.event(eventId)
    if (!before) {
      this.db
        .insert(billingEvents)
        .values({ ...row, attempts: 1 })
        .run()
      return
    }
    this.db
      .update(billingEvents)
      .set({ ...rest, attempts: before.attempts + 1 })
      .where(eq(billingEvents.eventId, eventId))
      .run()
  }
}
