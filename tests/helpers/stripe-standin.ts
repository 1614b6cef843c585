// A local Stripe on loopback that the unchanged `stripe` SDK talks to (point it here with
// `new Stripe(secretKey, { host: '127.0.0.1', port, protocol: 'http', httpClient:
// Stripe.createFetchHttpClient() })`, or the app with ENGRAM_STRIPE_API_BASE = `url`). It keeps
// customers, products, prices, checkout sessions, portal sessions, subscriptions, schedules and
// invoices; a test completes checkouts and moves its clock (renewals, phase changes, cancellations at
// period end, failed payments), and every change becomes an event signed with the webhook secret
// and POSTed to the endpoint given to deliverTo. Objects and signatures carry the stand-in's clock,
// so that an app verifying with the same injected clock accepts them after advanceTo (Stripe signs
// at wall-clock time even for test clocks: pass `signedAt: () => Date.now() / 1000` for that).
import { randomBytes } from 'node:crypto'
import { completeCheckout } from './standins/stripe-checkout'
import { advanceTo, failNextPayment } from './standins/stripe-clock'
import { type Delivery, StripeEvents } from './standins/stripe-events'
import { type RecordedRequest, stripeHttp } from './standins/stripe-http'
import { STRIPE_ROUTES } from './standins/stripe-routes'
import { StripeStore, snapshot } from './standins/stripe-store'
import type { StripeSubscription } from './standins/stripe-types'

export type {
  StripeCheckoutSession,
  StripeCustomer,
  StripeInvoice,
  StripePrice,
  StripeSubscription,
  StripeSubscriptionSchedule,
} from './standins/stripe-types'

/** What a test holds of the running stand-in. */
export interface StripeStandin {
  /** http://127.0.0.1:PORT (the app's ENGRAM_STRIPE_API_BASE). */
  url: string
  /** The `sk_test_...` key it accepts (anything else: Stripe's 401). */
  secretKey: string
  /** The `whsec_...` secret it signs events with. */
  webhookSecret: string
  /** Where events are POSTed (the app's /billing/webhook). */
  deliverTo(url: string): void
  /** True (the default): each event is delivered, awaited, when it happens; false: queued. */
  autoDeliver: boolean
  /** Every event made, in order (payload = the exact JSON body). */
  events: { id: string; type: string; payload: string }[]
  /** Every delivery attempt, in order (status null when nothing answered). */
  deliveries: Delivery[]
  /** (Re)delivers one event, with a real signature unless one is given. */
  deliver(eventId: string, opts?: { signature?: string }): Promise<Response>
  /** Delivers, in order, the events never delivered (queued while autoDeliver was false). */
  deliverPending(): Promise<void>
  /** Every API request received, in order (GET: the decoded query as body). */
  requests: RecordedRequest[]
  /** The stand-in's clock, epoch seconds (a test clock: it moves only by advanceTo). */
  now(): number
  /** Completes a checkout as a paying customer would (trialDays overrides the session's trial); a copy. */
  completeCheckout(sessionId: string, opts?: { trialDays?: number }): Promise<StripeSubscription>
  /** Moves the clock: schedule phase changes, renewals (new period, invoice), cancels at period end. */
  advanceTo(epochSeconds: number): Promise<void>
  /** The subscription's next renewal fails: status past_due, invoice.payment_failed. */
  failNextPayment(subscriptionId: string): void
  /** A copy of the subscription as it is now. */
  subscription(id: string): StripeSubscription | undefined
  close(): Promise<void>
}

/** Options: the clock to start at (epoch seconds; default now) and the time signatures carry (default: that clock). */
export interface StripeStandinOptions {
  now?: number
  signedAt?: () => number
}

/** Starts the stand-in on 127.0.0.1 and a free port. */
export async function startStripeStandin(opts: StripeStandinOptions = {}): Promise<StripeStandin> {
  const secretKey = `sk_test_standin${randomBytes(16).toString('hex')}`
  const webhookSecret = `whsec_${randomBytes(24).toString('base64url')}`
  const store: StripeStore = new StripeStore(
    opts.now ?? Math.floor(Date.now() / 1000),
    (type, object, previous) => events.emit(type, object, previous),
  )
  const events = new StripeEvents(webhookSecret, () => store.clock, opts.signedAt ?? (() => store.clock))
  const requests: RecordedRequest[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: stripeHttp(store, secretKey, STRIPE_ROUTES, requests),
  })
  const url = `http://127.0.0.1:${server.port}`
  store.base = url
  return {
    url,
    secretKey,
    webhookSecret,
    deliverTo: (to) => {
      events.url = to
    },
    get autoDeliver() {
      return events.autoDeliver
    },
    set autoDeliver(v: boolean) {
      events.autoDeliver = v
    },
    events: events.events,
    deliveries: events.deliveries,
    deliver: (id, o) => events.deliver(id, o),
    deliverPending: () => events.deliverPending(),
    requests,
    now: () => store.clock,
    completeCheckout: async (id, o) => snapshot(await completeCheckout(store, id, o)),
    advanceTo: (t) => advanceTo(store, t),
    failNextPayment: (id) => failNextPayment(store, id),
    subscription: (id) => {
      const sub = store.subscriptions.get(id)
      return sub && snapshot(sub)
    },
    close: async () => {
      await server.stop(true)
    },
  }
}
