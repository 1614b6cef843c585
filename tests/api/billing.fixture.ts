import { afterAll, expect } from 'bun:test'
import type { TestApp } from '../helpers/app'
import { type StripeStandin, startStripeStandin } from '../helpers/stripe-standin'
import { authApp, bearer, signUp } from './accounts.fixture'

/**
 * Billing tests' helpers: an app with billing on, served on loopback so that the Stripe stand-in
 * can POST its signed events to /v1/billing/webhook; a proxy in front of the stand-in that fails
 * the next request matching a path (a handler that fails); legal acceptance and a bought plan.
 */

export const BASE_URL = 'https://engram.example.com'

/** What a billing test holds. */
export interface BillingStand {
  t: TestApp
  stripe: StripeStandin
  /** The app's own URL on loopback. */
  url: string
  /** The next Stripe API request whose path starts with `prefix` answers Stripe's 400. */
  failNext(method: string, prefix: string): void
  close(): Promise<void>
}

/** Starts the stand-in (on the app's clock), a failing proxy before it and the app served on 127.0.0.1. */
export async function billingStand(env: Record<string, string> = {}): Promise<BillingStand> {
  let t: TestApp | undefined
  const appSeconds = () => Math.floor((t?.clock.now().getTime() ?? Date.parse('2026-03-01T12:00:00Z')) / 1000)
  const stripe = await startStripeStandin({ now: appSeconds(), signedAt: appSeconds })
  let failing: { method: string; prefix: string } | null = null
  const proxy = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: async (req) => {
      const u = new URL(req.url)
      if (failing && req.method === failing.method && u.pathname.startsWith(failing.prefix)) {
        failing = null
        const error = { type: 'invalid_request_error', message: 'Injected failure.' }
        return Response.json({ error }, { status: 400 })
      }
      const body = req.method === 'GET' ? undefined : await req.arrayBuffer()
      return fetch(`${stripe.url}${u.pathname}${u.search}`, {
        method: req.method,
        headers: req.headers,
        body,
      })
    },
  })
  t = authApp({
    env: {
      ENGRAM_BILLING: 'stripe',
      ENGRAM_STRIPE_SECRET_KEY: stripe.secretKey,
      ENGRAM_STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
      ENGRAM_STRIPE_API_BASE: `http://127.0.0.1:${proxy.port}`,
      ENGRAM_BASE_URL: BASE_URL,
      ...env,
    },
  })
  const app = t
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (req) => app.handle(req) })
  const url = `http://127.0.0.1:${server.port}`
  stripe.deliverTo(`${url}/v1/billing/webhook`)
  return {
    t: app,
    stripe,
    url,
    failNext: (method, prefix) => {
      failing = { method, prefix }
    },
    close: async () => {
      await server.stop(true)
      await proxy.stop(true)
      await stripe.close()
      app.close()
    },
  }
}

/** Accepts the current version of every legal document on the workspace's behalf. */
export async function acceptLegal(t: TestApp, token: string): Promise<void> {
  const status = (await (await t.request('/v1/legal/status', { headers: bearer(token) })).json()) as {
    documents: { document: string; version: string }[]
  }
  for (const { document, version } of status.documents) {
    const res = await t.request('/v1/legal/accept', {
      method: 'POST',
      headers: bearer(token),
      json: { document, version },
    })
    expect(res.status).toBe(200)
  }
}

/** A signed-up workspace whose admin accepted the legal documents. */
export async function customer(t: TestApp) {
  const a = await signUp(t)
  await acceptLegal(t, a.token)
  return a
}

/** POSTs JSON to a billing route as the token's holder. */
export function post(
  t: TestApp,
  path: string,
  token: string,
  json?: unknown,
  headers: Record<string, string> = {},
) {
  return t.request(path, { method: 'POST', headers: { ...bearer(token), ...headers }, json })
}

/** The workspace's billing status. */
export async function status(t: TestApp, token: string) {
  const res = await t.request('/v1/billing/status', { headers: bearer(token) })
  expect(res.status).toBe(200)
  return (await res.json()) as Record<string, unknown> & {
    tier: string
    subscription_status: string | null
    pending_change: { tier: string; term: string; effective_at: string } | null
  }
}

/** Buys a plan through checkout and completes it at the stand-in; answers the subscription id. */
export async function buy(s: BillingStand, token: string, tier = 'team', term = 'month', trialDays?: number) {
  const res = await post(s.t, '/v1/billing/checkout', token, { tier, term })
  expect(res.status).toBe(200)
  const { session_id } = (await res.json()) as { session_id: string }
  const sub = await s.stripe.completeCheckout(session_id, trialDays === undefined ? {} : { trialDays })
  return sub.id
}

/** Rows of the billing events table by outcome. */
export async function eventOutcomes(t: TestApp): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const r of await t.sql.all<{ outcome: string; n: number }>(
    'SELECT outcome, count(*) AS n FROM billing_events GROUP BY outcome',
  ))
    out[r.outcome] = r.n
  return out
}

/** Calls the stand-in's API as the operator would from Stripe's dashboard (a portal cancellation). */
export async function stripeApi(
  s: BillingStand,
  method: string,
  path: string,
  form?: Record<string, string>,
) {
  const res = await fetch(`${s.stripe.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${s.stripe.secretKey}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: form ? new URLSearchParams(form).toString() : undefined,
  })
  expect(res.status).toBe(200)
  return (await res.json()) as Record<string, unknown>
}

/** POSTs a body to the app's webhook with a signature (a valid one for `signedBody` when given). */
export async function webhook(s: BillingStand, body: string, signature: string | null) {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (signature !== null) headers['stripe-signature'] = signature
  return fetch(`${s.url}/v1/billing/webhook`, { method: 'POST', headers, body })
}

/** The ids of the stand-in's events of a type, in order. */
export function eventIds(s: BillingStand, type: string): string[] {
  return s.stripe.events.filter((e) => e.type === type).map((e) => e.id)
}

/** A test file's `on()`: each call starts a billing stand, all closed after the file's tests. */
export function standsForFile(): () => Promise<BillingStand> {
  const stands: BillingStand[] = []
  afterAll(async () => {
    for (const s of stands) await s.close()
  })
  return async () => {
    const s = await billingStand()
    stands.push(s)
    return s
  }
}
