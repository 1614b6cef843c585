import { describe, expect, test } from 'bun:test'
import { consoleRig, seriousViolations } from '../helpers/browser'
import { type Account, registerAdmin, signInUi } from '../helpers/console-workspace'

const rig = consoleRig()
let admin: Account | undefined

/** The workspace's admin, registered through the API on first use. */
async function theAdmin(): Promise<Account> {
  admin ??= await registerAdmin(rig())
  return admin
}

/** What the API answers a request made with `secret`, from this process (outside the browser). */
async function statusWith(secret: string): Promise<number> {
  const res = await fetch(`${rig().server.url}/v1/corpora`, {
    headers: { authorization: `Bearer ${secret}` },
  })
  await res.arrayBuffer()
  return res.status
}

describe('console: API keys', () => {
  test('a key created with the query scope shows its secret once, works outside the browser, and stops at revocation', async () => {
    const r = rig()
    const ctx = await r.context()
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: r.server.url })
    const page = await ctx.newPage()
    await signInUi(page, r, await theAdmin(), '/console/keys')
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor()
    await page.getByText('No API keys yet').waitFor()
    expect(await seriousViolations(page)).toEqual([])

    await page.getByLabel('Key name').fill('Nightly sync')
    await page.getByRole('checkbox', { name: /Query/ }).check()
    expect(await page.getByRole('checkbox', { name: /Ingest/ }).isChecked()).toBe(false)
    expect(await page.getByRole('checkbox', { name: /Admin/ }).isChecked()).toBe(false)
    await page.getByRole('button', { name: 'Create key' }).click()

    const dialog = page.getByRole('dialog', { name: 'Your new API key' })
    await dialog.waitFor()
    expect(await dialog.textContent()).toContain('you will not see this again')
    const secret = await dialog.getByLabel(/Secret of/).inputValue()
    expect(secret).toMatch(/^ek_[0-9A-Za-z]{32,}$/)
    await dialog.getByRole('button', { name: 'Copy the key' }).click()
    await dialog.getByRole('status').getByText('Copied', { exact: true }).waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret)
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'keys-secret-shown-once')

    // The secret works from outside the browser.
    expect(await statusWith(secret)).toBe(200)
    await dialog.getByRole('button', { name: 'I have copied it' }).click()
    await dialog.waitFor({ state: 'hidden' })

    // After a reload the key is listed with its last use, and the secret is nowhere on the page.
    await page.reload()
    const row = page.getByRole('row', { name: /Nightly sync/ })
    await row.waitFor()
    expect(await row.textContent()).toContain(secret.slice(0, 12))
    expect(await row.getByRole('cell').nth(3).textContent()).toBe('All bases')
    expect(await row.getByRole('cell').nth(5).textContent()).not.toBe('never')
    expect(await page.content()).not.toContain(secret)

    await row.getByRole('button', { name: 'Revoke Nightly sync' }).click()
    const confirm = page.getByRole('dialog', { name: 'Revoke the key “Nightly sync”?' })
    await confirm.waitFor()
    await confirm.getByRole('button', { name: 'Revoke key' }).click()
    await confirm.waitFor({ state: 'hidden' })
    // Revoked keys stay listed, marked, with nothing left to revoke.
    await row.getByText('Revoked').waitFor()
    expect(await row.getByRole('button', { name: /Revoke/ }).count()).toBe(0)
    expect(await statusWith(secret)).toBe(401)
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'keys-revoked')
    await ctx.close()
  })

  test('a key for only some bases is made by ticking them; it reaches those alone, and the list names them', async () => {
    const r = rig()
    const who = await theAdmin()
    const made: Record<string, string> = {}
    for (const name of ['Alpha', 'Beta']) {
      const res = await fetch(`${r.server.url}/v1/corpora`, {
        method: 'POST',
        headers: { authorization: `Bearer ${who.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      })
      made[name] = ((await res.json()) as { id: string }).id
    }
    const ctx = await r.context()
    const page = await ctx.newPage()
    await signInUi(page, r, who, '/console/keys')
    await page.getByLabel('Key name').fill('Alpha agent')
    expect(await page.getByRole('radio', { name: /All bases/ }).isChecked()).toBe(true)
    await page.getByRole('radio', { name: /Only some bases/ }).check()
    // None ticked yet: the button says why it cannot be pressed.
    expect(await page.getByRole('button', { name: 'Create key' }).isDisabled()).toBe(true)
    await page.getByText('Choose at least one base.').waitFor()
    await page.getByRole('checkbox', { name: 'Alpha' }).check()
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'keys-some-bases')
    await page.getByRole('button', { name: 'Create key' }).click()

    const dialog = page.getByRole('dialog', { name: 'Your new API key' })
    await dialog.waitFor()
    expect(await dialog.textContent()).toContain('Bases: Alpha.')
    const secret = await dialog.getByLabel(/Secret of/).inputValue()
    await dialog.getByRole('button', { name: 'I have copied it' }).click()
    const row = page.getByRole('row', { name: /Alpha agent/ })
    expect(await row.getByRole('cell').nth(3).textContent()).toBe('Alpha')

    // Outside the browser it lists Alpha alone, finds no Beta, and cannot create a base.
    const get = (path: string) =>
      fetch(`${r.server.url}${path}`, { headers: { authorization: `Bearer ${secret}` } })
    const listed = (await (await get('/v1/corpora')).json()) as { items: { id: string }[] }
    expect(listed.items.map((c) => c.id)).toEqual([made.Alpha!])
    expect((await get(`/v1/corpora/${made.Beta}`)).status).toBe(404)
    const create = await fetch(`${r.server.url}/v1/corpora`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Gamma' }),
    })
    expect(create.status).toBe(403)
    await ctx.close()
  })

  test('an expiry in the past is refused in the API’s words, in the dark scheme too', async () => {
    const r = rig()
    const ctx = await r.context({ dark: true })
    const page = await ctx.newPage()
    await signInUi(page, r, await theAdmin(), '/console/keys')
    await page.getByLabel('Key name').fill('Too late')
    await page.getByLabel('Expires on (optional)').fill('2020-01-01')
    await page.getByRole('button', { name: 'Create key' }).click()
    const alert = page.getByRole('alert')
    await alert.waitFor()
    expect(await alert.textContent()).toBe('expires_at: expires_at must be in the future')
    expect(await page.getByRole('row', { name: /Too late/ }).count()).toBe(0)
    // No scope, no key: the button says why it cannot be pressed.
    await page.getByRole('checkbox', { name: /Query/ }).uncheck()
    expect(await page.getByRole('button', { name: 'Create key' }).isDisabled()).toBe(true)
    await page.getByText('Choose at least one scope.').waitFor()
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'keys-past-expiry-dark')
    await ctx.close()
  })
})
