import { describe, expect, test } from 'bun:test'
import { consoleRig, seriousViolations } from '../helpers/browser'

const rig = consoleRig()

describe('console: first run, sign-in and sign-out', () => {
  test('a browser at / lands on the console, which offers to create the first workspace and signs its creator in', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await ctx.newPage()
    const foreign: string[] = []
    page.on('request', (req) => {
      if (!req.url().startsWith(r.server.url) && !req.url().startsWith('data:')) foreign.push(req.url())
    })
    await page.goto(r.url('/'))
    await page.waitForURL('**/console/sign-up')
    await page.getByRole('heading', { name: 'Welcome to Engram' }).waitFor()
    expect(await seriousViolations(page)).toEqual([])
    await page.getByLabel('Workspace name').fill('Acme Research')
    await page.getByLabel('Your name').fill('Ada Admin')
    await page.getByLabel('Email').fill('ada@example.com')
    await page.getByLabel('Password').fill('correct horse battery')
    await page.getByRole('button', { name: 'Create the workspace' }).click()
    await page.waitForURL('**/console/bases')
    await page.getByRole('navigation', { name: 'Sections' }).waitFor()
    expect(await page.getByText('Acme Research').first().isVisible()).toBe(true)
    // An admin sees the admin sections.
    expect(await page.getByRole('link', { name: 'API keys' }).isVisible()).toBe(true)
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'first-run')
    expect(foreign).toEqual([])
    await ctx.close()
  })

  test('sign-out ends the session; a protected page then sends the visitor to sign-in and back after it', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await ctx.newPage()
    await page.goto(r.url('/console/keys'))
    await page.waitForURL('**/console/sign-in?next=*')
    // The first workspace exists: the console no longer offers to create one.
    expect(await page.getByRole('link', { name: 'Create a workspace' }).count()).toBe(0)
    expect(await seriousViolations(page)).toEqual([])
    await page.getByLabel('Email').fill('ada@example.com')
    await page.getByLabel('Password').fill('wrong password!')
    await page.getByRole('button', { name: 'Sign in' }).click()
    const alert = page.getByRole('alert')
    await alert.waitFor()
    expect(await alert.textContent()).toMatch(/password/i)
    await page.getByLabel('Password').fill('correct horse battery')
    await page.getByLabel('Keep me signed in').check()
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL('**/console/keys')
    // The token survives a reload of the tab (sessionStorage)...
    await page.reload()
    await page.getByRole('navigation', { name: 'Sections' }).waitFor()
    expect(await page.evaluate(() => localStorage.length)).toBe(0)
    // ...and sign-out forgets it.
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL('**/console/sign-in')
    expect(await page.evaluate(() => sessionStorage.getItem('engram.session'))).toBeNull()
    await page.goto(r.url('/console/bases'))
    await page.waitForURL('**/console/sign-in?next=*')
    await r.screenshot(page, 'sign-out')
    await ctx.close()
  })

  test('before half the session has passed the console swaps its token without the user noticing', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await ctx.newPage()
    // The browser's clock only: the console plans the refresh by it, the server answers by its own.
    await page.clock.install()
    await page.goto(r.url('/console/sign-in'))
    await page.getByLabel('Email').fill('ada@example.com')
    await page.getByLabel('Password').fill('correct horse battery')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL('**/console/bases')
    const stored = await page.evaluate(() => JSON.parse(sessionStorage.getItem('engram.session') ?? 'null'))
    const life = Date.parse(stored.expiresAt) - Date.now()
    const refreshed = page.waitForRequest(
      (req) => req.url().endsWith('/v1/auth/refresh') && req.method() === 'POST',
    )
    await page.clock.fastForward(Math.ceil(life / 2) + 1000)
    const req = await refreshed
    expect(req.headers().authorization).toBe(`Bearer ${stored.token}`)
    expect((await req.response())?.status()).toBe(200)
    // Still signed in, on the same page.
    await page.getByRole('navigation', { name: 'Sections' }).waitFor()
    expect(page.url()).toEndWith('/console/bases')
    await r.screenshot(page, 'session-refresh')
    await ctx.close()
  })

  test('a session handed over in the fragment (social or single sign-on) signs the tab in and leaves no trace in the address', async () => {
    const r = rig()
    const login = await fetch(`${r.server.url}/v1/auth/login`, {
      method: 'POST',
      body: new URLSearchParams({ username: 'ada@example.com', password: 'correct horse battery' }),
    })
    const s = (await login.json()) as { access_token: string; expires_at: string }
    const ctx = await r.context()
    const page = await ctx.newPage()
    const hand = new URLSearchParams({ access_token: s.access_token, expires_at: s.expires_at })
    // Where the server's Google and SSO callbacks send the browser (the page to go on to was kept
    // in the tab before leaving for the provider).
    await page.goto(r.url('/console/sign-in'))
    await page.evaluate(() => sessionStorage.setItem('engram.return_to', '/console/status'))
    await page.goto(r.url(`/console/auth/callback#${hand}`))
    await page.waitForURL('**/console/status')
    await page.getByRole('navigation', { name: 'Sections' }).waitFor()
    expect(page.url()).not.toContain('access_token')
    // The hand-off replaced its own history entry: one step back is the page before it.
    await r.screenshot(page, 'fragment-hand-off')
    await page.goBack()
    expect(page.url()).toBe(r.url('/console/sign-in'))
    await ctx.close()
  })
})
