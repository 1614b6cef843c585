// The Stripe stand-in answers the unchanged `stripe` SDK as Stripe would, and signs the events it
// POSTs so that the SDK's own verification accepts them (and refuses a tampered body).
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import Stripe from 'stripe'
import { type StripeStandin, startStripeStandin } from '../helpers/stripe-standin'

const START = Date.UTC(2026, 0, 15, 12) / 1000 // 2026-01-15T12:00:00Z

let standin: StripeStandin
let stripe: Stripe
let receiver: ReturnType<typeof Bun.serve>
/** What the receiver got: each body, its signature header, and the SDK's verdict on them. */
const received: {
  type: string
  event: Stripe.Event | null
  body: string
  signature: string
  error: string | null
}[] = []

const client = (key: string) =>
  new Stripe(key, {
    host: '127.0.0.1',
    port: new URL(standin.url).port,
    protocol: 'http',
    httpClient: Stripe.createFetchHttpClient(),
    maxNetworkRetries: 0,
  })

beforeAll(async () => {
  standin = await startStripeStandin({ now: START })
  stripe = client(standin.secretKey)
  receiver = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: async (req) => {
      const body = await req.text()
      const signature = req.headers.get('stripe-signature') ?? ''
      try {
        const event = await stripe.webhooks.constructEventAsync(body, signature, standin.webhookSecret)
        received.push({ type: event.type, event, body, signature, error: null })
        return new Response('ok')
      } catch (e) {
        received.push({ type: '?', event: null, body, signature, error: (e as Error).constructor.name })
        return new Response('bad signature', { status: 400 })
      }
    },
  })
  standin.deliverTo(`http://127.0.0.1:${receiver.port}/billing/webhook`)
})

afterAll(async () => {
  await receiver.stop(true)
  await standin.close()
})

afterEach(() => {
  standin.autoDeliver = true
})

/** A monthly price found by lookup key, made (with its product) when missing, as an integration does. */
async function priceFor(lookupKey: string, amount: number, interval: 'month' | 'year' = 'month') {
  const found = await stripe.prices.list({ lookup_keys: [lookupKey], active: true })
  if (found.data[0]) return found.data[0]
  const product = await stripe.products.create({ name: `Engram ${lookupKey}` })
  return stripe.prices.create({
    product: product.id,
    unit_amount: amount,
    currency: 'eur',
    recurring: { interval },
    lookup_key: lookupKey,
    metadata: { plan: lookupKey },
  })
}

/** A customer who checked out `price`, with the subscription made. */
async function subscribed(price: string, opts: { trialDays?: number } = {}) {
  const customer = await stripe.customers.create({ email: 'a@example.test', metadata: { ws: 'ws_1' } })
  const session = await stripe.checkout.sessions.create({
    mode: 'subscription',
    customer: customer.id,
    client_reference_id: 'ws_1',
    line_items: [{ price, quantity: 1 }],
    success_url: 'https://engram.test/billing?ok=1',
    cancel_url: 'https://engram.test/billing',
    metadata: { ws: 'ws_1' },
    subscription_data: { metadata: { ws: 'ws_1' } },
  })
  const sub = await standin.completeCheckout(session.id, opts)
  return { customer, session, sub }
}

describe('Stripe stand-in: catalogue and checkout', () => {
  test('customers are made and read back; a missing one is the SDK 404 StripeInvalidRequestError', async () => {
    const c = await stripe.customers.create({ email: 'x@example.test', name: 'X', metadata: { ws: 'w1' } })
    expect(c).toMatchObject({
      object: 'customer',
      email: 'x@example.test',
      name: 'X',
      metadata: { ws: 'w1' },
    })
    expect(c.id).toMatch(/^cus_/)
    expect((await stripe.customers.retrieve(c.id)).id).toBe(c.id)
    const err = await stripe.customers.retrieve('cus_missing').catch((e) => e)
    expect(err).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)
    expect(err).toMatchObject({
      statusCode: 404,
      type: 'StripeInvalidRequestError',
      code: 'resource_missing',
      param: 'id',
      message: "No such customer: 'cus_missing'",
    })
  })

  test('a wrong secret key is the SDK StripeAuthenticationError, and nothing is made', async () => {
    const before = (await stripe.prices.list({ lookup_keys: ['never'] })).data.length
    const err = await client('sk_test_wrong')
      .prices.create({ product: 'p', unit_amount: 1, currency: 'eur', lookup_key: 'never' })
      .catch((e) => e)
    expect(err).toBeInstanceOf(Stripe.errors.StripeAuthenticationError)
    expect(err.statusCode).toBe(401)
    expect((await stripe.prices.list({ lookup_keys: ['never'] })).data.length).toBe(before)
  })

  test('a price is found by its lookup key once made; the same key again is refused', async () => {
    const made = await priceFor('team_monthly', 2900)
    expect(made).toMatchObject({
      object: 'price',
      unit_amount: 2900,
      currency: 'eur',
      type: 'recurring',
      lookup_key: 'team_monthly',
      recurring: { interval: 'month', interval_count: 1 },
      metadata: { plan: 'team_monthly' },
    })
    const again = await priceFor('team_monthly', 2900)
    expect(again.id).toBe(made.id)
    const list = await stripe.prices.list({ lookup_keys: ['team_monthly', 'nope'] })
    expect(list).toMatchObject({ object: 'list', has_more: false, url: '/v1/prices' })
    expect(list.data.map((p) => p.id)).toEqual([made.id])
    const err = await stripe.prices
      .create({
        product: made.product as string,
        unit_amount: 1,
        currency: 'eur',
        lookup_key: 'team_monthly',
      })
      .catch((e) => e)
    expect(err).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)
    expect(err).toMatchObject({ statusCode: 400, param: 'lookup_key' })
  })

  test('the same Idempotency-Key answers the same object; with other parameters it is refused', async () => {
    const a = await stripe.customers.create({ email: 'i@example.test' }, { idempotencyKey: 'k-1' })
    const b = await stripe.customers.create({ email: 'i@example.test' }, { idempotencyKey: 'k-1' })
    expect(b.id).toBe(a.id)
    const err = await stripe.customers
      .create({ email: 'j@example.test' }, { idempotencyKey: 'k-1' })
      .catch((e) => e)
    expect(err).toBeInstanceOf(Stripe.errors.StripeIdempotencyError)
    const recorded = standin.requests.filter((r) => r.idempotencyKey === 'k-1')
    expect(recorded.map((r) => r.body.email)).toEqual(['i@example.test', 'i@example.test', 'j@example.test'])
  })

  test('a checkout session with price_data; completing it subscribes and delivers three signed events', async () => {
    const customer = await stripe.customers.create({ email: 'c@example.test' })
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      customer: customer.id,
      client_reference_id: 'ws_9',
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: 'eur',
            unit_amount: 4900,
            recurring: { interval: 'month' },
            product_data: { name: 'Business' },
          },
        },
      ],
      success_url: 'https://engram.test/ok',
      cancel_url: 'https://engram.test/cancel',
      metadata: { ws: 'ws_9' },
      subscription_data: { metadata: { ws: 'ws_9' }, trial_period_days: 14 },
      payment_method_collection: 'if_required',
    })
    expect(session).toMatchObject({
      object: 'checkout.session',
      mode: 'subscription',
      status: 'open',
      customer: customer.id,
      client_reference_id: 'ws_9',
      subscription: null,
      metadata: { ws: 'ws_9' },
      payment_method_collection: 'if_required',
    })
    expect(session.id).toMatch(/^cs_test_/)
    expect(session.url).toBe(`${standin.url}/checkout/${session.id}`)
    expect((await fetch(session.url!)).status).toBe(200)

    const from = received.length
    const sub = await standin.completeCheckout(session.id)
    expect(sub).toMatchObject({ status: 'trialing', trial_start: START, trial_end: START + 14 * 86400 })
    const events = received.slice(from)
    expect(events.map((e) => [e.type, e.error])).toEqual([
      ['checkout.session.completed', null],
      ['customer.subscription.created', null],
      ['invoice.paid', null],
    ])
    const completed = events[0]!.event!.data.object as Stripe.Checkout.Session
    expect(completed).toMatchObject({
      id: session.id,
      status: 'complete',
      subscription: sub.id,
      customer: customer.id,
    })
    expect(events[0]!.event).toMatchObject({
      object: 'event',
      livemode: false,
      created: START,
      pending_webhooks: 1,
    })
    expect(events[0]!.body).toBe(standin.events.find((e) => e.id === events[0]!.event!.id)!.payload)

    const read = await stripe.subscriptions.retrieve(sub.id)
    expect(read).toMatchObject({
      object: 'subscription',
      customer: customer.id,
      status: 'trialing',
      metadata: { ws: 'ws_9' },
    })
    expect(read.items.data[0]).toMatchObject({
      object: 'subscription_item',
      current_period_start: START,
      current_period_end: START + 14 * 86400,
      price: { unit_amount: 4900, active: false, recurring: { interval: 'month' } },
    })
    const got = await stripe.checkout.sessions.retrieve(session.id, {
      expand: ['subscription', 'line_items'],
    })
    expect((got.subscription as Stripe.Subscription).id).toBe(sub.id)
    expect(got.line_items!.data[0]).toMatchObject({ object: 'item', amount_total: 4900, quantity: 1 })
  })

  test('a tampered payload, or a signature by another secret, fails the SDK verification', async () => {
    const { session } = await subscribed((await priceFor('team_monthly', 2900)).id)
    const event = standin.events.find(
      (e) => e.type === 'checkout.session.completed' && e.payload.includes(session.id),
    )!
    const header = await stripe.webhooks.generateTestHeaderStringAsync({
      payload: event.payload,
      secret: standin.webhookSecret,
    })
    const tampered = event.payload.replace('"complete"', '"open"')
    await expect(
      stripe.webhooks.constructEventAsync(tampered, header, standin.webhookSecret),
    ).rejects.toBeInstanceOf(Stripe.errors.StripeSignatureVerificationError)
    const from = received.length
    const forged = await stripe.webhooks.generateTestHeaderStringAsync({
      payload: event.payload,
      secret: 'whsec_other',
    })
    const res = await standin.deliver(event.id, { signature: forged })
    expect(res.status).toBe(400)
    expect(received.slice(from).map((r) => r.error)).toEqual(['StripeSignatureVerificationError'])
    expect((await standin.deliver(event.id)).status).toBe(200)
  })

  test('with autoDeliver off events queue until delivered; a dead endpoint is recorded, not thrown', async () => {
    standin.autoDeliver = false
    const from = received.length
    const { sub } = await subscribed((await priceFor('team_monthly', 2900)).id)
    expect(received.length).toBe(from)
    const queued = standin.events.slice(-3)
    expect(queued.map((e) => e.type)).toEqual([
      'checkout.session.completed',
      'customer.subscription.created',
      'invoice.paid',
    ])
    await standin.deliverPending()
    expect(received.slice(from).map((r) => r.type)).toEqual(queued.map((e) => e.type))
    expect(JSON.parse(queued[1]!.payload).data.object.id).toBe(sub.id)

    const dead = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('') })
    const deadUrl = `http://127.0.0.1:${dead.port}/hook`
    await dead.stop(true)
    standin.deliverTo(deadUrl)
    const res = await standin.deliver(queued[0]!.id)
    expect(res.type).toBe('error')
    expect(standin.deliveries.at(-1)).toMatchObject({ eventId: queued[0]!.id, url: deadUrl, status: null })
    standin.deliverTo(`http://127.0.0.1:${receiver.port}/billing/webhook`)
  })
})
