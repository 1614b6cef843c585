import type { Clock } from '../../platform/clock/clock'
import type { Random } from '../../platform/crypto/random'
import type { Store } from '../../platform/db/store'
import { ApiError, fail, validationFailed } from '../../platform/errors/errors'
import type { HeldLease } from '../../platform/leases/held-lease'
import { LeasedQueue } from '../../platform/leases/leased-queue'
import type { Logger } from '../../platform/log/log'
import type { LegalService } from '../legal/legal.service'
import type { PlanDef } from '../plans/plans.schemas'
import type { PlansService } from '../plans/plans.service'
import type { WorkspacesService } from '../workspaces/workspaces.service'
import { type BillingEvents, billingBusy, type EventOutcome, isLive } from './billing.events'
import type { BillingAccountRow, BillingRepo } from './billing.repo'
import type { BillingStatus } from './billing.schemas'
import { keyFor, provider, type StripeGateway, type Term } from './billing.stripe'

/** What the billing service is built from. */
export interface BillingDeps {
  clock: Clock
  random: Random
  log: Logger
  /** Billing's writes are units of work on it; Stripe is called before or after them, never inside. */
  store: Store
  repo: BillingRepo
  plans: PlansService
  legal: LegalService
  workspaces: WorkspacesService
  /** Null when billing is off. */
  gateway: StripeGateway | null
  events: BillingEvents | null
  /** The public URL Stripe sends the browser back to. */
  baseUrl: string
  /** Waits between tries of a checkout another process holds (real time by default). */
  sleep?: (ms: number) => Promise<void>
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString())

/** The price a month of a plan costs on a term, to tell an upgrade from a downgrade. */
const monthly = (plan: PlanDef | undefined, term: Term | null): number =>
  plan ? (term === 'year' ? plan.prices.year / 12 : plan.prices.month) : 0

/**
 * Billing through Stripe: the workspace's status, checkout, plan changes, the portal and the
 * webhook. Stripe holds the truth; this service mirrors it and moves the workspace's plan.
 */
export class BillingService {
  /** A workspace's checkouts, one at a time across processes (the lease `billing.checkout:<workspace>`). */
  private readonly checkouts: LeasedQueue

  constructor(private readonly d: BillingDeps) {
    this.checkouts = new LeasedQueue('billing.checkout', { ...d, busy: billingBusy })
  }

  /** Whether billing is on (ENGRAM_BILLING=stripe). */
  get enabled(): boolean {
    return this.d.gateway !== null
  }

  /** Refuses with 503 `billing_disabled` when billing is off. */
  ensureEnabled(): { gateway: StripeGateway; events: BillingEvents } {
    if (!this.d.gateway || !this.d.events) throw fail('billing_disabled')
    return { gateway: this.d.gateway, events: this.d.events }
  }

  /**
   * Refuses a purchase before anything else: 403 `legal_acceptance_required` naming the first
   * document the workspace has not accepted in its current version, then 503 when billing is off.
   */
  async gatePurchase(workspaceId: string): Promise<void> {
    const missing = await this.d.legal.firstUnaccepted(workspaceId)
    if (missing) {
      throw fail(
        'legal_acceptance_required',
        `The workspace must accept version ${missing.version} of the ${missing.document} document first (POST ${missing.accept_url}).`,
        missing,
      )
    }
    this.ensureEnabled()
  }

  /** The workspace's billing status; always answers, billing on or off. */
  async status(workspaceId: string): Promise<BillingStatus> {
    const plan = (await this.d.plans.planOf(workspaceId)) as PlanDef
    const a = await this.d.repo.byWorkspace(workspaceId)
    const pending =
      a?.pendingTier && a.pendingTerm && a.pendingAt !== null
        ? { tier: a.pendingTier, term: a.pendingTerm as Term, effective_at: iso(a.pendingAt) as string }
        : null
    return {
      billing_enabled: this.enabled,
      rate_card: plan.rate_card,
      portal_available: this.enabled && a !== undefined,
      tier: plan.id,
      term: (a?.term as Term | null | undefined) ?? null,
      subscription_status: a?.status ?? null,
      trial_ends_at: iso(a?.trialEndsAt ?? null),
      renews_at: iso(a?.renewsAt ?? null),
      cancel_at_period_end: a?.cancelAtPeriodEnd ?? false,
      checkout_required: this.enabled && !(a?.subscriptionId && isLive(a.status)),
      caps: plan.caps,
      pending_change: pending,
    }
  }

  /** The plan a workspace may buy on a term: public, with a price; 422 otherwise. */
  private sellable(tier: string, term: Term): PlanDef {
    const plan = this.d.plans.find(tier)
    if (!plan?.public || !(plan.prices[term] > 0)) {
      throw validationFailed([
        {
          loc: ['body', 'tier'],
          msg: `"${tier}" is not a plan on sale with a ${term}ly price (GET /plans lists them).`,
          type: 'value_error',
        },
      ])
    }
    return plan
  }

  /** Opens a hosted checkout for a plan; the customer is created once per workspace. */
  async checkout(workspaceId: string, tier: string, term: Term, requestKey: string | null) {
    await this.gatePurchase(workspaceId)
    const before = await this.d.repo.byWorkspace(workspaceId)
    if (before?.subscriptionId && isLive(before.status)) throw fail('subscription_exists')
    const plan = this.sellable(tier, term)
    // One checkout of a workspace at a time, on every process, so that two cannot both leave a
    // session open; 409 `billing_in_progress` when another process's goes on past the wait.
    return this.checkouts.run(workspaceId, (lease) =>
      this.openCheckout(workspaceId, plan, term, requestKey, lease),
    )
  }

  /**
   * Closes the workspace's earlier checkout and opens a new one. A session already paid whose
   * subscription has not come through the webhook yet refuses with 409 `subscription_exists`;
   * one still open is expired, so that the two cannot both be paid.
   */
  private async openCheckout(
    workspaceId: string,
    plan: PlanDef,
    term: Term,
    requestKey: string | null,
    lease: HeldLease,
  ) {
    const { gateway } = this.ensureEnabled()
    const tier = plan.id
    const account = await this.accountOf(workspaceId, gateway)
    const earlier = account.openCheckoutId
    if (earlier) {
      const state = await provider(this.d.log, 'checkout', () => gateway.checkoutState(earlier))
      // Paid, and its subscription not mirrored yet (one mirrored is live, refused above, or ended).
      const paid = state.status === 'complete' && state.subscription !== account.subscriptionId
      if (paid) throw fail('subscription_exists')
      if (state.status === 'open')
        await provider(this.d.log, 'checkout', () => gateway.expireCheckout(earlier))
    }
    await lease.keep()
    const priceId = await provider(this.d.log, 'price', () => gateway.priceOf(plan, term))
    const base = this.d.baseUrl
    const session = await provider(this.d.log, 'checkout', () =>
      gateway.checkout({
        customerId: account.customerId,
        workspaceId,
        priceId,
        tier,
        term,
        successUrl: `${base}/console/plan?checkout=success`,
        cancelUrl: `${base}/console/plan?checkout=cancelled`,
        idempotencyKey: keyFor('checkout', workspaceId, requestKey, `${tier}:${term}`),
      }),
    )
    await lease.keep()
    const at = this.d.clock.now().getTime()
    await this.d.store.unit(() => this.d.repo.setOpenCheckout(workspaceId, session.id, at))
    return { url: session.url, session_id: session.id }
  }

  /** The workspace's account, linking it to a new customer the first time. */
  private async accountOf(workspaceId: string, gateway: StripeGateway): Promise<BillingAccountRow> {
    const existing = await this.d.repo.byWorkspace(workspaceId)
    if (existing) return existing
    const name = (await this.d.workspaces.get(workspaceId))?.name ?? workspaceId
    const customerId = await provider(this.d.log, 'customer', () => gateway.createCustomer(workspaceId, name))
    const at = this.d.clock.now().getTime()
    // Two first checkouts at once: the second link changes nothing and both go on with the first's customer.
    return this.d.store.unit(() => this.d.repo.link(workspaceId, customerId, at))
  }

  /**
   * Moves a subscription to another plan or term. An upgrade (more a month) is applied now with
   * the prorated difference invoiced at once; anything else waits for the end of the paid period.
   */
  async changePlan(workspaceId: string, tier: string, term: Term, requestKey: string | null) {
    await this.gatePurchase(workspaceId)
    const { gateway, events } = this.ensureEnabled()
    const account = await this.d.repo.byWorkspace(workspaceId)
    if (!account?.subscriptionId || !isLive(account.status)) throw fail('checkout_required')
    const plan = this.sellable(tier, term)
    const subId = account.subscriptionId
    const meta = { workspace_id: workspaceId, tier, term }
    const now = this.d.clock.now()
    const log = this.d.log
    // Stripe's writes are not made under the customer's lock: their events may arrive (and take
    // it) before Stripe answers. The subscription is read back afterwards, under the lock.
    const sub = await provider(log, 'subscription', () => gateway.subscription(subId))
    const schedule = typeof sub.schedule === 'string' ? sub.schedule : (sub.schedule?.id ?? null)
    const answer = (effective: 'now' | 'period_end', at: Date) => ({
      tier,
      term,
      effective,
      effective_at: at.toISOString(),
    })
    if (tier === account.tier && term === account.term) {
      // Back to the plan it is on: a waiting downgrade is dropped; with none, there is nothing to do.
      if (!schedule) throw fail('conflict', `The workspace is already on ${tier}, billed each ${term}.`)
      await provider(log, 'release', () => gateway.release(schedule))
      await provider(log, 'subscription', () => events.refresh(workspaceId))
      return answer('now', now)
    }
    const priceId = await provider(log, 'price', () => gateway.priceOf(plan, term))
    const current = this.d.plans.find(account.tier ?? '')
    if (monthly(plan, term) > monthly(current, account.term as Term | null)) {
      if (schedule) await provider(log, 'release', () => gateway.release(schedule))
      const key = keyFor('upgrade', workspaceId, requestKey, `${tier}:${term}`)
      await provider(log, 'upgrade', () => gateway.upgrade(sub, priceId, meta, key))
      // Applied now, from Stripe's state after the update; its webhook then finds nothing to change.
      await provider(log, 'subscription', () => events.refresh(workspaceId))
      return answer('now', now)
    }
    const scheduled = await provider(log, 'downgrade', () => gateway.downgrade(sub, priceId, meta))
    await provider(log, 'subscription', () => events.refresh(workspaceId))
    // The phase just set last (a schedule keeps its past phases before the current one).
    const at = scheduled.phases.at(-1)?.start_date
    return answer('period_end', at ? new Date(at * 1000) : now)
  }

  /** A billing portal session for the workspace's customer. */
  async portal(workspaceId: string): Promise<{ url: string }> {
    const { gateway } = this.ensureEnabled()
    const account = await this.d.repo.byWorkspace(workspaceId)
    if (!account) throw fail('no_billing_account')
    const url = await provider(this.d.log, 'portal', () =>
      gateway.portal(account.customerId, `${this.d.baseUrl}/console/plan`),
    )
    return { url }
  }

  /**
   * Verifies and applies a webhook event. A bad or absent signature is refused (400
   * `invalid_signature`, nothing written); an event seen before and not failed is not applied
   * again; a handler that fails is recorded as failed and retried when Stripe sends it again.
   */
  async receive(payload: Uint8Array, signature: string | null): Promise<{ outcome: EventOutcome }> {
    const { gateway, events } = this.ensureEnabled()
    if (!signature) throw fail('invalid_signature', 'The Stripe-Signature header is missing.')
    const event = await gateway.verify(payload, signature, this.d.clock.now().getTime()).catch(() => {
      throw fail('invalid_signature')
    })
    // Stripe's events always carry both; a signed body without them is not one to record.
    if (typeof event.id !== 'string' || typeof event.type !== 'string') {
      throw fail('bad_request', 'The signed body is not a Stripe event (no id or type).')
    }
    const seen = await this.d.repo.event(event.id)
    if (seen && seen.outcome !== 'failed') return { outcome: seen.outcome as EventOutcome }
    const receivedAt = this.d.clock.now().getTime()
    const record = { eventId: event.id, type: event.type, receivedAt }
    try {
      const { outcome, workspaceId } = await events.apply(event)
      await this.d.store.unit(() => this.d.repo.recordEvent({ ...record, workspaceId, outcome, error: null }))
      return { outcome }
    } catch (e) {
      // Another process holds the customer: answered 409 with nothing written, so Stripe sends it again.
      if (e instanceof ApiError && e.code === 'billing_in_progress') throw e
      const error = (e as Error).message.slice(0, 500)
      this.d.log.warn('billing event failed', { event_id: event.id, type: event.type, error })
      await this.d.store.unit(() =>
        this.d.repo.recordEvent({ ...record, workspaceId: null, outcome: 'failed', error }),
      )
      return { outcome: 'failed' }
    }
  }
}
