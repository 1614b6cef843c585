import { describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page, Route } from 'playwright-core'
import { consoleRig, seriousViolations } from '../helpers/browser'
import { type Account, signInUi } from '../helpers/console-workspace'

// Issue 37, the console's Plan page: the workspace's caps with their use, the plans on offer, the
// operator's sentence when billing is off, and the legal documents; with billing on, "Upgrade"
// goes through the legal dialog to the checkout's URL. The workspace signs up in open mode onto a
// small plan from an operator's plans file, so a few bases and keys fill its caps.

const MB = 1024 ** 2
const SMALL = {
  id: 'small',
  name: 'Small',
  prices: { currency: 'usd', month: 0, year: 0 },
  caps: { bases: 2, documents: 5, storage_bytes: MB, queries_per_month: null, seats: 3, api_keys: 5 },
  rate_card: { queries_per_1000: null, storage_gb_month: null },
  public: true,
}
const TEAM = {
  id: 'team',
  name: 'Team',
  prices: { currency: 'usd', month: 49, year: 490 },
  caps: {
    bases: 5,
    documents: 5000,
    storage_bytes: 20 * 1024 * MB,
    queries_per_month: 20_000,
    seats: 10,
    api_keys: 10,
  },
  rate_card: { queries_per_1000: null, storage_gb_month: null },
  public: true,
}
const plansFile = join(mkdtempSync(join(tmpdir(), 'engram-plan-page-')), 'plans.json')
writeFileSync(plansFile, JSON.stringify({ plans: [SMALL, TEAM] }))

const rig = consoleRig({
  ENGRAM_SIGNUP_MODE: 'open',
  ENGRAM_PLANS_FILE: plansFile,
  ENGRAM_DEFAULT_PLAN: 'small',
})

let admin: Account | undefined
/** The workspace's admin with two bases (the cap: full) and four API keys of five (nearly full). */
async function theAdmin(): Promise<Account> {
  if (admin) return admin
  const a = await openSignUp()
  for (const name of ['Handbook', 'Contracts']) await api(a, 'POST', '/v1/corpora', { name })
  for (let i = 1; i <= 4; i++) await api(a, 'POST', '/v1/api-keys', { name: `Key ${i}`, scopes: ['query'] })
  admin = a
  return a
}

/** Signs a workspace up in open mode (onto the default plan), follows its verification link, signs in. */
async function openSignUp(): Promise<Account> {
  const url = rig().server.url
  const email = 'ada@example.com'
  const password = 'correct horse battery'
  const made = await fetch(`${url}/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ workspace_name: 'Acme Research', name: 'Ada Admin', email, password }),
  })
  const { verify_link } = (await made.json()) as { verify_link: string }
  const token = new URL(verify_link).searchParams.get('token') ?? ''
  expect((await fetch(`${url}/v1/auth/verify-email?token=${token}`)).status).toBe(200)
  const login = await fetch(`${url}/v1/auth/login`, {
    method: 'POST',
    body: new URLSearchParams({ username: email, password }),
  })
  const { access_token } = (await login.json()) as { access_token: string }
  return { email, password, token: access_token }
}

/** A call as `who`; throws on a refusal. */
async function api<T>(who: Account, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${rig().server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${who.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return JSON.parse(text) as T
}

/** The text of a cap's row on the page. */
async function cap(page: Page, name: string): Promise<string> {
  return (await page.locator(`li[data-cap="${name}"]`).textContent()) ?? ''
}

interface LegalStatus {
  all_accepted: boolean
  documents: { document: string; version: string; title: string; accepted: boolean }[]
}

describe('console: plan', () => {
  test('the caps show their use (full, nearly full, unlimited), billing off says the operator sets plans, and no buy button', async () => {
    const r = rig()
    const a = await theAdmin()
    const ctx = await r.context()
    const page = await ctx.newPage()
    await signInUi(page, r, a, '/console/bases')
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Plan' }).click()
    await page.getByRole('heading', { name: 'Plan', level: 1 }).waitFor()
    await page.getByRole('heading', { name: 'Small plan' }).waitFor()

    expect(await cap(page, 'bases')).toContain('2 of 2')
    expect(await cap(page, 'bases')).toContain('Limit reached')
    expect(await page.locator('li[data-cap="bases"]').getAttribute('class')).toContain('cap-full')
    expect(await cap(page, 'api_keys')).toContain('4 of 5')
    expect(await cap(page, 'api_keys')).toContain('Nearly full')
    expect(await page.locator('li[data-cap="api_keys"]').getAttribute('class')).toContain('cap-warn')
    expect(await cap(page, 'seats')).toContain('1 of 3')
    expect(await page.locator('li[data-cap="seats"]').getAttribute('class')).toContain('cap-ok')
    expect(await cap(page, 'documents')).toContain('0 of 5')
    expect(await cap(page, 'storage_bytes')).toContain('0 B of 1 MB')
    expect(await cap(page, 'queries_per_month')).toContain('0 used, unlimited')
    const bar = page.getByRole('progressbar', { name: /API keys/ })
    expect(await bar.getAttribute('aria-valuenow')).toBe('80')
    expect(await page.getByText(/Estimated cost of this period/).textContent()).toContain('$0')

    // Billing off: the operator's sentence, no way to buy.
    await page.getByText('Plans are set by your operator with').waitFor()
    expect(await page.getByText('engram plan set', { exact: true }).count()).toBe(1)
    expect(await page.getByRole('button', { name: /Upgrade|Change to|Manage billing/ }).count()).toBe(0)

    // The plans on offer side by side, the current one marked; the year's prices on the switch.
    const offers = page.getByRole('region', { name: 'Plans on offer' })
    expect(await offers.getByRole('columnheader', { name: /Small/ }).textContent()).toContain('Current plan')
    expect(await offers.getByRole('columnheader', { name: /Team/ }).textContent()).not.toContain(
      'Current plan',
    )
    await offers.getByText('$49 / month').waitFor()
    await page.getByText('Yearly', { exact: true }).click()
    await offers.getByText('$490 / year').waitFor()
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'plan-billing-off')

    // A cap reached elsewhere is said in the API's words, with a way to the Plan page.
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Document bases' })
      .click()
    await page.getByLabel('New base name').fill('A third base')
    await page.getByRole('button', { name: 'Create base' }).click()
    const refusal = page.getByRole('alert')
    await refusal.waitFor()
    expect(await refusal.textContent()).toContain("The workspace's plan allows 2 bases; it uses 2")
    await refusal.getByRole('link', { name: 'See the plan and its limits' }).click()
    await page.waitForURL('**/console/plan')
    await page.getByRole('heading', { name: 'Small plan' }).waitFor()
    await ctx.close()
  }, 90_000)

  test('billing on: Upgrade asks to accept each unaccepted document, then goes to the checkout; the Legal section shows the acceptances', async () => {
    const r = rig()
    const a = await theAdmin()
    const ctx = await r.context()
    const page = await ctx.newPage()
    const checkoutUrl = r.url('/console/checkout-standin/cs_test_1')
    const checkouts: unknown[] = []
    // The billing routes answer as billing with Stripe does (docs/billing.md); the legal gate asks
    // the real server which document is the first the workspace has not accepted.
    await page.route(/\/v1\/billing\/(status|checkout)$/, async (route: Route) => {
      const req = route.request()
      if (req.url().endsWith('/status')) {
        return route.fulfill({ json: billingStatus() })
      }
      const legal = await api<LegalStatus>(a, 'GET', '/v1/legal/status')
      const first = legal.documents.find((d) => !d.accepted)
      if (first) {
        return route.fulfill({
          status: 403,
          json: {
            error: {
              code: 'legal_acceptance_required',
              message: `Accept the current ${first.document} (version ${first.version}) first.`,
              details: { document: first.document, version: first.version, accept_url: '/v1/legal/accept' },
            },
          },
        })
      }
      checkouts.push(req.postDataJSON())
      return route.fulfill({ json: { url: checkoutUrl, session_id: 'cs_test_1' } })
    })
    await signInUi(page, r, a, '/console/plan')
    const legal = page.getByRole('region', { name: 'Legal documents' })
    await legal.getByText('Not accepted').first().waitFor()
    const status = await api<LegalStatus>(a, 'GET', '/v1/legal/status')
    expect(status.all_accepted).toBe(false)
    const before = await Promise.all(
      status.documents.map((d) =>
        api<LegalStatus['documents'][number] & { text: string }>(a, 'GET', `/v1/legal/${d.document}`),
      ),
    )

    await page.getByText('Yearly', { exact: true }).click()
    await page.getByRole('button', { name: 'Upgrade to Team' }).click()
    // Each document in turn, as the server names the next one not accepted.
    for (const doc of before) {
      const dialog = page.getByRole('dialog', { name: doc.title })
      await dialog.getByText(`Version ${doc.version}.`).waitFor()
      expect(await dialog.getByRole('document').textContent()).toContain(doc.text.slice(0, 40))
      if (doc === before[0]) {
        expect(await seriousViolations(page)).toEqual([])
        await r.screenshot(page, 'plan-legal-dialog')
      }
      await dialog.getByRole('button', { name: 'I accept' }).click()
      await dialog.waitFor({ state: 'hidden' })
    }
    await page.waitForURL(checkoutUrl)
    expect(checkouts).toEqual([{ tier: 'team', term: 'year' }])
    const after = await api<LegalStatus>(a, 'GET', '/v1/legal/status')
    expect(after.all_accepted).toBe(true)

    await page.goto(r.url('/console/plan?checkout=cancelled'))
    await page.getByText('Checkout was cancelled: nothing was charged').waitFor()
    for (const doc of after.documents) {
      const row = legal.locator(`tr[data-document="${doc.document}"]`)
      await row.getByText('Accepted', { exact: true }).waitFor()
      expect(await row.textContent()).toContain('by Ada Admin (ada@example.com)')
    }
    expect(await legal.getByText('Not accepted').count()).toBe(0)
    await r.screenshot(page, 'plan-legal-accepted')
    await ctx.close()
  }, 90_000)
})

/** `GET /v1/billing/status` of a workspace with billing on and no subscription yet. */
function billingStatus() {
  return {
    billing_enabled: true,
    rate_card: { queries_per_1000: null, storage_gb_month: null },
    portal_available: false,
    tier: 'small',
    term: null,
    subscription_status: null,
    trial_ends_at: null,
    renews_at: null,
    cancel_at_period_end: false,
    checkout_required: true,
    caps: SMALL.caps,
    pending_change: null,
  }
}
