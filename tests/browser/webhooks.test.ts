import { afterAll, describe, expect, test } from 'bun:test'
import { type Receiver, receiver } from '../api/webhooks.fixture'
import { consoleRig, seriousViolations } from '../helpers/browser'
import { addMember, registerAdmin, signInUi } from '../helpers/console-workspace'

// Issue 36: the Webhooks admin page, in Chromium against the real server and a real receiver on
// loopback that verifies every delivery with the `standardwebhooks` package. Plain http and
// loopback are allowed for the test (as tests/api/webhooks*.test.ts allow them), and one failed
// attempt disables an endpoint, so the page's disabled state and its way back are reached at once.

const rig = consoleRig({
  ENGRAM_WEBHOOKS_ALLOW_HTTP: 'true',
  ENGRAM_WEBHOOKS_ALLOW_LOOPBACK: 'true',
  ENGRAM_WEBHOOKS_TIMEOUT_MS: '2000',
  ENGRAM_WEBHOOKS_DISABLE_AFTER_FAILURES: '1',
  ENGRAM_WEBHOOKS_DISABLE_AFTER_HOURS: '0',
})
let r: Receiver | undefined
afterAll(() => r?.stop())

describe('console: webhooks', () => {
  test('an admin adds an endpoint (secret shown once), tests it, sees it disabled after a failure, enables it, and deletes it', async () => {
    const c = rig()
    r = receiver()
    const admin = await registerAdmin(c)
    const ctx = await c.context()
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: c.server.url })
    const page = await ctx.newPage()
    await signInUi(page, c, admin, '/console/bases')
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Webhooks' }).click()
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
    await page.getByText('No endpoints yet').waitFor()
    expect(await seriousViolations(page)).toEqual([])

    // A refused URL is said in the API's words, and nothing is added.
    await page.getByLabel('Endpoint URL').fill('https://user:pw@example.com/hooks')
    await page.getByRole('checkbox', { name: /member\.joined/ }).check()
    await page.getByRole('button', { name: 'Add endpoint' }).click()
    await page.getByRole('alert').waitFor()
    expect(await page.getByText('No endpoints yet').count()).toBe(1)

    // Added: the secret once, with its warning and a copy button.
    await page.getByLabel('Endpoint URL').fill(r.url)
    await page.getByLabel('Description (optional)').fill('Ticketing sync')
    await page.getByRole('checkbox', { name: /api_key\.created/ }).check()
    await page.getByRole('button', { name: 'Add endpoint' }).click()
    const dialog = page.getByRole('dialog', { name: "Your endpoint's signing secret" })
    await dialog.waitFor()
    expect(await dialog.textContent()).toContain('it is shown once')
    const secret = await dialog.getByLabel(/Signing secret of/).inputValue()
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    await dialog.getByRole('button', { name: 'Copy the secret' }).click()
    await dialog.getByRole('status').getByText('Copied', { exact: true }).waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret)
    expect(await seriousViolations(page)).toEqual([])
    await c.screenshot(page, 'webhooks-secret')
    await dialog.getByRole('button', { name: 'I have copied it' }).click()
    r.secret = secret
    // The list holds it, enabled, with no delivery yet, and never the secret.
    const row = page.getByRole('row', { name: /Ticketing sync/ })
    await row.getByText('Enabled').waitFor()
    expect(await row.textContent()).toContain('api_key.created, member.joined')
    expect(await row.textContent()).toContain('none yet')
    expect(await page.content()).not.toContain(secret)

    // A test event reaches the receiver, signed with that secret, and shows as delivered.
    await row.getByRole('button', { name: `Send test to ${r.url}` }).click()
    const deliveries = page.getByRole('region', { name: /Deliveries to/ })
    await r.arrived(1)
    expect(r.received[0]?.rejected).toBeNull()
    expect(r.received[0]?.payload?.type).toBe('webhook.test')
    await deliveries.getByText('Delivered').waitFor()
    await deliveries.getByText('HTTP 200').waitFor()
    await row.getByText('HTTP 200').waitFor()
    expect(await seriousViolations(page)).toEqual([])
    await c.screenshot(page, 'webhooks-delivered')
    // On a phone, in the dark: the page fits the screen (the tables scroll in their own boxes).
    const phone = await c.context({ width: 375, height: 800, dark: true })
    const small = await phone.newPage()
    await signInUi(small, c, admin, '/console/webhooks')
    await small.getByRole('button', { name: `Deliveries to ${r.url}` }).click()
    await small
      .getByRole('region', { name: /Deliveries to/ })
      .getByText('Delivered')
      .waitFor()
    expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
    expect(await seriousViolations(small)).toEqual([])
    await c.screenshot(small, 'webhooks-375-dark')
    await phone.close()

    // The receiver fails the next one: one failure disables the endpoint here.
    r.plan({ status: 500 })
    await row.getByRole('button', { name: `Send test to ${r.url}` }).click()
    await r.arrived(2)
    await deliveries.getByText('Failed').waitFor()
    await row.getByText('Disabled after failures').waitFor()
    expect(await row.getByRole('button', { name: /Send test/ }).count()).toBe(0)
    expect(await deliveries.getByRole('button', { name: /Send again/ }).count()).toBe(0)
    expect(await seriousViolations(page)).toEqual([])
    await c.screenshot(page, 'webhooks-disabled')

    // Enabled again, it takes a test again.
    await row.getByRole('button', { name: `Enable ${r.url}` }).click()
    await row.getByText('Enabled').waitFor()
    await row.getByRole('button', { name: `Send test to ${r.url}` }).click()
    await r.arrived(3)
    expect(r.received[2]?.payload?.type).toBe('webhook.test')
    await deliveries.getByText('Delivered').nth(1).waitFor()
    // The failed one can be sent again now; it arrives with its own id.
    await deliveries.getByRole('button', { name: /Send again/ }).click()
    await r.arrived(4)
    expect(r.received[3]?.id).toBe(r.received[1]?.id)

    // Deleted after a confirmation: the list is empty again.
    await row.getByRole('button', { name: `Delete ${r.url}` }).click()
    const confirm = page.getByRole('dialog', { name: 'Delete this webhook endpoint?' })
    expect(await confirm.textContent()).toContain(r.url)
    await confirm.getByRole('button', { name: 'Delete endpoint' }).click()
    await page.getByText('No endpoints yet').waitFor()
    expect(await page.getByRole('region', { name: /Deliveries to/ }).count()).toBe(0)
    await ctx.close()

    // A member has no Webhooks section.
    const member = await addMember(c, admin)
    const mctx = await c.context()
    const mpage = await mctx.newPage()
    await signInUi(mpage, c, member, '/console/bases')
    expect(
      await mpage
        .getByRole('navigation', { name: 'Sections' })
        .getByRole('link', { name: 'Webhooks' })
        .count(),
    ).toBe(0)
    await mctx.close()
  })
})
