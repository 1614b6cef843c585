import { beforeAll, describe, expect, test } from 'bun:test'
import type { BrowserContext, Page } from 'playwright-core'
import { consoleRig, seriousViolations } from '../helpers/browser'
import { refuseClipboard } from '../helpers/console-steps'
import { type Account, registerAdmin } from '../helpers/console-workspace'

// Issue 34, "small things that stop people": copying where the clipboard API is refused, a light
// and dark switch that is kept, a notice when the session ended by itself, where invitation links
// point, and an add-source form that offers no kind the server has switched off.

const HOUR = 3_600_000

/** A page whose tab holds `token` as its session (expiring at `expiresAt`), as after a sign-in. */
async function withSession(ctx: BrowserContext, token: string, expiresAt = new Date(Date.now() + HOUR)) {
  await ctx.addInitScript((s) => sessionStorage.setItem('engram.session', JSON.stringify(s)), {
    token,
    expiresAt: expiresAt.toISOString(),
  })
  return ctx.newPage()
}

/** Invites someone on the members page; answers the invitation link it shows (email is off). */
async function inviteLink(page: Page): Promise<string> {
  await page.getByLabel('Email address').fill(`someone-${Date.now()}@example.com`)
  await page.getByRole('button', { name: 'Send invitation' }).click()
  const field = page.getByLabel('Invitation link')
  await field.waitFor()
  return field.inputValue()
}

const background = (page: Page) =>
  page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)
const LIGHT_BG = 'rgb(247, 247, 248)'
const DARK_BG = 'rgb(17, 19, 23)'

describe('console: the small things of the first hour', () => {
  const rig = consoleRig()
  let admin: Account
  beforeAll(async () => {
    admin = await registerAdmin(rig())
  })

  test('copy works where the clipboard API is refused: the copy command copies the text', async () => {
    const r = rig()
    const ctx = await r.context()
    await refuseClipboard(ctx)
    const page = await withSession(ctx, admin.token)
    await page.goto(r.url('/console/members'))
    const link = await inviteLink(page)
    await page.getByRole('button', { name: 'Copy', exact: true }).click()
    await page.getByRole('status').filter({ hasText: 'Copied' }).waitFor()
    expect(await page.evaluate(() => (window as unknown as { copied: string[] }).copied)).toEqual([link])
    // The text area the command used is gone, and focus is back on the button.
    expect(await page.locator('.copy-scratch').count()).toBe(0)
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Copy')
    await ctx.close()
  }, 30_000)

  test('where the copy command fails too, the text is shown selected, with how to copy it', async () => {
    const r = rig()
    const ctx = await r.context()
    await refuseClipboard(ctx, { commandToo: true })
    const page = await withSession(ctx, admin.token)
    await page.goto(r.url('/console/members'))
    const link = await inviteLink(page)
    await page.getByRole('button', { name: 'Copy', exact: true }).click()
    const status = page.getByRole('status').filter({ hasText: 'would not copy' })
    await status.waitFor()
    expect(await status.textContent()).toContain('press Ctrl+C')
    const manual = page.getByLabel('Copy: the text to copy')
    await manual.waitFor()
    const chosen = await manual.evaluate((el: HTMLInputElement) => ({
      focused: el === document.activeElement,
      selected: el.value.slice(el.selectionStart ?? 0, el.selectionEnd ?? 0),
    }))
    expect(chosen).toEqual({ focused: true, selected: link })
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'copy-fallback')
    await ctx.close()
  }, 30_000)

  test('a multi-line snippet copied by hand keeps its line breaks: a text area, sized, selected', async () => {
    const r = rig()
    const ctx = await r.context()
    await refuseClipboard(ctx, { commandToo: true })
    // The MCP page shows its configurations for a base: an empty one is enough.
    const made = await fetch(`${r.server.url}/v1/corpora`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin.token}` },
      body: JSON.stringify({ name: 'Snippets' }),
    })
    expect(made.status).toBeLessThan(300)
    const page = await withSession(ctx, admin.token)
    await page.goto(r.url('/console/mcp'))
    const snippet = page.locator('section.snippet').first()
    await snippet.waitFor()
    const text = (await snippet.locator('pre').textContent()) ?? ''
    expect(text).toContain('\n')
    await snippet.getByRole('button', { name: /^Copy: / }).click()
    await snippet.getByRole('status').filter({ hasText: 'would not copy' }).waitFor()
    await page.waitForFunction(() => document.activeElement?.classList.contains('copy-manual') ?? false)
    const manual = snippet.getByLabel(/: the text to copy$/)
    const field = await manual.evaluate((el: HTMLInputElement | HTMLTextAreaElement) => ({
      tag: el.tagName,
      readOnly: el.readOnly,
      focused: el === document.activeElement,
      selected: el.value.slice(el.selectionStart ?? 0, el.selectionEnd ?? 0),
      rows: el instanceof HTMLTextAreaElement ? el.rows : 1,
      value: el.value,
    }))
    expect(field.tag).toBe('TEXTAREA')
    expect(field.value).toBe(text)
    expect(field).toMatchObject({ readOnly: true, focused: true, selected: text })
    expect(field.rows).toBe(Math.min(text.split('\n').length, 24))
    await ctx.close()
  }, 30_000)

  test('the members page says invitation links need ENGRAM_BASE_URL when none is set', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await withSession(ctx, admin.token)
    await page.goto(r.url('/console/members'))
    const note = page.getByRole('region', { name: 'Invite someone' }).getByRole('status')
    await note.filter({ hasText: 'ENGRAM_BASE_URL' }).waitFor()
    expect(await note.textContent()).toContain('Invitation links start with http://localhost:')
    // A server with its address set says nothing of it.
    const config = (await (await fetch(`${r.server.url}/v1/auth/config`)).json()) as Record<string, unknown>
    await page.route('**/v1/auth/config', (route) =>
      route.fulfill({ json: { ...config, base_url_configured: true } }),
    )
    await page.reload()
    await page.getByRole('heading', { name: 'Invite someone' }).waitFor()
    await page.getByRole('button', { name: 'Send invitation' }).waitFor()
    expect(await page.getByText('ENGRAM_BASE_URL').count()).toBe(0)
    await ctx.close()
  }, 30_000)

  test('the theme can be switched by hand; the choice is kept, and until then the system decides', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await withSession(ctx, admin.token)
    await page.goto(r.url('/console/bases'))
    const theme = page.getByLabel('Theme')
    await theme.waitFor()
    expect(await theme.inputValue()).toBe('system')
    expect(await background(page)).toBe(LIGHT_BG)
    await theme.selectOption('dark')
    expect(await background(page)).toBe(DARK_BG)
    expect(await seriousViolations(page)).toEqual([])
    await page.screenshot({ path: '/tmp/theme-dark.png' })
    await r.screenshot(page, 'theme-dark')
    // Kept: after a reload, and in another page of the same browser (the sign-in page too).
    await page.reload()
    await page.getByLabel('Theme').waitFor()
    expect(await background(page)).toBe(DARK_BG)
    expect(await page.getByLabel('Theme').inputValue()).toBe('dark')
    const other = await ctx.newPage()
    await other.goto(r.url('/console/sign-in'))
    await other.getByRole('heading', { name: 'Sign in' }).waitFor()
    expect(await background(other)).toBe(DARK_BG)
    await page.getByLabel('Theme').selectOption('light')
    expect(await background(page)).toBe(LIGHT_BG)
    await page.screenshot({ path: '/tmp/theme-light.png' })
    await ctx.close()

    // A dark system: dark until light is chosen, which then wins over the system.
    const dark = await r.context({ dark: true })
    const p2 = await withSession(dark, admin.token)
    await p2.goto(r.url('/console/bases'))
    await p2.getByLabel('Theme').waitFor()
    expect(await background(p2)).toBe(DARK_BG)
    await p2.getByLabel('Theme').selectOption('light')
    expect(await background(p2)).toBe(LIGHT_BG)
    expect(await seriousViolations(p2)).toEqual([])
    await p2.reload()
    await p2.getByLabel('Theme').waitFor()
    expect(await background(p2)).toBe(LIGHT_BG)
    await dark.close()
  }, 30_000)

  test('a session the server no longer accepts lands on sign-in saying you were signed out', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await withSession(ctx, 'a-token-the-server-refuses')
    await page.goto(r.url('/console/bases'))
    await page.waitForURL(/\/console\/sign-in\?next=/)
    const notice = page.getByRole('status').filter({ hasText: 'You were signed out' })
    await notice.waitFor()
    expect(await notice.textContent()).toContain('to the page you were on')
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'signed-out')
    // Signing in again clears it and goes back.
    await page.getByLabel('Email').fill(admin.email)
    await page.getByLabel('Password').fill(admin.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL('**/console/bases')
    await ctx.close()
  }, 30_000)

  test('an expired session says so too; signing out on purpose does not', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await withSession(ctx, admin.token, new Date(Date.now() - 60_000))
    await page.goto(r.url('/console/keys'))
    await page.waitForURL(/\/console\/sign-in/)
    await page.getByRole('status').filter({ hasText: 'You were signed out' }).waitFor()
    await ctx.close()

    const fresh = await r.context()
    const p2 = await withSession(fresh, admin.token)
    await p2.goto(r.url('/console/bases'))
    await p2.getByRole('button', { name: 'Sign out' }).click()
    await p2.getByRole('heading', { name: 'Sign in' }).waitFor()
    expect(await p2.getByText('You were signed out').count()).toBe(0)
    await fresh.close()
  }, 30_000)

  test('the add-source form offers no kind the server switched off, and says why', async () => {
    const r = rig()
    const created = await fetch(`${r.server.url}/v1/corpora`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Handbook' }),
    })
    const base = (await created.json()) as { id: string }
    const ctx = await r.context()
    const page = await withSession(ctx, admin.token)
    await page.goto(r.url(`/console/bases/${base.id}?tab=sources`))
    await page.getByRole('button', { name: 'Add source' }).click()
    const form = page.getByRole('form', { name: 'Add a source' })
    const kind = form.getByLabel('Kind')
    await kind.waitFor()
    const offered = await kind.locator('option').allTextContents()
    expect(offered).not.toContain('Server folder')
    expect(offered).toContain('S3 bucket')
    expect(await kind.inputValue()).toBe('s3')
    expect(await form.getByText('Server folder is not offered.').textContent()).toContain(
      'ENGRAM_SOURCES_FOLDER_ROOTS',
    )
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'add-source-kinds')
    await ctx.close()
  }, 30_000)
})
