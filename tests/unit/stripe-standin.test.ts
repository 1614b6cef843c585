// The Stripe stand-in answers the unchanged `stripe` SDK as Stripe would, and signs the events it
// POSTs so that the SDK's own verification accepts them (and refuses a tampered body).
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import Stripe from 'stripe'
import { addInterval } from '../helpers/standins/stripe-store'
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
        // Signed at the stand-in's clock: verified as an app with the same injected clock would.
        const event = await stripe.webhooks.constructEventAsync(
          body,
          signature,
          standin.webhookSecret,
          undefined,
          undefined,
          standin.now(),
        )
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
      url: null,
      customer_details: { email: 'c@example.test' },
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

const DAY = 86400

/** The events the receiver verified about one subscription (its own, its invoices', its schedule's). */
function eventsOf(subId: string, from = 0) {
  return received.slice(from).filter((r) => {
    const o = r.event?.data.object as unknown as Record<string, unknown>
    const parent = o.parent as { subscription_details?: { subscription?: string } } | null
    return (
      o.id === subId ||
      o.subscription === subId ||
      o.released_subscription === subId ||
      parent?.subscription_details?.subscription === subId
    )
  })
}

describe('Stripe stand-in: subscriptions over time', () => {
  test('an upgrade with always_invoice bills the unused time as two proration lines, paid at once', async () => {
    const team = await priceFor('team_monthly', 2900)
    const business = await priceFor('business_monthly', 9900)
    const { sub } = await subscribed(team.id)
    const item = sub.items.data[0]!
    const periodEnd = item.current_period_end
    const at = item.current_period_start + 10 * DAY
    await standin.advanceTo(at)
    const from = received.length
    const updated = await stripe.subscriptions.update(sub.id, {
      items: [{ id: item.id, price: business.id }],
      proration_behavior: 'always_invoice',
      metadata: { tier: 'business' },
    })
    expect(updated.items.data[0]).toMatchObject({
      id: item.id,
      price: { id: business.id },
      current_period_end: periodEnd,
    })
    expect(updated.metadata).toEqual({ ws: 'ws_1', tier: 'business' })
    const events = eventsOf(sub.id, from)
    expect(events.map((e) => e.type)).toEqual(['customer.subscription.updated', 'invoice.paid'])
    const previous = events[0]!.event!.data.previous_attributes as Partial<Stripe.Subscription>
    expect(previous.items!.data[0]!.price.id).toBe(team.id)
    expect(previous.metadata).toEqual({ ws: 'ws_1' })

    const fraction = (periodEnd - at) / (periodEnd - item.current_period_start)
    const invoices = await stripe.invoices.list({ subscription: sub.id })
    expect(invoices.data.map((i) => i.billing_reason)).toEqual(['subscription_update', 'subscription_create'])
    const invoice = invoices.data[0]!
    expect(invoice).toMatchObject({ object: 'invoice', status: 'paid', customer: sub.customer })
    expect(invoice.lines.data.map((l) => [l.amount, l.parent?.subscription_item_details?.proration])).toEqual(
      [
        [-Math.round(2900 * fraction), true],
        [Math.round(9900 * fraction), true],
      ],
    )
    expect(invoice.lines.data[1]!.pricing?.price_details?.price).toBe(business.id)
    expect(invoice.total).toBe(Math.round(9900 * fraction) - Math.round(2900 * fraction))
    expect(invoice.amount_paid).toBe(invoice.total)
    expect((events[1]!.event!.data.object as Stripe.Invoice).id).toBe(invoice.id)
  })

  test('create_prorations keeps the lines for the renewal invoice; the renewal starts a new period', async () => {
    const team = await priceFor('team_monthly', 2900)
    const business = await priceFor('business_monthly', 9900)
    const { sub } = await subscribed(business.id)
    const item = sub.items.data[0]!
    await standin.advanceTo(standin.now() + 5 * DAY)
    await stripe.subscriptions.update(sub.id, { items: [{ id: item.id, price: team.id }] })
    expect((await stripe.invoices.list({ subscription: sub.id })).data).toHaveLength(1)
    const from = received.length
    await standin.advanceTo(item.current_period_end)
    const renewed = await stripe.subscriptions.retrieve(sub.id)
    const d = new Date(item.current_period_end * 1000)
    const nextMonth =
      Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours()) / 1000
    expect(renewed.items.data[0]).toMatchObject({
      current_period_start: item.current_period_end,
      current_period_end: nextMonth,
    })
    const events = eventsOf(sub.id, from)
    expect(events.map((e) => e.type)).toEqual(['customer.subscription.updated', 'invoice.paid'])
    const invoice = (await stripe.invoices.list({ subscription: sub.id })).data[0]!
    expect(invoice.billing_reason).toBe('subscription_cycle')
    expect(invoice.lines.data.map((l) => l.parent?.subscription_item_details?.proration)).toEqual([
      true,
      true,
      false,
    ])
    expect(invoice.lines.data[2]!.amount).toBe(2900)
  })

  test('a schedule from the subscription, a second phase set, and advanceTo moves the price at the boundary', async () => {
    const team = await priceFor('team_monthly', 2900)
    const business = await priceFor('business_monthly', 9900)
    const { sub } = await subscribed(business.id)
    const item = sub.items.data[0]!
    const schedule = await stripe.subscriptionSchedules.create({ from_subscription: sub.id })
    expect(schedule).toMatchObject({
      object: 'subscription_schedule',
      subscription: sub.id,
      status: 'active',
      current_phase: { start_date: item.current_period_start, end_date: item.current_period_end },
    })
    expect(schedule.phases.map((p) => p.items[0]!.price)).toEqual([business.id])
    expect((await stripe.subscriptions.retrieve(sub.id)).schedule).toBe(schedule.id)
    const again = await stripe.subscriptionSchedules.create({ from_subscription: sub.id }).catch((e) => e)
    expect(again).toMatchObject({ statusCode: 400, param: 'from_subscription' })

    const updated = await stripe.subscriptionSchedules.update(schedule.id, {
      end_behavior: 'release',
      phases: [
        {
          items: [{ price: business.id, quantity: 1 }],
          start_date: item.current_period_start,
          end_date: item.current_period_end,
        },
        {
          items: [{ price: team.id, quantity: 1 }],
          start_date: item.current_period_end,
          metadata: { tier: 'team' },
        },
      ],
    })
    expect(updated.phases.map((p) => [p.items[0]!.price, p.start_date])).toEqual([
      [business.id, item.current_period_start],
      [team.id, item.current_period_end],
    ])
    const bad = await stripe.subscriptionSchedules
      .update(schedule.id, {
        phases: [{ items: [{ price: 'price_missing' }], start_date: item.current_period_start }],
      })
      .catch((e) => e)
    expect(bad).toMatchObject({
      statusCode: 400,
      code: 'resource_missing',
      param: 'phases[0][items][0][price]',
    })
    expect((await stripe.subscriptionSchedules.retrieve(schedule.id)).phases).toHaveLength(2)

    const from = received.length
    await standin.advanceTo(item.current_period_end + 60)
    const moved = await stripe.subscriptions.retrieve(sub.id)
    expect(moved.items.data[0]!.price.id).toBe(team.id)
    expect(moved.items.data[0]!.current_period_start).toBe(item.current_period_end)
    expect(moved.metadata).toEqual({ ws: 'ws_1', tier: 'team' })
    expect(eventsOf(sub.id, from).map((e) => e.type)).toEqual([
      'customer.subscription.updated',
      'subscription_schedule.updated',
      'customer.subscription.updated',
      'invoice.paid',
    ])
    const renewal = (await stripe.invoices.list({ subscription: sub.id })).data[0]!
    expect(renewal.lines.data.map((l) => l.amount)).toEqual([2900])
    expect((await stripe.subscriptionSchedules.retrieve(schedule.id)).current_phase?.start_date).toBe(
      item.current_period_end,
    )

    const released = await stripe.subscriptionSchedules.release(schedule.id)
    expect(released).toMatchObject({ status: 'released', released_subscription: sub.id, subscription: null })
    expect((await stripe.subscriptions.retrieve(sub.id)).schedule).toBeNull()
  })

  test('a failed renewal leaves the subscription past_due; cancel_at_period_end ends it at the period end', async () => {
    const team = await priceFor('team_monthly', 2900)
    const { sub } = await subscribed(team.id)
    const end = sub.items.data[0]!.current_period_end
    standin.failNextPayment(sub.id)
    let from = received.length
    await standin.advanceTo(end)
    expect(standin.subscription(sub.id)!.status).toBe('past_due')
    expect(eventsOf(sub.id, from).map((e) => e.type)).toEqual([
      'customer.subscription.updated',
      'invoice.payment_failed',
    ])
    expect(eventsOf(sub.id, from)[0]!.event!.data.previous_attributes).toMatchObject({ status: 'active' })
    expect((await stripe.invoices.list({ subscription: sub.id })).data[0]).toMatchObject({
      status: 'open',
      amount_paid: 0,
    })

    const next = standin.subscription(sub.id)!.items.data[0]!.current_period_end
    const cancelling = await stripe.subscriptions.update(sub.id, { cancel_at_period_end: true })
    expect(cancelling).toMatchObject({ cancel_at_period_end: true, cancel_at: next, status: 'past_due' })
    from = received.length
    await standin.advanceTo(next + 1)
    expect(eventsOf(sub.id, from).map((e) => e.type)).toEqual(['customer.subscription.deleted'])
    expect(await stripe.subscriptions.retrieve(sub.id)).toMatchObject({ status: 'canceled', ended_at: next })
  })

  test('the portal session is on the stand-in; cancel ends now; a second cancel is refused', async () => {
    const team = await priceFor('team_monthly', 2900)
    const { customer, sub } = await subscribed(team.id)
    const portal = await stripe.billingPortal.sessions.create({
      customer: customer.id,
      return_url: 'https://engram.test/billing',
    })
    expect(portal).toMatchObject({
      object: 'billing_portal.session',
      customer: customer.id,
      return_url: 'https://engram.test/billing',
    })
    expect(portal.id).toMatch(/^bps_/)
    expect(portal.url.startsWith(`${standin.url}/portal/`)).toBe(true)
    const noCustomer = await stripe.billingPortal.sessions.create({ customer: 'cus_nope' }).catch((e) => e)
    expect(noCustomer).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)

    const from = received.length
    const canceled = await stripe.subscriptions.cancel(sub.id)
    expect(canceled).toMatchObject({
      id: sub.id,
      status: 'canceled',
      canceled_at: standin.now(),
      ended_at: standin.now(),
    })
    expect(eventsOf(sub.id, from).map((e) => e.type)).toEqual(['customer.subscription.deleted'])
    const twice = await stripe.subscriptions.cancel(sub.id).catch((e) => e)
    expect(twice).toMatchObject({ statusCode: 400, type: 'StripeInvalidRequestError' })
    const missing = await stripe.subscriptions.retrieve('sub_missing').catch((e) => e)
    expect(missing).toMatchObject({ statusCode: 404, code: 'resource_missing' })
  })
})

describe('Stripe stand-in: edges', () => {
  test('a refused checkout session writes nothing (not even the price its price_data would make)', async () => {
    const prices = (await stripe.prices.list({ limit: 100 })).data.length
    const err = await stripe.checkout.sessions
      .create({
        mode: 'subscription',
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: 'eur',
              unit_amount: 100,
              recurring: { interval: 'month' },
              product_data: { name: 'P' },
            },
          },
          { price: 'price_missing', quantity: 1 },
        ],
        success_url: 'https://engram.test/ok',
      })
      .catch((e) => e)
    expect(err).toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'line_items[1][price]' })
    expect((await stripe.prices.list({ limit: 100 })).data.length).toBe(prices)
  })

  test('a trial ends into the first paid period; monthly periods keep the anchor day, clamped', async () => {
    const team = await priceFor('team_monthly', 2900)
    const { sub } = await subscribed(team.id, { trialDays: 7 })
    expect(sub).toMatchObject({ status: 'trialing', trial_end: standin.now() + 7 * DAY })
    const from = received.length
    await standin.advanceTo(sub.trial_end!)
    const events = eventsOf(sub.id, from)
    expect(events.map((e) => e.type)).toEqual(['customer.subscription.updated', 'invoice.paid'])
    expect(events[0]!.event!.data.previous_attributes).toMatchObject({ status: 'trialing' })
    expect(standin.subscription(sub.id)).toMatchObject({ status: 'active' })
    expect((events[1]!.event!.data.object as Stripe.Invoice).amount_paid).toBe(2900)

    const jan31 = Date.UTC(2027, 0, 31, 9) / 1000
    const month = { interval: 'month', interval_count: 1 } as const
    expect([1, 2, 13].map((n) => new Date(addInterval(jan31, month, n) * 1000).toISOString())).toEqual([
      '2027-02-28T09:00:00.000Z',
      '2027-03-31T09:00:00.000Z',
      '2028-02-29T09:00:00.000Z',
    ])
  })

  test('customers update; subscriptions list by customer; an expired session cannot be completed', async () => {
    const team = await priceFor('team_monthly', 2900)
    const { customer, sub } = await subscribed(team.id)
    const renamed = await stripe.customers.update(customer.id, { name: 'Acme', metadata: { ws: '' } })
    expect(renamed).toMatchObject({ id: customer.id, name: 'Acme', email: 'a@example.test', metadata: {} })
    const subs = await stripe.subscriptions.list({ customer: customer.id })
    expect(subs.data.map((x) => x.id)).toEqual([sub.id])

    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      customer: customer.id,
      line_items: [{ price: team.id, quantity: 1 }],
      success_url: 'https://engram.test/ok',
    })
    const from = received.length
    expect(await stripe.checkout.sessions.expire(session.id)).toMatchObject({ status: 'expired', url: null })
    expect(received.slice(from).map((r) => r.type)).toEqual(['checkout.session.expired'])
    await expect(standin.completeCheckout(session.id)).rejects.toThrow('is expired')
  })

  test("the checkout page's Pay button completes the session and redirects to success_url with its id", async () => {
    const team = await priceFor('team_monthly', 2900)
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: team.id, quantity: 1 }],
      customer_email: 'pay@example.test',
      success_url: 'https://engram.test/billing?session={CHECKOUT_SESSION_ID}',
    })
    const pageHtml = await (await fetch(session.url!)).text()
    expect(pageHtml).toContain('29.00 EUR')
    const from = received.length
    const paid = await fetch(session.url!, { method: 'POST', redirect: 'manual' })
    expect(paid.status).toBe(303)
    expect(paid.headers.get('location')).toBe(`https://engram.test/billing?session=${session.id}`)
    expect(received.slice(from).map((r) => r.type)).toEqual([
      'checkout.session.completed',
      'customer.subscription.created',
      'invoice.paid',
    ])
    const done = await stripe.checkout.sessions.retrieve(session.id, { expand: ['customer'] })
    expect(done.status).toBe('complete')
    expect((done.customer as Stripe.Customer).email).toBe('pay@example.test')
    expect((await fetch(session.url!, { method: 'POST', redirect: 'manual' })).status).toBe(409)
  })
})
