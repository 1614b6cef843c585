import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/platform/config/config.load'
import type { TestApp } from '../helpers/app'
import { addMember, authApp, bearer, expectError, mintKey, mounts, rows, signUp } from './accounts.fixture'
import {
  acceptLegal,
  BASE_URL,
  type BillingStand,
  billingStand,
  buy,
  customer,
  post,
  status,
} from './billing.fixture'
import { createBase } from './ingest.fixture'

// Issue 37, billing: every route with billing off, the refusal order (legal acceptance, then
// billing off, then the body), checkout and the portal against the Stripe stand-in.

const apps: TestApp[] = []
const stands: BillingStand[] = []
const off = (env: Record<string, string> = {}) => {
  const t = authApp({ env })
  apps.push(t)
  return t
}
const on = async () => {
  const s = await billingStand()
  stands.push(s)
  return s
}
afterAll(async () => {
  for (const t of apps) t.close()
  for (const s of stands) await s.close()
})

describe('billing off', () => {
  test('status answers 200 with billing_enabled false on both mounts; /auth/config says so too', async () => {
    const t = off()
    const a = await signUp(t)
    for (const path of mounts('/billing/status')) {
      const res = await t.request(path, { headers: bearer(a.token) })
      expect(res.status).toBe(200)
      expect(await res.json()).toMatchObject({
        billing_enabled: false,
        portal_available: false,
        tier: 'beta',
        term: null,
        subscription_status: null,
        checkout_required: false,
        pending_change: null,
      })
    }
    const config = await (await t.request('/v1/auth/config')).json()
    expect(config).toMatchObject({ billing_enabled: false })
  })

  test('checkout and change-plan: 403 legal first, 503 once accepted; portal and webhook 503', async () => {
    const t = off()
    const a = await signUp(t)
    for (const route of ['/billing/checkout', '/billing/change-plan']) {
      for (const path of mounts(route)) {
        await expectError(
          await post(t, path, a.token, { tier: 'team', term: 'month' }),
          path,
          403,
          'legal_acceptance_required',
        )
      }
    }
    await acceptLegal(t, a.token)
    for (const route of ['/billing/checkout', '/billing/change-plan', '/billing/portal']) {
      for (const path of mounts(route)) {
        await expectError(
          await post(t, path, a.token, { tier: 'team', term: 'month' }),
          path,
          503,
          'billing_disabled',
        )
      }
    }
    for (const path of mounts('/billing/webhook')) {
      const res = await t.request(path, {
        method: 'POST',
        body: '{}',
        headers: { 'stripe-signature': 't=1,v1=x' },
      })
      await expectError(res, path, 503, 'billing_disabled')
    }
    expect((await rows(t, 'billing_accounts')) + (await rows(t, 'billing_events'))).toBe(0)
  })

  test('the refusal order: legal acceptance, then billing off, then the body', async () => {
    const t = off()
    const a = await signUp(t)
    const bad = { tier: 7, extra: true }
    const res = await post(t, '/v1/billing/checkout', a.token, bad)
    const body = (await res.json()) as { error: { details: unknown } }
    expect([res.status, body.error.details]).toEqual([
      403,
      { document: 'terms', version: '2026-03-01', accept_url: '/v1/legal/accept' },
    ])
    await acceptLegal(t, a.token)
    await expectError(await post(t, '/v1/billing/checkout', a.token, bad), '/v1', 503, 'billing_disabled')
    // With terms accepted and billing on, the body is read and validated last.
    const s = await on()
    const b = await customer(s.t)
    await expectError(await post(s.t, '/v1/billing/checkout', b.token, bad), '/v1', 422, 'validation_error')
    await expectError(
      await post(s.t, '/v1/billing/change-plan', b.token, bad),
      '/v1',
      422,
      'validation_error',
    )
  })

  test('a new version of a legal document must be accepted again before checkout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-billing-legal-'))
    writeFileSync(join(dir, 'terms.md'), '---\nversion: 1\ntitle: T\n---\nOne.\n')
    const t = off({ ENGRAM_LEGAL_DIR: dir })
    const a = await customer(t)
    await expectError(await post(t, '/v1/billing/checkout', a.token, {}), '/v1', 503, 'billing_disabled')
    // The operator publishes version 2; the restarted server reads it over the same database.
    writeFileSync(join(dir, 'terms.md'), '---\nversion: 2\ntitle: T\n---\nTwo.\n')
    const later = createApp(t.deps)
    const res = await later.handle(
      new Request('http://engram.test/v1/billing/checkout', {
        method: 'POST',
        headers: { ...bearer(a.token), 'content-type': 'application/json' },
        body: '{}',
      }),
    )
    expect(res.status).toBe(403)
    expect(((await res.json()) as { error: { details: unknown } }).error.details).toEqual({
      document: 'terms',
      version: '2',
      accept_url: '/v1/legal/accept',
    })
  })
})

describe('configuration', () => {
  test('ENGRAM_BILLING=stripe without its secret key or webhook secret stops the server at start-up', () => {
    const load = (env: Record<string, string>) => () =>
      loadConfig({ env: { ENGRAM_BILLING: 'stripe', ...env }, readFile: () => null })
    expect(load({})).toThrow(/billing.stripe_secret_key is required when ENGRAM_BILLING=stripe/)
    expect(load({ ENGRAM_STRIPE_SECRET_KEY: 'sk_test_x' })).toThrow(
      /billing.stripe_webhook_secret is required/,
    )
    const keys = { ENGRAM_STRIPE_SECRET_KEY: 'sk_test_x', ENGRAM_STRIPE_WEBHOOK_SECRET: 'whsec_x' }
    expect(load(keys)).not.toThrow()
    expect(load({ ...keys, ENGRAM_STRIPE_API_BASE: 'stripe.local' })).toThrow(
      /an http\(s\) URL without a path/,
    )
    expect(load({ ...keys, ENGRAM_STRIPE_API_BASE: 'http://127.0.0.1:12111' })).not.toThrow()
  })
})

describe('checkout against Stripe', () => {
  test('creates the customer once, a subscription session with the fixed URLs, and the webhook moves the plan', async () => {
    const s = await on()
    const a = await customer(s.t)
    expect((await (await s.t.request('/v1/auth/config')).json()) as object).toMatchObject({
      billing_enabled: true,
    })
    expect(await status(s.t, a.token)).toMatchObject({ checkout_required: true, portal_available: false })
    const first = await post(s.t, '/v1/billing/checkout', a.token, { tier: 'team', term: 'month' })
    expect(first.status).toBe(200)
    const session = (await first.json()) as { url: string; session_id: string }
    expect(session.url).toStartWith(`${s.stripe.url}/checkout/`)
    // A second checkout (the first tab left open) replaces the first: its session is expired.
    const again = await post(s.t, '/v1/billing/checkout', a.token, { tier: 'team', term: 'month' })
    expect(again.status).toBe(200)
    const replacing = (await again.json()) as { url: string; session_id: string }
    const sent = s.stripe.requests.filter((r) => r.method === 'POST')
    expect(sent.filter((r) => r.path === '/v1/customers').map((r) => r.body.metadata)).toEqual([
      { workspace_id: a.workspaceId },
    ])
    const created = sent.find((r) => r.path === '/v1/checkout/sessions')!.body
    const metadata = { workspace_id: a.workspaceId, tier: 'team', term: 'month' }
    expect(created).toMatchObject({
      mode: 'subscription',
      client_reference_id: a.workspaceId,
      metadata,
      subscription_data: { metadata },
      payment_method_collection: 'always',
      success_url: `${BASE_URL}/console/plan?checkout=success`,
      cancel_url: `${BASE_URL}/console/plan?checkout=cancelled`,
    })
    expect(sent.map((r) => r.path)).toContain(`/v1/checkout/sessions/${session.session_id}/expire`)
    const sub = await s.stripe.completeCheckout(replacing.session_id)
    const st = await status(s.t, a.token)
    const end = new Date(sub.items.data[0]!.current_period_end * 1000).toISOString()
    expect(st).toMatchObject({
      tier: 'team',
      term: 'month',
      subscription_status: 'active',
      renews_at: end,
      checkout_required: false,
      portal_available: true,
      cancel_at_period_end: false,
    })
    const admin = await (await s.t.request('/v1/admin/billing', { headers: bearer(a.token) })).json()
    expect(admin).toMatchObject({ plan: 'team', billing_enabled: true, limits: st.caps as object })
    // A live subscription: checkout again is refused, and nothing more is asked of Stripe.
    const asked = s.stripe.requests.length
    await expectError(
      await post(s.t, '/v1/billing/checkout', a.token, { tier: 'business', term: 'month' }),
      '/v1',
      409,
      'subscription_exists',
    )
    expect(s.stripe.requests.length).toBe(asked)
  })

  test('a plan not on sale for the term is 422, and nothing is asked of Stripe', async () => {
    const s = await on()
    const a = await customer(s.t)
    for (const tier of ['free', 'beta', 'nope']) {
      const res = await post(s.t, '/v1/billing/checkout', a.token, { tier, term: 'month' })
      await expectError(res, '/v1', 422, 'validation_error')
    }
    expect(s.stripe.requests).toEqual([])
    expect(await rows(s.t, 'billing_accounts')).toBe(0)
  })

  test('portal: 409 no_billing_account before any checkout, then a session returning to the console', async () => {
    const s = await on()
    const a = await signUp(s.t)
    // Not gated by legal acceptance.
    await expectError(await post(s.t, '/v1/billing/portal', a.token), '/v1', 409, 'no_billing_account')
    await acceptLegal(s.t, a.token)
    await buy(s, a.token)
    const res = await post(s.t, '/v1/billing/portal', a.token)
    expect(res.status).toBe(200)
    expect(((await res.json()) as { url: string }).url).toStartWith(`${s.stripe.url}/portal/`)
    const sent = s.stripe.requests.find((r) => r.path === '/v1/billing_portal/sessions')!
    expect(sent.body.return_url).toBe(`${BASE_URL}/console/plan`)
  })

  test('credentials are checked before legal acceptance: 401 without one, 403 admin_required for a member', async () => {
    const s = await on()
    const a = await signUp(s.t)
    const member = await addMember(s.t, a.token)
    for (const path of ['/v1/billing/checkout', '/v1/billing/change-plan', '/v1/billing/portal']) {
      const none = await s.t.request(path, { method: 'POST', json: {} })
      expect(none.status).toBe(401)
      await expectError(await post(s.t, path, member.token, {}), path, 403, 'admin_required')
    }
    expect((await s.t.request('/v1/billing/status', { headers: bearer(member.token) })).status).toBe(200)
  })

  test('Stripe failing answers 502 payment_provider_failed; the customer made before is kept and reused', async () => {
    const s = await on()
    const a = await customer(s.t)
    s.failNext('POST', '/v1/checkout/sessions')
    const res = await post(s.t, '/v1/billing/checkout', a.token, { tier: 'team', term: 'month' })
    await expectError(res, '/v1', 502, 'payment_provider_failed')
    expect((await post(s.t, '/v1/billing/checkout', a.token, { tier: 'team', term: 'month' })).status).toBe(
      200,
    )
    expect(s.stripe.requests.filter((r) => r.path === '/v1/customers').length).toBe(1)
    expect(await rows(s.t, 'billing_accounts')).toBe(1)
  })

  test('a key bound to some bases cannot reach billing (key_bound_to_bases)', async () => {
    const s = await on()
    const a = await customer(s.t)
    const base = await createBase(s.t, a.token)
    const key = await mintKey(s.t, a.token, ['admin'], { corpus_ids: [base] })
    for (const path of ['/v1/billing/checkout', '/v1/billing/change-plan', '/v1/billing/portal']) {
      await expectError(
        await post(s.t, path, key.key, { tier: 'team', term: 'month' }),
        path,
        403,
        'key_bound_to_bases',
      )
    }
    const st = await s.t.request('/v1/billing/status', { headers: bearer(key.key) })
    await expectError(st, '/v1', 403, 'key_bound_to_bases')
    expect(s.stripe.requests).toEqual([])
  })
})
