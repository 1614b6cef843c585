import { describe, expect, test } from 'bun:test'
import Stripe from 'stripe'
import { auditRows, bearer, expectError, rows } from './accounts.fixture'
import {
  type BillingStand,
  buy,
  customer,
  eventIds,
  eventOutcomes,
  standsForFile,
  status,
  stripeApi,
  webhook,
} from './billing.fixture'

// Issue 37, the billing webhook: only Stripe's signature opens it; every verified event is answered
// 200; an event is applied once; events out of order end in the subscription's real state; a
// failed handler is retried on redelivery; an event moves only the workspace that owns its customer.

const on = standsForFile()

const plan = async (s: BillingStand, ws: string) =>
  (await s.t.sql.get<{ plan: string }>('SELECT plan FROM workspaces WHERE id = ?', ws))!.plan

/** Signs a body as Stripe would, with the app's clock as the time. */
const sign = (s: BillingStand, payload: string, secret = s.stripe.webhookSecret) =>
  Stripe.webhooks.generateTestHeaderStringAsync({
    payload,
    secret,
    timestamp: Math.floor(s.t.clock.now().getTime() / 1000),
  })

describe('the signature', () => {
  test('absent, bad, from another secret, stale, or over a tampered body: 400 invalid_signature, nothing written', async () => {
    const s = await on()
    const a = await customer(s.t)
    s.stripe.autoDeliver = false
    await buy(s, a.token)
    const event = s.stripe.events.find((e) => e.type === 'customer.subscription.created')!
    const tampered = event.payload.replace('"active"', '"canceled"')
    expect(tampered).not.toBe(event.payload)
    const stale = await Stripe.webhooks.generateTestHeaderStringAsync({
      payload: event.payload,
      secret: s.stripe.webhookSecret,
      timestamp: Math.floor(s.t.clock.now().getTime() / 1000) - 3600,
    })
    const cases: [string, string | null][] = [
      [event.payload, null],
      [event.payload, 't=1,v1=deadbeef'],
      [event.payload, await sign(s, event.payload, 'whsec_another')],
      [event.payload, stale],
      [tampered, await sign(s, event.payload)],
    ]
    for (const [body, signature] of cases) {
      await expectError(await webhook(s, body, signature), '/v1', 400, 'invalid_signature')
    }
    expect(await rows(s.t, 'billing_events')).toBe(0)
    expect(await plan(s, a.workspaceId)).toBe('beta')
    // The same event, as Stripe signed it, is applied.
    const res = await s.stripe.deliver(event.id)
    expect(await res.json()).toEqual({ received: true, outcome: 'applied' })
    expect(await plan(s, a.workspaceId)).toBe('team')
  })
})

describe('delivery', () => {
  test('an event delivered twice is applied once: one plan.changed in the audit log', async () => {
    const s = await on()
    const a = await customer(s.t)
    await buy(s, a.token)
    const [created] = eventIds(s, 'customer.subscription.created')
    const again = await s.stripe.deliver(created!)
    expect([again.status, await again.json()]).toEqual([200, { received: true, outcome: 'applied' }])
    const changes = (await auditRows(s.t, 'plan.changed')).filter((r) => r.workspace_id === a.workspaceId)
    expect(changes.map((r) => [r.actor_type, r.actor_id, JSON.parse(r.details)])).toEqual([
      ['system', 'billing', { from: 'beta', to: 'team', via: 'billing' }],
    ])
    expect(await eventOutcomes(s.t)).toEqual({ applied: 3 })
  })

  test('events of types billing does not follow are answered 200 and recorded as ignored', async () => {
    const s = await on()
    const payload = JSON.stringify({
      id: 'evt_other',
      object: 'event',
      type: 'charge.refunded',
      created: 1,
      data: { object: { id: 'ch_1' } },
    })
    const res = await webhook(s, payload, await sign(s, payload))
    expect([res.status, await res.json()]).toEqual([200, { received: true, outcome: 'ignored' }])
    expect(await eventOutcomes(s.t)).toEqual({ ignored: 1 })
  })

  test('events delivered out of order end in the subscription state Stripe holds now', async () => {
    const s = await on()
    const a = await customer(s.t)
    s.stripe.autoDeliver = false
    const sub = await buy(s, a.token)
    await stripeApi(s, 'POST', `/v1/subscriptions/${sub}`, { cancel_at_period_end: 'true' })
    // The update (to cancel at period end) arrives before the creation and the checkout.
    const order = [
      ...eventIds(s, 'customer.subscription.updated'),
      ...eventIds(s, 'customer.subscription.created'),
      ...eventIds(s, 'checkout.session.completed'),
    ]
    for (const id of order) expect((await s.stripe.deliver(id)).status).toBe(200)
    expect(await status(s.t, a.token)).toMatchObject({
      tier: 'team',
      subscription_status: 'active',
      cancel_at_period_end: true,
    })
    // Then it is cancelled now: the deletion arrives before the invoice of its creation.
    await stripeApi(s, 'DELETE', `/v1/subscriptions/${sub}`)
    for (const id of [...eventIds(s, 'customer.subscription.deleted'), ...eventIds(s, 'invoice.paid')]) {
      expect((await s.stripe.deliver(id)).status).toBe(200)
    }
    expect(await status(s.t, a.token)).toMatchObject({ tier: 'free', subscription_status: 'canceled' })
    // A stale "created" redelivered later changes nothing: it was applied once already.
    await s.stripe.deliver(eventIds(s, 'customer.subscription.created')[0]!)
    expect(await plan(s, a.workspaceId)).toBe('free')
  })

  test('a handler that fails is still answered 200, recorded failed, and retried on redelivery', async () => {
    const s = await on()
    const a = await customer(s.t)
    s.stripe.autoDeliver = false
    await buy(s, a.token)
    const [created] = eventIds(s, 'customer.subscription.created')
    s.failNext('GET', '/v1/subscriptions/')
    const first = await s.stripe.deliver(created!)
    expect([first.status, await first.json()]).toEqual([200, { received: true, outcome: 'failed' }])
    expect(await plan(s, a.workspaceId)).toBe('beta')
    const row = await s.t.sql.get<{ outcome: string; error: string; attempts: number }>(
      'SELECT outcome, error, attempts FROM billing_events',
    )
    expect(row).toEqual({ outcome: 'failed', error: 'Injected failure.', attempts: 1 })
    const second = await s.stripe.deliver(created!)
    expect(await second.json()).toEqual({ received: true, outcome: 'applied' })
    expect(await plan(s, a.workspaceId)).toBe('team')
    expect(await eventOutcomes(s.t)).toEqual({ applied: 1 })
  })
})

describe('tenant isolation', () => {
  test('an event moves only the workspace that owns its customer, whatever its metadata names', async () => {
    const s = await on()
    const a = await customer(s.t)
    const b = await customer(s.t)
    // A has a customer (an abandoned checkout); B buys team.
    expect(
      (
        await s.t.request('/v1/billing/checkout', {
          method: 'POST',
          headers: bearer(a.token),
          json: { tier: 'team', term: 'month' },
        })
      ).status,
    ).toBe(200)
    const subB = await buy(s, b.token)
    const customers = await s.t.sql.all<{ workspace_id: string; customer_id: string }>(
      'SELECT workspace_id, customer_id FROM billing_accounts',
    )
    const customerA = customers.find((c) => c.workspace_id === a.workspaceId)!.customer_id
    // Forged-looking but validly signed events: B's subscription named as A's (metadata), and
    // A's customer paired with B's subscription.
    const object = {
      ...s.stripe.subscription(subB)!,
      metadata: { workspace_id: a.workspaceId, tier: 'business', term: 'month' },
    }
    const events = [
      { id: 'evt_meta', type: 'customer.subscription.updated', object },
      { id: 'evt_pair', type: 'customer.subscription.updated', object: { ...object, customer: customerA } },
    ]
    const outcomes: unknown[] = []
    for (const e of events) {
      const payload = JSON.stringify({
        id: e.id,
        object: 'event',
        type: e.type,
        created: 1,
        data: { object: e.object },
      })
      const res = await webhook(s, payload, await sign(s, payload))
      outcomes.push([res.status, ((await res.json()) as { outcome: string }).outcome])
    }
    // The first is B's own subscription, mirrored on B; the second is refused for A.
    expect(outcomes).toEqual([
      [200, 'applied'],
      [200, 'ignored'],
    ])
    expect([await plan(s, a.workspaceId), await plan(s, b.workspaceId)]).toEqual(['beta', 'team'])
    expect(await status(s.t, a.token)).toMatchObject({ subscription_status: null, checkout_required: true })
  })
})
