// The only file that speaks to Stripe (the `stripe` SDK): customers, prices by lookup key,
// checkout and portal sessions, subscription updates and schedules, and webhook signatures; and how
// the service wraps its calls (failures as 502, idempotency keys derived from the caller's).
import type Stripe from 'stripe'
import { sha256Hex } from '../../platform/crypto/hash'
import { ApiError, fail } from '../../platform/errors/errors'
import type { Logger } from '../../platform/log/log'
import type { PlanDef } from '../plans/plans.schemas'

/** A billing term: what a price recurs by. */
export type Term = 'month' | 'year'

/** The subscription as billing reads it back: Stripe's object. */
export type StripeSubscription = Stripe.Subscription

/** A verified webhook event. */
export type StripeEvent = Stripe.Event

/** A subscription schedule. */
export type StripeSchedule = Stripe.SubscriptionSchedule

/** The lookup key of a plan's price for a term: `engram_<plan>_<term>`. */
export function lookupKey(planId: string, term: Term): string {
  return `engram_${planId}_${term}`
}

/** The plan and term a lookup key names, or null when it is not one of ours. */
export function parseLookupKey(key: string | null | undefined): { tier: string; term: Term } | null {
  const m = /^engram_(.+)_(month|year)$/.exec(key ?? '')
  return m ? { tier: m[1] as string, term: m[2] as Term } : null
}

/** What the gateway is configured with (config `billing`). */
export interface StripeSettings {
  secretKey: string
  webhookSecret: string
  /** Another API base (a stand-in in tests); Stripe's own when null. */
  apiBase: string | null
}

/** The SDK's host, port and protocol for an API base URL. */
function endpointOf(apiBase: string | null): { host?: string; port?: number; protocol?: 'http' | 'https' } {
  if (!apiBase) return {}
  const u = new URL(apiBase)
  const protocol = u.protocol === 'http:' ? 'http' : 'https'
  return { host: u.hostname, port: Number(u.port || (protocol === 'http' ? 80 : 443)), protocol }
}

/**
 * Stripe, as billing needs it. Prices are found by lookup key and created (with their product)
 * the first time a plan and term is sold; the ids are cached for the process's life.
 */
export class StripeGateway {
  private client: Promise<Stripe> | null = null
  private readonly prices = new Map<string, Promise<string>>()

  constructor(private readonly s: StripeSettings) {}

  /** The SDK's client, made at the first call: the SDK is loaded then, not by a server that never bills. */
  private get stripe(): Promise<Stripe> {
    this.client ??= import('stripe').then(
      ({ default: Sdk }) =>
        new Sdk(this.s.secretKey, {
          httpClient: Sdk.createFetchHttpClient(),
          maxNetworkRetries: 2,
          timeout: 20_000,
          ...endpointOf(this.s.apiBase),
        }),
    )
    return this.client
  }

  /**
   * Verifies a webhook's `Stripe-Signature` (SubtleCrypto, as Bun has it) and answers its event. A
   * signature older than Stripe's tolerance (5 minutes) at `nowMs` is refused: a replay.
   */
  async verify(payload: string | Uint8Array, signature: string, nowMs: number): Promise<StripeEvent> {
    return (await this.stripe).webhooks.constructEventAsync(
      payload,
      signature,
      this.s.webhookSecret,
      undefined,
      undefined,
      nowMs,
    )
  }

  /** Creates the workspace's customer; the key makes a repeated call answer the same customer. */
  async createCustomer(workspaceId: string, name: string): Promise<string> {
    const customer = await (await this.stripe).customers.create(
      { name, metadata: { workspace_id: workspaceId } },
      { idempotencyKey: `engram-customer-${workspaceId}` },
    )
    return customer.id
  }

  /** The price id of a plan for a term, created with a product when Stripe has none. */
  priceOf(plan: PlanDef, term: Term): Promise<string> {
    const key = lookupKey(plan.id, term)
    let found = this.prices.get(key)
    if (!found) {
      found = this.findOrCreatePrice(plan, term, key)
      // A failure is not cached: the next sale asks again.
      found.catch(() => this.prices.delete(key))
      this.prices.set(key, found)
    }
    return found
  }

  private async findOrCreatePrice(plan: PlanDef, term: Term, key: string): Promise<string> {
    const listed = await (await this.stripe).prices.list({ lookup_keys: [key], active: true, limit: 1 })
    const existing = listed.data[0]
    if (existing) return existing.id
    const product = await (await this.stripe).products.create(
      { name: `Engram ${plan.name}`, metadata: { plan: plan.id } },
      { idempotencyKey: `engram-product-${key}` },
    )
    const price = await (await this.stripe).prices.create(
      {
        product: product.id,
        currency: plan.prices.currency,
        unit_amount: Math.round(plan.prices[term] * 100),
        recurring: { interval: term },
        lookup_key: key,
        metadata: { plan: plan.id, term },
      },
      { idempotencyKey: `engram-price-${key}` },
    )
    return price.id
  }

  /** A hosted checkout for a subscription; the card is always collected. */
  async checkout(o: {
    customerId: string
    workspaceId: string
    priceId: string
    tier: string
    term: Term
    successUrl: string
    cancelUrl: string
    idempotencyKey?: string
  }): Promise<{ id: string; url: string }> {
    const metadata = { workspace_id: o.workspaceId, tier: o.tier, term: o.term }
    const session = await (await this.stripe).checkout.sessions.create(
      {
        mode: 'subscription',
        customer: o.customerId,
        client_reference_id: o.workspaceId,
        line_items: [{ price: o.priceId, quantity: 1 }],
        metadata,
        subscription_data: { metadata },
        payment_method_collection: 'always',
        success_url: o.successUrl,
        cancel_url: o.cancelUrl,
      },
      o.idempotencyKey ? { idempotencyKey: o.idempotencyKey } : undefined,
    )
    return { id: session.id, url: session.url ?? '' }
  }

  /** Whether a checkout session is still open, completed (then with its subscription) or expired. */
  async checkoutState(
    id: string,
  ): Promise<{ status: 'open' | 'complete' | 'expired'; subscription: string | null }> {
    const session = await (await this.stripe).checkout.sessions.retrieve(id)
    const sub = session.subscription
    const subscription = typeof sub === 'string' ? sub : (sub?.id ?? null)
    if (session.status === 'open') return { status: 'open', subscription }
    return { status: session.status === 'complete' ? 'complete' : 'expired', subscription }
  }

  /** Expires an open checkout session: it can no longer be paid. */
  async expireCheckout(id: string): Promise<void> {
    await (await this.stripe).checkout.sessions.expire(id)
  }

  /** A billing portal session's URL. */
  async portal(customerId: string, returnUrl: string): Promise<string> {
    const session = await (await this.stripe).billingPortal.sessions.create({
      customer: customerId,
      return_url: returnUrl,
    })
    return session.url
  }

  /** The subscription as Stripe holds it now. */
  async subscription(id: string): Promise<StripeSubscription> {
    return (await this.stripe).subscriptions.retrieve(id)
  }

  /** A subscription schedule. */
  async schedule(id: string): Promise<StripeSchedule> {
    return (await this.stripe).subscriptionSchedules.retrieve(id)
  }

  /** Moves the subscription's item to another price now, invoicing the prorated difference at once. */
  async upgrade(sub: StripeSubscription, priceId: string, meta: Record<string, string>, key?: string) {
    const item = sub.items.data[0] as Stripe.SubscriptionItem
    return (await this.stripe).subscriptions.update(
      sub.id,
      {
        items: [{ id: item.id, price: priceId }],
        proration_behavior: 'always_invoice',
        metadata: meta,
      },
      key ? { idempotencyKey: key } : undefined,
    )
  }

  /** Releases a schedule: the subscription goes on as it is, with no phase waiting. */
  async release(scheduleId: string): Promise<void> {
    await (await this.stripe).subscriptionSchedules.release(scheduleId)
  }

  /**
   * Schedules the subscription's move to another price at the end of the current period: a
   * schedule taken from the subscription (or its existing one) with two phases, the current one
   * unchanged until its end, then the new price; released once the last phase starts.
   */
  async downgrade(sub: StripeSubscription, priceId: string, meta: Record<string, string>) {
    const scheduleId = typeof sub.schedule === 'string' ? sub.schedule : sub.schedule?.id
    const schedule = scheduleId
      ? await this.schedule(scheduleId)
      : await (await this.stripe).subscriptionSchedules.create({ from_subscription: sub.id })
    const item = sub.items.data[0] as Stripe.SubscriptionItem
    const start = schedule.current_phase?.start_date ?? item.current_period_start
    const end = schedule.current_phase?.end_date ?? item.current_period_end
    return (await this.stripe).subscriptionSchedules.update(schedule.id, {
      end_behavior: 'release',
      phases: [
        { items: [{ price: item.price.id, quantity: item.quantity ?? 1 }], start_date: start, end_date: end },
        { items: [{ price: priceId, quantity: 1 }], start_date: end, metadata: meta },
      ],
    })
  }
}

/** Runs a call to Stripe; its failures answer 502 `payment_provider_failed` (and are logged). */
export async function provider<T>(log: Logger, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (e) {
    if (e instanceof ApiError) throw e
    log.warn('stripe call failed', { call: what, error: (e as Error).message })
    throw fail('payment_provider_failed')
  }
}

/** An idempotency key for Stripe derived from the caller's own key, so a retried request reuses it. */
export function keyFor(
  what: string,
  workspaceId: string,
  requestKey: string | null,
  body: string,
): string | undefined {
  if (!requestKey) return undefined
  return `engram-${what}-${sha256Hex(`${workspaceId}\n${requestKey}\n${body}`)}`
}
