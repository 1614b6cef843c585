// Events: each change becomes an `event` object whose JSON body is kept byte for byte, signed with
// the SDK's own helper (`Stripe-Signature: t=...,v1=...`) and POSTed to the webhook endpoint —
// awaited when it happens, or queued for the test to deliver, twice or tampered if it likes.
import Stripe from 'stripe'
import { snapshot, stripeId } from './stripe-store'
import type { StripeEvent } from './stripe-types'

/** An event as made: its id, type and the exact body sent. */
export interface MadeEvent {
  id: string
  type: string
  payload: string
}

/** One delivery attempt: the HTTP status, or the error when nothing answered. */
export interface Delivery {
  eventId: string
  url: string
  status: number | null
  error: string | null
}

export const API_VERSION = '2026-10-28.endive'

/** The event log and its deliveries. */
export class StripeEvents {
  readonly events: MadeEvent[] = []
  readonly deliveries: Delivery[] = []
  url: string | null = null
  autoDeliver = true

  constructor(
    private readonly secret: string,
    private readonly clock: () => number,
    /** The time signatures carry, epoch seconds. */
    private readonly signedAt: () => number,
  ) {}

  /** Records the event and, when auto-delivering to a known endpoint, delivers it (awaited). */
  async emit(type: string, object: unknown, previous?: Record<string, unknown>): Promise<void> {
    const event: StripeEvent = {
      id: stripeId('evt'),
      object: 'event',
      api_version: API_VERSION,
      created: this.clock(),
      type,
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      data: previous
        ? { object: snapshot(object), previous_attributes: snapshot(previous) }
        : { object: snapshot(object) },
    }
    this.events.push({ id: event.id, type, payload: JSON.stringify(event, null, 2) })
    if (this.autoDeliver && this.url) await this.deliver(event.id)
  }

  /** POSTs one event to the endpoint with a real signature (or the one given); never throws for the network. */
  async deliver(eventId: string, opts: { signature?: string } = {}): Promise<Response> {
    const event = this.events.find((e) => e.id === eventId)
    if (!event) throw new Error(`no event ${eventId}`)
    if (!this.url) throw new Error('deliverTo(url) was not called')
    const signature =
      opts.signature ??
      (await Stripe.webhooks.generateTestHeaderStringAsync({
        payload: event.payload,
        secret: this.secret,
        timestamp: this.signedAt(),
      }))
    const url = this.url
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'stripe-signature': signature,
          'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
        },
        body: event.payload,
      })
      await res.clone().arrayBuffer()
      this.deliveries.push({ eventId, url, status: res.status, error: null })
      return res
    } catch (e) {
      this.deliveries.push({ eventId, url, status: null, error: String(e) })
      return Response.error()
    }
  }

  /** Delivers, in order, every event never delivered (those queued while autoDeliver was false). */
  async deliverPending(): Promise<void> {
    for (const e of this.events) {
      if (!this.deliveries.some((d) => d.eventId === e.id)) await this.deliver(e.id)
    }
  }
}
