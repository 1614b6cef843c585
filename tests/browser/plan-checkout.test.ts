import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { consoleRig, seriousViolations } from '../helpers/browser'
import type { Account } from '../helpers/console-workspace'
import { signInUi } from '../helpers/console-workspace'
import { type StripeStandin, startStripeStandin } from '../helpers/stripe-standin'
import { apiAs, type LegalStatus, openSignUp } from './plan.fixture'

// Issue 37, the Plan page with billing on, against the real billing feature and the local Stripe
// stand-in: "Upgrade" asks for each legal document the server names, then goes to the stand-in's
// hosted checkout; paying there comes back to the page, where the webhook has moved the plan; an
// upgrade applies now, a downgrade waits for the period end (and can be dropped); "Manage billing"
// opens the portal. The server's ENGRAM_BASE_URL (the checkout's return) is its own address, so
// its port is chosen before it starts.

let stripe: StripeStandin | undefined
const env: Record<string, string> = {}
beforeAll(async () => {
  stripe = await startStripeStandin()
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
  const port = String(probe.port)
  await probe.stop(true)
  Object.assign(env, {
    ENGRAM_PORT: port,
    ENGRAM_BASE_URL: `http://127.0.0.1:${port}`,
    ENGRAM_SIGNUP_MODE: 'open',
    ENGRAM_BILLING: 'stripe',
    ENGRAM_STRIPE_SECRET_KEY: stripe.secretKey,
    ENGRAM_STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
    ENGRAM_STRIPE_API_BASE: stripe.url,
  })
})
const rig = consoleRig(env)
afterAll(() => stripe?.close())

interface BillingStatus {
  tier: string
  term: string | null
  subscription_status: string | null
  pending_change: { tier: string; term: string; effective_at: string } | null
}

describe('console: plan with billing on', () => {
  test('upgrade through the legal dialogs and the hosted checkout, change plan now and at the period end, open the portal', async () => {
    const r = rig()
    const s = stripe!
    s.deliverTo(`${r.server.url}/v1/billing/webhook`)
    const admin: Account = await openSignUp(r)
    const api = <T>(method: string, path: string, body?: unknown) => apiAs<T>(r, admin, method, path, body)
    const ctx = await r.context()
    const page = await ctx.newPage()
    await signInUi(page, r, admin, '/console/plan')
    await page.getByRole('heading', { name: 'Free plan' }).waitFor()
    await page.getByText('No subscription').waitFor()
    expect(await page.getByText('Plans are set by your operator').count()).toBe(0)
    expect(await page.getByRole('button', { name: 'Manage billing' }).count()).toBe(0)

    // Upgrade: the server names each document not accepted; each is read and accepted in turn.
    const legal = await api<LegalStatus>('GET', '/v1/legal/status')
    await page.getByRole('button', { name: 'Upgrade to Team' }).click()
    for (const doc of legal.documents) {
      const dialog = page.getByRole('dialog', { name: doc.title })
      await dialog.getByText(`Version ${doc.version}.`).waitFor()
      if (doc === legal.documents[0]) {
        expect(await seriousViolations(page)).toEqual([])
        await r.screenshot(page, 'plan-legal-dialog')
      }
      await dialog.getByRole('button', { name: 'I accept' }).click()
      await dialog.waitFor({ state: 'hidden' })
    }
    expect((await api<LegalStatus>('GET', '/v1/legal/status')).all_accepted).toBe(true)

    // The stand-in's hosted checkout; paying comes back to the page, the plan moved by the webhook.
    await page.waitForURL(`${s.url}/checkout/**`)
    const session = s.requests.find((q) => q.method === 'POST' && q.path === '/v1/checkout/sessions')
    expect(session?.body).toMatchObject({ mode: 'subscription', client_reference_id: expect.any(String) })
    await page.getByRole('button', { name: 'Pay' }).click()
    await page.waitForURL('**/console/plan?checkout=success')
    await page.getByText('Thank you: the payment went through.').waitFor()
    await page.getByRole('heading', { name: 'Team plan' }).waitFor()
    const sub = page.locator('.plan-subscription')
    await sub.getByText('Active', { exact: true }).waitFor()
    await sub.getByText('Renews').waitFor()
    expect(await api<BillingStatus>('GET', '/v1/billing/status')).toMatchObject({
      tier: 'team',
      term: 'month',
      subscription_status: 'active',
    })
    const offers = page.getByRole('region', { name: 'Plans on offer' })
    expect(await offers.getByRole('columnheader', { name: /Team/ }).textContent()).toContain('Current plan')
    expect(await offers.getByRole('button', { name: /Team/ }).count()).toBe(0)
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'plan-subscribed')

    // An upgrade applies now, the difference prorated.
    await offers.getByRole('button', { name: 'Change to Business' }).click()
    await page.getByText(/Now on Business, billed monthly: the change applies now/).waitFor()
    await page.getByRole('heading', { name: 'Business plan' }).waitFor()
    expect((await api<BillingStatus>('GET', '/v1/billing/status')).tier).toBe('business')

    // A downgrade waits for the end of the paid period, shown as pending; keeping the plan drops it.
    await offers.getByRole('button', { name: 'Change to Team' }).click()
    await page.getByText(/Team, billed monthly, applies at the end of the paid period/).waitFor()
    await sub.getByText(/To Team, monthly, on/).waitFor()
    expect(await page.getByRole('heading', { name: 'Business plan' }).count()).toBe(1)
    expect(await offers.getByRole('button', { name: 'Change to Team' }).count()).toBe(0)
    expect(await offers.getByText('Cancel through Manage billing').count()).toBe(1)
    const pending = (await api<BillingStatus>('GET', '/v1/billing/status')).pending_change
    expect(pending).toMatchObject({ tier: 'team', term: 'month' })
    await r.screenshot(page, 'plan-pending-downgrade')
    await offers.getByRole('button', { name: 'Keep Business' }).click()
    await sub.getByText(/To Team, monthly, on/).waitFor({ state: 'detached' })
    expect((await api<BillingStatus>('GET', '/v1/billing/status')).pending_change).toBeNull()

    // The portal: the stand-in's page, and back.
    await page.getByRole('button', { name: 'Manage billing' }).click()
    await page.waitForURL(`${s.url}/portal/**`)
    await page.getByRole('link', { name: 'Return' }).click()
    await page.waitForURL('**/console/plan')
    await page.getByRole('heading', { name: 'Business plan' }).waitFor()

    // The Legal section shows who accepted each document and when; a cancelled checkout is said.
    await page.goto(r.url('/console/plan?checkout=cancelled'))
    await page.getByText('Checkout was cancelled: nothing was charged').waitFor()
    const documents = page.getByRole('region', { name: 'Legal documents' })
    for (const doc of legal.documents) {
      const row = documents.locator(`tr[data-document="${doc.document}"]`)
      await row.getByText('Accepted', { exact: true }).waitFor()
      expect(await row.textContent()).toContain('by Ada Admin (ada@example.com)')
    }
    expect(await documents.getByText('Not accepted').count()).toBe(0)
    await ctx.close()
  }, 120_000)
})
