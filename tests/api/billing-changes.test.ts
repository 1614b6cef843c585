import { describe, expect, test } from 'bun:test'
import { auditRows, expectError } from './accounts.fixture'
import { type BillingStand, buy, customer, post, standsForFile, status, stripeApi } from './billing.fixture'

// Issue 37, plan changes: an upgrade now with the prorated difference invoiced at once, a downgrade
// at the end of the paid period (shown as pending until then), a cancellation at period end back to
// the default plan, trials and failed renewals, as Stripe (the stand-in) carries them out.

const on = standsForFile()

const DAY = 86_400
const iso = (seconds: number) => new Date(seconds * 1000).toISOString()
const changePlan = (s: BillingStand, token: string, tier: string, term = 'month') =>
  post(s.t, '/v1/billing/change-plan', token, { tier, term })
const periodEnd = (s: BillingStand, sub: string) =>
  s.stripe.subscription(sub)!.items.data[0]!.current_period_end
const planChanges = async (s: BillingStand, ws: string) =>
  (await auditRows(s.t, 'plan.changed'))
    .filter((r) => r.workspace_id === ws)
    .map((r) => JSON.parse(r.details) as { from: string; to: string; via: string })
    .map((d) => `${d.from}>${d.to} ${d.via}`)

describe('POST /billing/change-plan', () => {
  test('without a subscription: 409 checkout_required, nothing asked of Stripe', async () => {
    const s = await on()
    const a = await customer(s.t)
    await expectError(await changePlan(s, a.token, 'business'), '/v1', 409, 'checkout_required')
    expect(s.stripe.requests).toEqual([])
  })

  test('an upgrade applies now and invoices the prorated difference at once', async () => {
    const s = await on()
    const a = await customer(s.t)
    const sub = await buy(s, a.token, 'team')
    await s.stripe.advanceTo(s.stripe.now() + 10 * DAY)
    const res = await changePlan(s, a.token, 'business')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      tier: 'business',
      term: 'month',
      effective: 'now',
      effective_at: s.t.clock.now().toISOString(),
    })
    expect(await status(s.t, a.token)).toMatchObject({
      tier: 'business',
      term: 'month',
      pending_change: null,
    })
    const update = s.stripe.requests.find(
      (r) => r.method === 'POST' && r.path === `/v1/subscriptions/${sub}`,
    )!
    expect(update.body).toMatchObject({ proration_behavior: 'always_invoice' })
    const invoices = (await stripeApi(s, 'GET', `/v1/invoices?subscription=${sub}`)).data as {
      billing_reason: string
      lines: { data: { amount: number; parent: { subscription_item_details: { proration: boolean } } }[] }
    }[]
    const prorated = invoices.find((i) => i.billing_reason === 'subscription_update')!
    const lines = prorated.lines.data.filter((l) => l.parent.subscription_item_details.proration)
    expect(lines.length).toBe(2)
    expect(lines.some((l) => l.amount < 0) && lines.some((l) => l.amount > 0)).toBe(true)
    expect(await planChanges(s, a.workspaceId)).toEqual(['beta>team billing', 'team>business billing'])
  })

  test('a downgrade waits for the period end as pending_change, then moves the plan', async () => {
    const s = await on()
    const a = await customer(s.t)
    const sub = await buy(s, a.token, 'business')
    const end = periodEnd(s, sub)
    const res = await changePlan(s, a.token, 'team')
    expect(await res.json()).toEqual({
      tier: 'team',
      term: 'month',
      effective: 'period_end',
      effective_at: iso(end),
    })
    expect(await status(s.t, a.token)).toMatchObject({
      tier: 'business',
      renews_at: iso(end),
      pending_change: { tier: 'team', term: 'month', effective_at: iso(end) },
    })
    await s.stripe.advanceTo(end - DAY)
    expect((await status(s.t, a.token)).tier).toBe('business')
    await s.stripe.advanceTo(end + DAY)
    expect(await status(s.t, a.token)).toMatchObject({
      tier: 'team',
      subscription_status: 'active',
      pending_change: null,
    })
    expect(await planChanges(s, a.workspaceId)).toEqual(['beta>business billing', 'business>team billing'])
  })

  test('the plan it is on: 409 conflict; while a downgrade waits, it drops the downgrade', async () => {
    const s = await on()
    const a = await customer(s.t)
    await buy(s, a.token, 'business')
    await expectError(await changePlan(s, a.token, 'business'), '/v1', 409, 'conflict')
    expect((await changePlan(s, a.token, 'team')).status).toBe(200)
    expect((await status(s.t, a.token)).pending_change).not.toBeNull()
    const back = await changePlan(s, a.token, 'business')
    expect(await back.json()).toMatchObject({ tier: 'business', effective: 'now' })
    expect(await status(s.t, a.token)).toMatchObject({ tier: 'business', pending_change: null })
    expect(s.stripe.requests.some((r) => r.path.endsWith('/release'))).toBe(true)
  })

  test('a second downgrade while one waits replaces it in the same schedule', async () => {
    const s = await on()
    const a = await customer(s.t)
    const sub = await buy(s, a.token, 'business')
    const end = periodEnd(s, sub)
    expect((await changePlan(s, a.token, 'team')).status).toBe(200)
    const res = await changePlan(s, a.token, 'team', 'year')
    expect(await res.json()).toMatchObject({
      tier: 'team',
      term: 'year',
      effective: 'period_end',
      effective_at: iso(end),
    })
    expect((await status(s.t, a.token)).pending_change).toEqual({
      tier: 'team',
      term: 'year',
      effective_at: iso(end),
    })
    expect(s.stripe.requests.filter((r) => r.path === '/v1/subscription_schedules').length).toBe(1)
    await s.stripe.advanceTo(end + DAY)
    expect(await status(s.t, a.token)).toMatchObject({ tier: 'team', term: 'year', pending_change: null })
  })

  test('a plan not on sale for the term is 422 and changes nothing', async () => {
    const s = await on()
    const a = await customer(s.t)
    await buy(s, a.token, 'team')
    const asked = s.stripe.requests.length
    await expectError(await changePlan(s, a.token, 'free'), '/v1', 422, 'validation_error')
    await expectError(await changePlan(s, a.token, 'team', 'week'), '/v1', 422, 'validation_error')
    expect(s.stripe.requests.length).toBe(asked)
  })
})

describe('the subscription over time', () => {
  test('cancelled at period end (from the portal): team until the end, then the default plan', async () => {
    const s = await on()
    const a = await customer(s.t)
    const sub = await buy(s, a.token, 'team')
    const end = periodEnd(s, sub)
    await stripeApi(s, 'POST', `/v1/subscriptions/${sub}`, { cancel_at_period_end: 'true' })
    expect(await status(s.t, a.token)).toMatchObject({
      tier: 'team',
      cancel_at_period_end: true,
      renews_at: iso(end),
    })
    await s.stripe.advanceTo(end + 1)
    expect(await status(s.t, a.token)).toMatchObject({
      tier: 'free',
      subscription_status: 'canceled',
      checkout_required: true,
      portal_available: true,
    })
    // A new checkout is open again.
    expect((await post(s.t, '/v1/billing/checkout', a.token, { tier: 'team', term: 'year' })).status).toBe(
      200,
    )
  })

  test('a trial is mirrored with its end, on the subscribed plan', async () => {
    const s = await on()
    const a = await customer(s.t)
    const sub = await buy(s, a.token, 'team', 'month', 14)
    const trialEnd = s.stripe.subscription(sub)!.trial_end!
    expect(await status(s.t, a.token)).toMatchObject({
      tier: 'team',
      subscription_status: 'trialing',
      trial_ends_at: iso(trialEnd),
    })
  })

  test('a failed renewal leaves the workspace past_due on its plan', async () => {
    const s = await on()
    const a = await customer(s.t)
    const sub = await buy(s, a.token, 'team')
    s.stripe.failNextPayment(sub)
    await s.stripe.advanceTo(periodEnd(s, sub) + 1)
    expect(await status(s.t, a.token)).toMatchObject({ tier: 'team', subscription_status: 'past_due' })
  })
})
