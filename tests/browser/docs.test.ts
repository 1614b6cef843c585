import { describe, expect, test } from 'bun:test'
import { consoleRig } from '../helpers/browser'
import { registerAdmin } from '../helpers/console-workspace'

const rig = consoleRig()

/** Mints an API key through the API (what this test is not about). */
async function queryKey(url: string, token: string): Promise<string> {
  const res = await fetch(`${url}/v1/api-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ name: 'docs page', scopes: ['query'] }),
  })
  expect(res.status).toBe(200)
  return ((await res.json()) as { key: string }).key
}

describe('the API reference at /docs', () => {
  test('a reader authorizes with an API key, tries GET /v1/corpora and sees a 200, all from this origin under its policy', async () => {
    const r = rig()
    const admin = await registerAdmin(r)
    const key = await queryKey(r.server.url, admin.token)
    const ctx = await r.context()
    const page = await ctx.newPage()
    const origins = new Set<string>()
    page.on('request', (req) => {
      if (!req.url().startsWith('data:')) origins.add(new URL(req.url()).origin)
    })
    const refusals: string[] = []
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) refusals.push(m.text())
    })
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))

    await page.goto(r.url('/docs'))
    // The reader narrows the list to the corpora tag (the viewer renders what the window shows first).
    await page.locator('.operation-filter-input').fill('corpora')
    const op = page.locator('.opblock', { has: page.locator('[data-path="/v1/corpora"]') }).filter({
      has: page.locator('.opblock-summary-method', { hasText: 'GET' }),
    })
    await op.first().waitFor()

    await page
      .getByRole('button', { name: /^Authorize/ })
      .first()
      .click()
    const dialog = page.locator('.dialog-ux')
    await dialog.locator('input[type=text], input[type=password]').first().fill(key)
    await dialog.getByRole('button', { name: 'Apply credentials' }).click()
    await dialog.getByRole('button', { name: 'Close', exact: true }).click()

    await op.first().locator('.opblock-summary').first().click()
    await op.first().getByRole('button', { name: 'Try it out' }).click()
    const sent = page.waitForRequest((req) => new URL(req.url()).pathname === '/v1/corpora')
    await op.first().getByRole('button', { name: 'Execute' }).click()
    const request = await sent
    expect(request.headers().authorization).toBe(`Bearer ${key}`)
    const status = op.first().locator('.live-responses-table tr.response .response-col_status').first()
    await status.waitFor()
    expect((await status.textContent())?.trim()).toBe('200')
    expect(await op.first().locator('.live-responses-table .microlight').first().textContent()).toContain(
      '"items"',
    )
    await r.screenshot(page, 'docs-try-it-out')

    expect(refusals).toEqual([])
    expect(errors).toEqual([])
    expect([...origins]).toEqual([r.server.url])
    // The key is held by the page in memory only, not in the browser's storage.
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }))
    expect(stored).not.toContain(key)
    await ctx.close()
  })

  test('/v1/docs is the same page', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await ctx.newPage()
    await page.goto(r.url('/v1/docs'))
    await page.locator('[data-path="/v1/corpora"]').first().waitFor()
    expect(await page.title()).toBe('Engram API reference')
    await ctx.close()
  })
})
