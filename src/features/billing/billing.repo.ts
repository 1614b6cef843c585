import { eq, sql } from 'drizzle-orm'
import type { Store } from '../../platform/db/store'
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

/** SQL of the billing feature: its two tables and nothing else, on either engine (docs/data-layer.md). */
export class BillingRepo {
  constructor(private readonly store: Store) {}

  /** A workspace's account, if it ever started a checkout. */
  async byWorkspace(workspaceId: string): Promise<BillingAccountRow | undefined> {
    const a = this.store.table(billingAccounts)
    const rows = await this.store.db.select().from(a).where(eq(a.workspaceId, workspaceId)).limit(1)
    return rows[0]
  }

  /** The account that owns a Stripe customer: the only link an event is trusted by. */
  async byCustomer(customerId: string): Promise<BillingAccountRow | undefined> {
    const a = this.store.table(billingAccounts)
    const rows = await this.store.db.select().from(a).where(eq(a.customerId, customerId)).limit(1)
    return rows[0]
  }

  /**
   * Links a workspace to its customer once; a second link of the same workspace changes nothing
   * and answers the first. Call inside a unit (it reads its own write).
   */
  async link(workspaceId: string, customerId: string, at: number): Promise<BillingAccountRow> {
    await this.store.db
      .insert(this.store.table(billingAccounts))
      .values({ workspaceId, customerId, createdAt: at, updatedAt: at })
      .onConflictDoNothing()
    return (await this.byWorkspace(workspaceId)) as BillingAccountRow
  }

  /** Writes what Stripe answered about the workspace's subscription. */
  async mirror(
    workspaceId: string,
    m: SubscriptionMirror,
    at: number,
    eventCreated: number | null,
  ): Promise<void> {
    const a = this.store.table(billingAccounts)
    const set = { ...m, syncedAt: at, updatedAt: at }
    await this.store.db
      .update(a)
      .set(eventCreated === null ? set : { ...set, lastEventCreated: eventCreated })
      .where(eq(a.workspaceId, workspaceId))
  }

  /** Records the checkout session the workspace opened last. */
  async setOpenCheckout(workspaceId: string, sessionId: string, at: number): Promise<void> {
    const a = this.store.table(billingAccounts)
    await this.store.db
      .update(a)
      .set({ openCheckoutId: sessionId, updatedAt: at })
      .where(eq(a.workspaceId, workspaceId))
  }

  /** A received event, if it was seen before. */
  async event(eventId: string): Promise<BillingEventRow | undefined> {
    const e = this.store.table(billingEvents)
    const rows = await this.store.db.select().from(e).where(eq(e.eventId, eventId)).limit(1)
    return rows[0]
  }

  /**
   * Records an event's outcome: a first delivery inserts, a redelivery (of a failed one) updates it
   * and counts the attempt. One upsert, so two deliveries at once cannot both insert.
   */
  async recordEvent(row: Omit<BillingEventRow, 'attempts'>): Promise<void> {
    const e = this.store.table(billingEvents)
    const { eventId: _, ...rest } = row
    await this.store.db
      .insert(e)
      .values({ ...row, attempts: 1 })
      .onConflictDoUpdate({ target: e.eventId, set: { ...rest, attempts: sql`${e.attempts} + 1` } })
  }
}
