import { describe, expect, test } from 'bun:test'
import { expectError } from './accounts.fixture'
import { type BillingStand, customer, post, standsForFile, status } from './billing.fixture'

// Issue 37: one workspace cannot end up with two subscriptions through two checkouts, whether
// they are opened one after the other, at once, or the first is paid before its webhook arrives.

const on = standsForFile()

/** The checkout sessions the app asked the stand-in to open, and those it expired. */
function sessions(s: BillingStand) {
  const posts = s.stripe.requests.filter((r) => r.method === 'POST')
  return {
    opened: posts.filter((r) => r.path === '/v1/checkout/sessions').length,
    expired: posts.filter((r) => /^\/v1\/checkout\/sessions\/[^/]+\/expire$/.test(r.path)).map((r) => r.path),
  }
}

describe('checkout opened twice', () => {
  test('a second checkout expires the first: the first can no longer be paid, the second buys the plan', async () => {
    const s = await on()
    const a = await customer(s.t)
    const first = (await (
      await post(s.t, '/v1/billing/checkout', a.token, { tier: 'team', term: 'month' })
    ).json()) as {
      session_id: string
    }
    const second = (await (
      await post(s.t, '/v1/billing/checkout', a.token, { tier: 'business', term: 'month' })
    ).json()) as { session_id: string }
    expect(sessions(s).expired).toEqual([`/v1/checkout/sessions/${first.session_id}/expire`])
    await expect(s.stripe.completeCheckout(first.session_id)).rejects.toThrow()
    await s.stripe.completeCheckout(second.session_id)
    expect(await status(s.t, a.token)).toMatchObject({ tier: 'business', subscription_status: 'active' })
  })

  test('checkouts at once leave exactly one session open', async () => {
    const s = await on()
    const a = await customer(s.t)
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        post(s.t, '/v1/billing/checkout', a.token, { tier: 'team', term: 'month' }),
      ),
    )
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200])
    const ids = await Promise.all(
      answers.map(async (r) => ((await r.json()) as { session_id: string }).session_id),
    )
    const { opened, expired } = sessions(s)
    expect(opened).toBe(4)
    expect(expired.length).toBe(3)
    const open = ids.filter((id) => !expired.includes(`/v1/checkout/sessions/${id}/expire`))
    expect(open.length).toBe(1)
    for (const id of ids.filter((x) => x !== open[0])) {
      await expect(s.stripe.completeCheckout(id)).rejects.toThrow()
    }
    await s.stripe.completeCheckout(open[0]!)
    expect(await status(s.t, a.token)).toMatchObject({ tier: 'team', subscription_status: 'active' })
  })

  test('a session paid before its webhook arrived refuses another checkout with 409, asking Stripe nothing new', async () => {
    const s = await on()
    const a = await customer(s.t)
    s.stripe.autoDeliver = false
    const first = (await (
      await post(s.t, '/v1/billing/checkout', a.token, { tier: 'team', term: 'month' })
    ).json()) as {
      session_id: string
    }
    await s.stripe.completeCheckout(first.session_id)
    expect(await status(s.t, a.token)).toMatchObject({ tier: 'beta', subscription_status: null })
    const res = await post(s.t, '/v1/billing/checkout', a.token, { tier: 'business', term: 'month' })
    await expectError(res, '/v1', 409, 'subscription_exists')
    expect(sessions(s)).toEqual({ opened: 1, expired: [] })
    await s.stripe.deliverPending()
    expect(await status(s.t, a.token)).toMatchObject({ tier: 'team', subscription_status: 'active' })
  })
})
