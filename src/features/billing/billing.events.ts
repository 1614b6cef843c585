// Applying Stripe's webhook events. An event is only a hint that something changed: its snapshot
// may be stale or arrive out of order, so the subscription is read back from Stripe and its current
// state mirrored. The workspace is found by the event's customer, through the link stored at the
// first checkout, never by metadata an event carries.
import type { Actor } from '../../platform/auth/principal'
import type { Clock } from '../../platform/clock/clock'
import type { Random } from '../../platform/crypto/random'
import type { Store } from '../../platform/db/store'
import { ApiError, fail } from '../../platform/errors/errors'
import type { HeldLease } from '../../platform/leases/held-lease'
import { LeasedQueue } from '../../platform/leases/leased-queue'
import type { PlansService } from '../plans/plans.service'
import type { BillingAccountRow, BillingRepo, SubscriptionMirror } from './billing.repo'
import {
  parseLookupKey,
  type StripeEvent,
  type StripeGateway,
  type StripeSchedule,
  type StripeSubscription,
  type Term,
} from './billing.stripe'

/** Billing work refused because another process has held its customer or workspace for `SERIAL_WAIT_MS`. */
export const billingBusy = () => fail('billing_in_progress', undefined, undefined, { 'retry-after': '1' })

/** What came of an event: applied, ignored (not ours, or nothing to do) or failed (retried on redelivery). */
export type EventOutcome = 'applied' | 'ignored' | 'failed'

/** Statuses under which the workspace has its subscribed plan. */
const LIVE = new Set(['active', 'trialing', 'past_due'])
/** Statuses that end the subscription: the workspace goes back to the default plan. */
const ENDED = new Set(['canceled', 'unpaid', 'incomplete_expired'])

/**
 * Whether a mirrored status is a subscription that checkout must not duplicate: any but a finished
 * one (an unpaid subscription still exists at Stripe, to be paid in the portal).
 */
export function isLive(status: string | null): boolean {
  return status !== null && status !== 'canceled' && status !== 'incomplete_expired'
}

/** The system actor billing's plan changes are audited under. */
const BILLING_ACTOR: Actor = { type: 'system', id: 'billing' }

type Obj = Record<string, unknown>
const idOf = (v: unknown): string | null =>
  typeof v === 'string'
    ? v
    : v && typeof v === 'object' && typeof (v as Obj).id === 'string'
      ? ((v as Obj).id as string)
      : null

/** The customer and subscription an event is about; null for a type billing does not follow. */
export function subjectOf(
  event: StripeEvent,
): { customer: string | null; subscription: string | null } | null {
  const o = event.data.object as unknown as Obj
  const t = event.type
  if (t.startsWith('customer.subscription.')) return { customer: idOf(o.customer), subscription: idOf(o.id) }
  if (t === 'checkout.session.completed' || t === 'checkout.session.async_payment_succeeded') {
    return { customer: idOf(o.customer), subscription: idOf(o.subscription) }
  }
  if (t.startsWith('subscription_schedule.')) {
    return { customer: idOf(o.customer), subscription: idOf(o.subscription) }
  }
  if (t === 'invoice.paid' || t === 'invoice.payment_failed') {
    const parent = (o.parent as Obj | null)?.subscription_details as Obj | undefined
    return { customer: idOf(o.customer), subscription: idOf(o.subscription) ?? idOf(parent?.subscription) }
  }
  return null
}

const seconds = (s: number | null | undefined): number | null => (typeof s === 'number' ? s * 1000 : null)

/** The phase after the current one of an active schedule: the change waiting for the period end. */
function pendingOf(
  schedule: StripeSchedule | null,
): Pick<SubscriptionMirror, 'pendingTier' | 'pendingTerm' | 'pendingAt'> {
  const none = { pendingTier: null, pendingTerm: null, pendingAt: null }
  if (!schedule || (schedule.status !== 'active' && schedule.status !== 'not_started')) return none
  const from = schedule.current_phase?.end_date
  const next = schedule.phases.find((p) => from !== undefined && p.start_date >= from)
  if (!next) return none
  const price = next.items[0]?.price
  const named =
    parseLookupKey(typeof price === 'object' && price && 'lookup_key' in price ? price.lookup_key : null) ??
    (next.metadata?.tier && next.metadata.term
      ? { tier: next.metadata.tier, term: next.metadata.term as Term }
      : null)
  if (!named) return none
  return { pendingTier: named.tier, pendingTerm: named.term, pendingAt: next.start_date * 1000 }
}

/**
 * Applies events and mirrors subscriptions. Work on one customer is serialized, in this process and
 * across processes (the named lease `billing.customer:<id>`), so that two reads of the same
 * subscription cannot land in the wrong order.
 */
export class BillingEvents {
  private readonly customers: LeasedQueue

  constructor(
    private readonly d: {
      store: Store
      clock: Clock
      random: Random
      repo: BillingRepo
      plans: PlansService
      gateway: StripeGateway
      defaultPlan: string
      /** Waits between tries of a customer another process holds (real time by default). */
      sleep?: (ms: number) => Promise<void>
    },
  ) {
    this.customers = new LeasedQueue('billing.customer', { ...d, busy: billingBusy })
  }

  /**
   * Runs `work` after the customer's earlier work has settled, here and on every other process;
   * 409 `billing_in_progress` when another process holds the customer past the wait.
   */
  serial<T>(customerId: string, work: (lease: HeldLease) => Promise<T>): Promise<T> {
    return this.customers.run(customerId, work)
  }

  /**
   * Applies one verified event; throws when its handler failed (the caller records it), and 409
   * `billing_in_progress` when another process holds its customer (the caller answers it, so
   * Stripe sends the event again).
   */
  async apply(event: StripeEvent): Promise<{ outcome: 'applied' | 'ignored'; workspaceId: string | null }> {
    const subject = subjectOf(event)
    if (!subject?.customer || !subject.subscription) return { outcome: 'ignored', workspaceId: null }
    const { customer, subscription } = subject
    return this.serial(customer, async (lease) => {
      const account = await this.d.repo.byCustomer(customer)
      if (!account) return { outcome: 'ignored' as const, workspaceId: null }
      const sub = await this.d.gateway.subscription(subscription)
      const applied = await this.mirror(account, sub, event.created, lease)
      return {
        outcome: applied ? ('applied' as const) : ('ignored' as const),
        workspaceId: account.workspaceId,
      }
    })
  }

  /**
   * Reads the workspace's subscription from Stripe again and mirrors it (after billing changed it).
   * False, mirroring nothing, when another process holds the customer past the wait: that process
   * is mirroring it, and the change's own event mirrors it again.
   */
  async refresh(workspaceId: string): Promise<boolean> {
    const before = await this.d.repo.byWorkspace(workspaceId)
    if (!before) return false
    return this.serial(before.customerId, async (lease) => {
      const account = await this.d.repo.byWorkspace(workspaceId)
      if (!account?.subscriptionId) return false
      return this.mirror(account, await this.d.gateway.subscription(account.subscriptionId), null, lease)
    }).catch((e) => {
      if (e instanceof ApiError && e.code === 'billing_in_progress') return false
      throw e
    })
  }

  /**
   * Mirrors a subscription read from Stripe onto its workspace's account and moves the workspace
   * to the plan it pays for (or back to the default plan once it ended). Answers false, writing
   * nothing, when the subscription is not the account's to follow.
   */
  async mirror(
    account: BillingAccountRow,
    sub: StripeSubscription,
    eventCreated: number | null,
    lease?: HeldLease,
  ): Promise<boolean> {
    // The subscription must belong to the account's own customer (the stored link decides).
    if (idOf(sub.customer) !== account.customerId) return false
    // An old subscription ending does not undo a newer one that is live.
    const replaced = account.subscriptionId !== null && account.subscriptionId !== sub.id
    if (replaced && isLive(account.status) && !isLive(sub.status)) return false
    const scheduleId = idOf(sub.schedule)
    const schedule = scheduleId ? await this.d.gateway.schedule(scheduleId) : null
    const m = this.mirrorOf(sub, scheduleId, schedule)
    // Still the customer's holder (renewed if a third of the lease has gone): a process that lost it
    // to another, which may have read Stripe since, writes nothing (LeaseLostError: retried).
    await lease?.keep()
    // The mirror and the plan it calls for land together; Stripe was read before the unit.
    await this.d.store.unit(async () => {
      const at = this.d.clock.now().getTime()
      await this.d.repo.mirror(account.workspaceId, m, at, eventCreated)
      await this.follow(account.workspaceId, m)
    })
    return true
  }

  private mirrorOf(sub: StripeSubscription, scheduleId: string | null, schedule: StripeSchedule | null) {
    const item = sub.items.data[0]
    const meta = sub.metadata ?? {}
    const named =
      parseLookupKey(item?.price.lookup_key) ??
      (meta.tier && (meta.term === 'month' || meta.term === 'year')
        ? { tier: meta.tier, term: meta.term }
        : null)
    const periodEnd = item?.current_period_end ?? (sub as unknown as Obj).current_period_end
    return {
      subscriptionId: sub.id,
      status: sub.status,
      tier: named?.tier ?? null,
      term: named?.term ?? null,
      trialEndsAt: seconds(sub.trial_end),
      renewsAt: seconds(periodEnd as number | undefined),
      cancelAtPeriodEnd: sub.cancel_at_period_end,
      scheduleId,
      ...pendingOf(schedule),
    } satisfies SubscriptionMirror
  }

  /**
   * Moves the workspace to the plan its subscription's state calls for, audited as billing's. Plans
   * is not on the store yet: its synchronous change (and its `plan.changed`) joins the caller's unit
   * on SQLite, where they share the connection.
   */
  private async follow(workspaceId: string, m: SubscriptionMirror): Promise<void> {
    let target: string | null = null
    if (m.status && LIVE.has(m.status) && m.tier && this.d.plans.find(m.tier)) target = m.tier
    else if (m.status && ENDED.has(m.status)) target = this.d.defaultPlan
    if (target === null || (await this.d.plans.planOf(workspaceId))?.id === target) return
    await this.d.plans.setPlan(workspaceId, target, BILLING_ACTOR, 'billing')
  }
}
