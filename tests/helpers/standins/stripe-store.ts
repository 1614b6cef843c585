// The stand-in's state: its objects by id, its test clock, and the hook through which every change
// becomes an event. Handlers throw StripeFail for a refused request; the HTTP layer turns it into
// Stripe's error body, and nothing has been written by then (handlers validate before they write).
import { randomBytes } from 'node:crypto'
import type {
  StripeCheckoutSession,
  StripeCustomer,
  StripeInvoice,
  StripeInvoiceLine,
  StripePortalSession,
  StripePrice,
  StripeProduct,
  StripeRecurring,
  StripeSubscription,
  StripeSubscriptionSchedule,
} from './stripe-types'

/** A refused request, in the terms of Stripe's error body. */
export class StripeFail extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
    readonly code: string | null = null,
    readonly type = 'invalid_request_error',
  ) {
    super(message)
  }
}

/** What a checkout session will subscribe to, kept beside the session (Stripe does not echo it). */
export interface SessionPlan {
  items: { price: string; quantity: number }[]
  subscriptionMetadata: Record<string, string>
  trialDays: number | null
}

/** What the stand-in tracks of a subscription beyond its object. */
export interface SubscriptionBook {
  failNext: boolean
  /** Proration lines waiting for the next invoice (proration_behavior=create_prorations). */
  pending: StripeInvoiceLine[]
}

/** Emits one event: the object is snapshotted as it is now. */
export type Emit = (type: string, object: unknown, previous?: Record<string, unknown>) => Promise<void>

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** A Stripe-style id: the prefix and 24 random characters from a CSPRNG. */
export function stripeId(prefix: string): string {
  return `${prefix}_${[...randomBytes(24)].map((b) => ALPHABET[b % ALPHABET.length]).join('')}`
}

/** The stand-in's objects and clock. */
export class StripeStore {
  base = ''
  clock: number
  customers = new Map<string, StripeCustomer>()
  products = new Map<string, StripeProduct>()
  prices = new Map<string, StripePrice>()
  sessions = new Map<string, StripeCheckoutSession>()
  plans = new Map<string, SessionPlan>()
  portals = new Map<string, StripePortalSession>()
  subscriptions = new Map<string, StripeSubscription>()
  books = new Map<string, SubscriptionBook>()
  schedules = new Map<string, StripeSubscriptionSchedule>()
  invoices = new Map<string, StripeInvoice>()
  invoiceCount = 0

  constructor(
    now: number,
    readonly emit: Emit,
  ) {
    this.clock = now
  }

  /** The object of that kind with that id, or Stripe's 404 `resource_missing`. */
  find<T>(map: Map<string, T>, id: string, noun: string, param = 'id'): T {
    const found = map.get(id)
    if (!found) throw new StripeFail(404, `No such ${noun}: '${id}'`, param, 'resource_missing')
    return found
  }

  /** A price that exists, or the 400 Stripe answers when a parameter names a missing one. */
  price(id: string, param: string): StripePrice {
    const p = this.prices.get(id)
    if (!p) throw new StripeFail(400, `No such price: '${id}'`, param, 'resource_missing')
    return p
  }

  book(subscriptionId: string): SubscriptionBook {
    let b = this.books.get(subscriptionId)
    if (!b) {
      b = { failNext: false, pending: [] }
      this.books.set(subscriptionId, b)
    }
    return b
  }
}

/** The end of `n` billing intervals after `anchor`, keeping the anchor's day of month (clamped). */
export function addInterval(anchor: number, r: Pick<StripeRecurring, 'interval' | 'interval_count'>, n = 1) {
  const steps = r.interval_count * n
  if (r.interval === 'day') return anchor + steps * 86400
  if (r.interval === 'week') return anchor + steps * 7 * 86400
  const d = new Date(anchor * 1000)
  const months = d.getUTCMonth() + (r.interval === 'year' ? 12 * steps : steps)
  const year = d.getUTCFullYear() + Math.floor(months / 12)
  const month = months % 12
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate()
  const t = Date.UTC(
    year,
    month,
    Math.min(d.getUTCDate(), last),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
  )
  return Math.floor(t / 1000)
}

/** A deep copy, so that an event or a previous_attributes keeps the state it was taken in. */
export function snapshot<T>(v: T): T {
  return structuredClone(v)
}
