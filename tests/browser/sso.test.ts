import { beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { type ConsoleRig, consoleRig, seriousViolations } from '../helpers/browser'
import { startProvider, type TestProvider } from '../helpers/oidc-provider'
import { freePort } from '../helpers/ports'

// Enterprise identity in the console, in Chromium against the real server and a real OpenID
// provider on loopback (tests/helpers/oidc-provider.ts): the provider buttons of the sign-in page
// only where configured, failed sign-ins in words, the callback page taking a session from the
// fragment, the admin's Single sign-on page (settings, test, recovery codes shown once) and a whole
// SSO sign-in through the provider.

// A port free now: the server's public address (and so its redirect URI) is known up front.
const PORT = freePort()
const BASE = `http://127.0.0.1:${PORT}`
const SSO_CLIENT = { client_id: 'engram-sso', client_secret: 'sso client secret 1' }
// The same provider plays Google, with a client of its own.
const GOOGLE_CLIENT = { client_id: 'engram-google', client_secret: 'google client secret 1' }
const ADMIN = { email: 'ada@example.com', password: 'correct horse 1', name: 'Ada Admin' }

// Filled before the server starts (the rig reads its env in its own beforeAll, registered after).
const env: Record<string, string> = {
  ENGRAM_PORT: String(PORT),
  ENGRAM_BASE_URL: BASE,
  ENGRAM_PASSWORD_MEMORY_KIB: '1024',
  // The provider is on loopback; outbound calls there are refused unless allowed.
  ENGRAM_SOURCES_ALLOW_LOOPBACK: 'true',
}
let provider: TestProvider
beforeAll(async () => {
  provider = await startProvider({
    clients: [
      { ...SSO_CLIENT, redirect_uris: [`${BASE}/auth/sso/callback`] },
      { ...GOOGLE_CLIENT, redirect_uris: [`${BASE}/v1/auth/google/callback`] },
    ],
    accounts: {
      carol: { email: 'carol@example.com', email_verified: true, name: 'Carol Sso' },
      ada: { email: ADMIN.email, email_verified: true, name: ADMIN.name },
      unverified: { email: 'dan@example.com', email_verified: false, name: 'Dan Unverified' },
    },
  })
  env.ENGRAM_GOOGLE_ISSUER = provider.issuer
  env.ENGRAM_GOOGLE_CLIENT_ID = GOOGLE_CLIENT.client_id
  env.ENGRAM_GOOGLE_CLIENT_SECRET = GOOGLE_CLIENT.client_secret
}, 60_000)
const rig = consoleRig(env)
// A server with neither Google nor any SSO: the sign-in page offers only the password.
const bare = consoleRig()

/** No serious or critical axe violations, in the light and the dark scheme. */
async function accessible(page: Page): Promise<void> {
  expect(await seriousViolations(page)).toEqual([])
  await page.emulateMedia({ colorScheme: 'dark' })
  expect(await seriousViolations(page)).toEqual([])
  await page.emulateMedia({ colorScheme: 'light' })
}

/** Registers a workspace and its admin through the API (invite mode: signed in at once). */
async function register(r: ConsoleRig, who: typeof ADMIN, workspace: string): Promise<string> {
  const res = await fetch(`${r.server.url}/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      workspace_name: workspace,
      name: who.name,
      email: who.email,
      password: who.password,
    }),
  })
  expect(res.status).toBe(200)
  return ((await res.json()) as { access_token: string }).access_token
}

/** A session through the API's password sign-in. */
async function apiLogin(r: ConsoleRig, who: { email: string; password: string }) {
  const res = await fetch(`${r.server.url}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: who.email, password: who.password }),
  })
  expect(res.status).toBe(200)
  return (await res.json()) as { access_token: string; expires_at: string }
}

/** Signs in on the sign-in page with a password; answers once the console shows its sections. */
async function passwordSignIn(page: Page, r: ConsoleRig, who: { email: string; password: string }) {
  await page.goto(r.url('/console/sign-in'))
  await page.getByLabel('Email').fill(who.email)
  await page.getByLabel('Password').fill(who.password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await page.getByRole('navigation', { name: 'Sections' }).waitFor()
}

/**
 * Plays the person at the provider: its sign-in screen is a test interaction with no page, so once
 * the browser reaches it the step that signs `account` in is opened in its place; everything else
 * (the authorization request, the redirect back with the code) is the real provider's.
 */
async function signInAtProvider(page: Page, account: string): Promise<void> {
  await page.waitForURL((u) => u.origin === provider.issuer && /^\/interaction\/[^/]+$/.test(u.pathname))
  await page.goto(`${page.url()}/login?account=${encodeURIComponent(account)}`)
}

describe('console: signing in without a provider', () => {
  test('the sign-in page offers only the password where nothing is configured, and says a failed hand-off in words', async () => {
    const r = bare()
    await register(r, ADMIN, 'Bare')
    const ctx = await r.context()
    const page = await ctx.newPage()
    await page.goto(r.url('/console/sign-in'))
    await page.getByLabel('Password').waitFor()
    // The configuration has been read by the time the links under the form show.
    await page.getByRole('link', { name: 'Request access' }).waitFor()
    expect(await page.getByRole('link', { name: 'Sign in with Google' }).count()).toBe(0)
    expect(await page.getByRole('button', { name: 'Sign in with SSO' }).count()).toBe(0)

    // A provider's refusal comes back as ?error=<code>: the page says it in words, not the code.
    await page.goto(r.url('/console/sign-in?error=access_denied'))
    expect(await page.getByRole('alert').textContent()).toBe(
      'Sign-in was cancelled at the identity provider. Nothing was changed; try again when ready.',
    )
    await page.goto(r.url('/console/sign-in?error=seat_cap_reached'))
    expect(await page.getByRole('alert').textContent()).toContain('no free seat')
    await page.goto(r.url('/console/sign-in?error=something_new'))
    expect(await page.getByRole('alert').textContent()).toBe(
      'Signing in through the identity provider did not work (something_new). Try again; if it keeps happening, tell your admin this code.',
    )
    await accessible(page)

    // Without ENGRAM_BASE_URL, the SSO page's redirect URI is a localhost one, and it says why.
    // (A `next` that is itself the sign-in page, as two redirects racing at a session's end make
    // it, is unwrapped: the visitor lands on the page, not on sign-in again.)
    const nested = encodeURIComponent(`/console/sign-in?next=${encodeURIComponent('/console/sso')}`)
    await page.goto(r.url(`/console/sign-in?next=${nested}`))
    await page.getByLabel('Email').fill(ADMIN.email)
    await page.getByLabel('Password').fill(ADMIN.password)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.waitForURL('**/console/sso')
    const uri = page.getByLabel('Redirect URI to register at the provider')
    await uri.waitFor()
    expect(await uri.inputValue()).toMatch(/^http:\/\/localhost:\d+\/auth\/sso\/callback$/)
    await page.getByText(/because this server has no public address set/).waitFor()
    await accessible(page)
    await page.getByRole('button', { name: 'Sign out' }).click()

    // The callback page opened with nothing to take says so, and signs nobody in.
    await page.goto(r.url('/console/auth/callback'))
    await page.getByRole('heading', { name: 'Nothing to sign in with' }).waitFor()
    expect(await page.evaluate(() => sessionStorage.getItem('engram.session'))).toBeNull()
    await accessible(page)
    await ctx.close()
  })
})

describe('console: single sign-on', () => {
  test('the callback page signs in from the fragment and leaves no token in the address bar or the history', async () => {
    const r = rig()
    await register(r, ADMIN, 'Acme')
    const s = await apiLogin(r, ADMIN)
    const ctx = await r.context()
    const page = await ctx.newPage()
    // The page to come back to is kept in the tab before leaving for a provider.
    await page.goto(r.url('/console/sign-in?next=%2Fconsole%2Fusage'))
    await page.evaluate(() => sessionStorage.setItem('engram.return_to', '/console/usage'))
    const fragment = new URLSearchParams({
      access_token: s.access_token,
      token_type: 'bearer',
      expires_at: s.expires_at,
    })
    await page.goto(r.url(`/console/auth/callback#${fragment}`))
    await page.waitForURL('**/console/usage')
    await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor()
    expect(page.url()).not.toContain('access_token')
    expect(
      await page.evaluate(() => JSON.parse(sessionStorage.getItem('engram.session') ?? '{}').token),
    ).toBe(s.access_token)
    // The callback's entry was replaced by the page it went on to: back is the page before it.
    await page.goBack()
    expect(page.url()).toBe(r.url('/console/sign-in?next=%2Fconsole%2Fusage'))
    await page.goForward()
    expect(page.url()).toBe(r.url('/console/usage'))
    await ctx.close()
  })

  test('Sign in with Google: an address with a password account is linked once with its password, then Google signs it in directly', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await ctx.newPage()
    // Google is configured and no workspace has SSO yet: only the Google button.
    await page.goto(r.url('/console/sign-in?next=%2Fconsole%2Fmcp'))
    const google = page.getByRole('link', { name: 'Sign in with Google' })
    await google.waitFor()
    expect(await page.getByRole('button', { name: 'Sign in with SSO' }).count()).toBe(0)
    await accessible(page)
    await r.screenshot(page, 'sign-in-google')

    // The address has a password account: the callback hands over a link ticket, and the link
    // page names the address and the provider and asks for that password.
    await google.click()
    await signInAtProvider(page, 'ada')
    await page.waitForURL('**/console/auth/link')
    await page.getByRole('heading', { name: 'Link your account' }).waitFor()
    expect(await page.getByText(/already has an Engram account/).textContent()).toContain(
      `${ADMIN.email} already has an Engram account that signs in with a password. Enter that password once to link your Google sign-in to it`,
    )
    expect(page.url()).not.toContain('link_ticket')
    await accessible(page)
    await r.screenshot(page, 'link-account')
    await page.getByLabel('Your Engram password').fill('not the password')
    await page.getByRole('button', { name: 'Link and sign in' }).click()
    await page.getByRole('alert').waitFor()
    expect(await page.getByRole('alert').textContent()).toMatch(/password/i)
    await page.getByLabel('Your Engram password').fill(ADMIN.password)
    await page.getByRole('button', { name: 'Link and sign in' }).click()
    await page.waitForURL('**/console/mcp')
    await page.getByRole('navigation', { name: 'Sections' }).waitFor()
    expect(await page.evaluate(() => sessionStorage.getItem('engram.link_ticket'))).toBeNull()

    // Linked: the next Google sign-in, in a fresh browser, goes straight in.
    const ctx2 = await r.context()
    const again = await ctx2.newPage()
    await again.goto(r.url('/console/sign-in'))
    await again.getByRole('link', { name: 'Sign in with Google' }).click()
    await signInAtProvider(again, 'ada')
    await again.waitForURL('**/console/bases')
    await again.getByRole('navigation', { name: 'Sections' }).waitFor()
    expect(await again.getByText(ADMIN.name).first().isVisible()).toBe(true)

    // The link page without a ticket (a reload after it was spent) says to start again.
    await again.goto(r.url('/console/auth/link'))
    await again.getByRole('heading', { name: 'This sign-in cannot be linked' }).waitFor()
    await accessible(again)
    await ctx2.close()
    await ctx.close()
  })

  test('an admin sets single sign-on up, copies the redirect URI, runs the test, gets recovery codes once when requiring it, and comes back through the provider', async () => {
    const r = rig()
    const ctx = await r.context()
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'])
    const page = await ctx.newPage()
    await passwordSignIn(page, r, ADMIN)
    await page.getByRole('link', { name: 'Single sign-on', exact: true }).click()
    await page.getByRole('heading', { name: 'Single sign-on', level: 1 }).waitFor()
    await page.getByText('Single sign-on is off.').waitFor()
    // The redirect URI to register at the provider comes first, with its copy button; the server
    // has its public address, so no warning about it.
    const uri = page.getByLabel('Redirect URI to register at the provider')
    expect(await uri.inputValue()).toBe(`${BASE}/auth/sso/callback`)
    await page.getByRole('button', { name: 'Copy' }).click()
    await page.getByText('Copied').waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${BASE}/auth/sso/callback`)
    expect(await page.getByText('this server has no public address set').count()).toBe(0)
    await accessible(page)

    // A public mail domain is refused in the API's words, and nothing is saved.
    await page.getByLabel('Issuer URL').fill(provider.issuer)
    await page.getByLabel('Client ID').fill(SSO_CLIENT.client_id)
    await page.getByLabel('Client secret').fill(SSO_CLIENT.client_secret)
    await page.getByLabel('Email domains').fill('gmail.com')
    await page.getByRole('button', { name: 'Turn on single sign-on' }).click()
    expect(await page.getByRole('alert').textContent()).toContain(
      'gmail.com is a public or throwaway mail domain',
    )
    await page.getByLabel('Email domains').fill('Example.com, @example.com')
    await page.getByRole('button', { name: 'Turn on single sign-on' }).click()
    await page.getByText('Single sign-on is on.').waitFor()

    // The redirect URI, now the server's own, is the one registered before saving.
    const redirect = page.getByLabel('Redirect URI to register at the provider')
    expect(await redirect.inputValue()).toBe(`${BASE}/auth/sso/callback`)
    // The stored settings come back; the secret never does.
    expect(await page.getByLabel('Email domains').inputValue()).toBe('example.com')
    expect(await page.getByLabel('Client secret').inputValue()).toBe('')
    await page.getByText('A secret is stored (never shown).').waitFor()

    // The test: each check against the real provider, with what it found.
    await page.getByRole('button', { name: 'Run the test' }).click()
    const results = page.getByRole('list', { name: 'Test results' })
    await results.waitFor()
    await page.getByText('All checks passed').waitFor()
    expect(await results.getByRole('listitem').count()).toBe(3)
    for (const name of ['Discovery document', 'Signing keys (JWKS)', 'Client at the token endpoint'])
      expect(await results.getByRole('listitem').filter({ hasText: name }).textContent()).toStartWith(
        'Passed',
      )
    await accessible(page)
    await r.screenshot(page, 'sso-settings')

    // Requiring SSO: a warning first, then the recovery codes, shown once, to copy or download.
    await page.getByLabel(/Require single sign-on/).check()
    await page.getByText(/ends every session signed in with one, yours included/).waitFor()
    await page.getByRole('button', { name: 'Save settings' }).click()
    const dialog = page.getByRole('dialog', { name: 'Your recovery codes' })
    await dialog.waitFor()
    await dialog.getByText('Save these now: they are shown once.').waitFor()
    const codes = await dialog
      .getByRole('list', { name: 'Recovery codes' })
      .getByRole('listitem')
      .allTextContents()
    expect(codes).toHaveLength(10)
    expect(new Set(codes).size).toBe(10)
    await accessible(page)
    await r.screenshot(page, 'sso-recovery-codes')
    await dialog.getByRole('button', { name: 'Copy the codes' }).click()
    await dialog.getByText('Copied').waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(codes.join('\n'))
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      dialog.getByRole('button', { name: 'Download' }).click(),
    ])
    expect(download.suggestedFilename()).toBe('engram-recovery-codes.txt')
    const saved = readFileSync((await download.path()) as string, 'utf8')
    for (const c of codes) expect(saved).toContain(`\n${c}\n`)
    await dialog.getByRole('button', { name: 'I have saved them' }).click()
    // Requiring SSO ended the password sessions, this one too: the console says so and the admin
    // comes back through the provider, to this page.
    await page.waitForURL('**/console/sign-in?next=%2Fconsole%2Fsso')
    await page.getByText('You were signed out').waitFor()
    await page.getByRole('button', { name: 'Sign in with SSO' }).click()
    await page.getByLabel('Work email').fill(ADMIN.email)
    await page.getByRole('button', { name: 'Continue' }).click()
    await signInAtProvider(page, 'ada')
    await page.waitForURL('**/console/sso')
    await page.getByText('Single sign-on is required.').waitFor()
    // Shown once: the page shows how many are left, never the codes.
    await page.getByText(/^10 codes are left\./).waitFor()
    expect(await page.getByText(codes[0] as string).count()).toBe(0)
    recoveryCodes = codes
    await ctx.close()
  })

  test('a password refused for SSO offers SSO for the same address, and an admin signs in with a recovery code', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await ctx.newPage()
    await page.goto(r.url('/console/sign-in'))
    await page.getByLabel('Email').fill(ADMIN.email)
    await page.getByLabel('Password').fill(ADMIN.password)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.getByText('This workspace signs in through single sign-on').waitFor()
    await page.getByRole('button', { name: `Continue with SSO as ${ADMIN.email}` }).waitFor()
    await accessible(page)
    await r.screenshot(page, 'sso-required')

    // A wrong code is refused; the field stays; a good one signs the admin in.
    await page.getByText('An admin with a recovery code?').click()
    await page.getByLabel('Recovery code').fill('not-a-code')
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.getByText('The recovery code is not valid or was already used.').waitFor()
    await page.getByLabel('Recovery code').fill(recoveryCodes[0] as string)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.getByRole('navigation', { name: 'Sections' }).waitFor()
    await page.goto(r.url('/console/sso'))
    await page.getByText(/^9 codes are left\./).waitFor()

    // New codes replace the old ones, after a confirmation, and are shown once like the first.
    await page.getByRole('button', { name: 'Make new recovery codes' }).click()
    await page
      .getByRole('dialog', { name: 'Make new recovery codes?' })
      .getByRole('button', { name: 'Make new codes' })
      .click()
    const dialog = page.getByRole('dialog', { name: 'Your recovery codes' })
    await dialog.waitFor()
    const fresh = await dialog
      .getByRole('list', { name: 'Recovery codes' })
      .getByRole('listitem')
      .allTextContents()
    expect(fresh).toHaveLength(10)
    expect(fresh).not.toContain(recoveryCodes[1])
    await dialog.getByRole('button', { name: 'I have saved them' }).click()
    await page.getByText(/^10 codes are left\./).waitFor()
    expect(await page.getByText(fresh[0] as string).count()).toBe(0)
    await ctx.close()
  })

  test('Sign in with SSO: the work address first, the real provider, and back signed in; a domain without SSO is told so', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await ctx.newPage()
    await page.goto(r.url('/console/sign-in?next=%2Fconsole%2Fstatus'))
    await page.getByRole('button', { name: 'Sign in with SSO' }).click()
    await page.getByRole('heading', { name: 'Sign in with SSO' }).waitFor()
    await accessible(page)
    await page.getByLabel('Work email').fill('someone@nowhere.org')
    await page.getByRole('button', { name: 'Continue' }).click()
    expect(await page.getByRole('alert').textContent()).toBe(
      "Single sign-on is not set up for nowhere.org. Sign in with your password, or ask your workspace's admin.",
    )

    await page.getByLabel('Work email').fill('carol@example.com')
    await page.getByRole('button', { name: 'Continue' }).click()
    await signInAtProvider(page, 'carol')
    // Off to the provider, back through the server's callback, and on to the page asked for.
    await page.waitForURL('**/console/status')
    await page.getByRole('navigation', { name: 'Sections' }).waitFor()
    expect(page.url()).toBe(r.url('/console/status'))
    expect(await page.getByText('Carol Sso').first().isVisible()).toBe(true)
    expect(provider.seen).toContain('POST /token')
    await r.screenshot(page, 'sso-signed-in')
    // Carol joined as a member: no Single sign-on section, and its page says it is for admins.
    const nav = page.getByRole('navigation', { name: 'Sections' })
    expect(await nav.getByRole('link', { name: 'Single sign-on' }).count()).toBe(0)
    await page.goto(r.url('/console/sso'))
    await page.getByRole('heading', { name: 'Not available' }).waitFor()
    expect(await page.getByRole('button', { name: /Save settings|Turn on single sign-on/ }).count()).toBe(0)

    // An address the provider has not verified comes back to sign-in with the reason in words.
    // A browser of its own: the provider still holds Carol's session in this one.
    const ctx2 = await r.context()
    const other = await ctx2.newPage()
    await other.goto(r.url('/console/sign-in'))
    await other.getByRole('button', { name: 'Sign in with SSO' }).click()
    await other.getByLabel('Work email').fill('dan@example.com')
    await other.getByRole('button', { name: 'Continue' }).click()
    await signInAtProvider(other, 'unverified')
    await other.waitForURL('**/console/sign-in?error=*')
    expect(await other.getByRole('alert').textContent()).toBe(
      'The identity provider has not verified this email address, so it cannot be used to sign in.',
    )
    // Google for an address of a workspace that requires SSO lands back on sign-in, in words.
    const ctx3 = await r.context()
    const third = await ctx3.newPage()
    await third.goto(r.url('/console/sign-in'))
    await third.getByRole('link', { name: 'Sign in with Google' }).click()
    await signInAtProvider(third, 'ada')
    await third.waitForURL('**/console/sign-in?error=sso_required')
    expect(await third.getByRole('alert').textContent()).toBe(
      'Your workspace signs in with single sign-on: use “Sign in with SSO” and your work address.',
    )
    await third.getByRole('button', { name: 'Sign in with SSO' }).waitFor()
    await ctx3.close()
    await ctx2.close()
    await ctx.close()
  })
})

let recoveryCodes: string[] = []
