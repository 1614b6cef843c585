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

/** A GET as the admin from this process (127.0.0.1, as the browser): status and JSON. */
async function get<T>(path: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${rig().server.url}${path}`, {
    headers: { authorization: `Bearer ${(await theAdmin()).token}` },
  })
  return { status: res.status, body: (await res.json()) as T }
}

let bases = 0

/** Uploads a small text file to a new base as the admin: the status (refused while the key is off). */
async function uploadStatus(): Promise<number> {
  const auth = { authorization: `Bearer ${(await theAdmin()).token}` }
  const made = await fetch(`${rig().server.url}/v1/corpora`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `Base ${++bases}` }),
  })
  const { id } = (await made.json()) as { id: string }
  const form = new FormData()
  form.append('files', new File(['some text'], 'note.txt', { type: 'text/plain' }))
  const res = await fetch(`${rig().server.url}/v1/corpora/${id}/documents`, {
    method: 'POST',
    headers: auth,
    body: form,
  })
  await res.arrayBuffer()
  return res.status
}

interface Allowlist {
  enabled: boolean
  cidrs: string[]
  your_address: string
  your_address_listed: boolean
}
interface KmsKey {
  provider: string | null
  status: string
  encrypted_objects: number
  pass: string | null
}

describe('console: security', () => {
  test('the customer-managed key is set, rotated, turned off only after a warning, and on again', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await ctx.newPage()
    await signInUi(page, r, await theAdmin(), '/console/security')
    await page.getByRole('heading', { name: 'Security', level: 1 }).waitFor()
    const card = page.locator('form', { has: page.getByRole('heading', { name: 'Encryption key' }) })
    await card.getByText('Not set: objects are stored plain').waitFor()
    expect(await card.getByLabel('Provider').inputValue()).toBe('local')
    // aws-kms asks where the key is; local does not.
    await card.getByLabel('Provider').selectOption('aws-kms')
    await card.getByLabel('Key id').waitFor()
    await card.getByLabel('Provider').selectOption('local')
    expect(await card.getByLabel('Key id').count()).toBe(0)
    expect(await seriousViolations(page)).toEqual([])

    await card.getByRole('button', { name: 'Set the key' }).click()
    await card.getByText('Key settings saved.').waitFor()
    await card.getByText('On', { exact: true }).waitFor()
    expect(await card.getByLabel('Provider').isDisabled()).toBe(true)
    const set = await get<KmsKey>('/v1/enterprise/kms-key')
    expect(set.body).toMatchObject({ provider: 'local', status: 'enabled' })
    expect(await card.getByText(/Objects sealed/).count()).toBe(1)

    await card.getByRole('button', { name: 'Rotate the key' }).click()
    await card.getByText(/Rotation started/).waitFor()

    // Turning it off: a warning on the page, then a question; only the answer turns it off.
    await card.getByLabel('Key enabled').uncheck()
    await card.getByText(/unreadable at once/).waitFor()
    await card.getByRole('button', { name: 'Save key settings' }).click()
    const ask = page.getByRole('dialog', { name: 'Turn the encryption key off?' })
    await ask.waitFor()
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'security-key-off-question')
    await ask.getByRole('button', { name: 'Cancel' }).click()
    await ask.waitFor({ state: 'hidden' })
    expect((await get<KmsKey>('/v1/enterprise/kms-key')).body.status).toBe('enabled')

    await card.getByRole('button', { name: 'Save key settings' }).click()
    await ask.getByRole('button', { name: 'Turn the key off' }).click()
    await ask.waitFor({ state: 'hidden' })
    await card.getByText('Off: the content cannot be read or written').waitFor()
    expect((await get<KmsKey>('/v1/enterprise/kms-key')).body.status).toBe('disabled')
    // The content is refused at once: an upload answers 409 encryption_key_unavailable.
    expect(await uploadStatus()).toBe(409)

    await card.getByLabel('Key enabled').check()
    await card.getByRole('button', { name: 'Save key settings' }).click()
    await card.getByText('On', { exact: true }).waitFor()
    expect((await get<KmsKey>('/v1/enterprise/kms-key')).body.status).toBe('enabled')
    expect(await uploadStatus()).toBeLessThan(300)
    await r.screenshot(page, 'security-key')
    await ctx.close()
  }, 60_000)

  test('the allowlist shows your address, names a bad entry under it, asks before locking you out, and saves', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await ctx.newPage()
    await signInUi(page, r, await theAdmin(), '/console/security')
    const card = page.locator('form', { has: page.getByRole('heading', { name: 'IP allowlist' }) })
    await card.getByText('Your address:').waitFor()
    const before = (await get<Allowlist>('/v1/enterprise/ip-allowlist')).body
    expect(before.your_address).toBe('127.0.0.1')
    expect(await card.getByRole('note').textContent()).toContain('127.0.0.1 — not listed in the saved list.')

    await card.getByLabel('Entry 1', { exact: true }).fill('10.0.0.300')
    await card.getByRole('button', { name: 'Add an entry' }).click()
    await card.getByLabel('Entry 2', { exact: true }).fill('10.1.2.3/16')
    await card.getByLabel('Enforce the allowlist').check()
    await card.getByRole('button', { name: 'Save allowlist' }).click()
    const bad = card.getByLabel('Entry 1', { exact: true })
    await card.getByText(/"10\.0\.0\.300" is not an IPv4 or IPv6 address/).waitFor()
    expect(await bad.getAttribute('aria-invalid')).toBe('true')
    expect(await card.getByLabel('Entry 2', { exact: true }).getAttribute('aria-invalid')).toBeNull()
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'security-allowlist-bad-entry')
    // Refused: nothing was saved.
    expect((await get<Allowlist>('/v1/enterprise/ip-allowlist')).body).toMatchObject({
      enabled: false,
      cidrs: [],
    })

    // A list without this address is saved only if you say so.
    await bad.fill('10.0.0.0/8')
    await card.getByRole('button', { name: 'Save allowlist' }).click()
    const ask = page.getByRole('dialog', { name: 'Lock yourself out?' })
    await ask.waitFor()
    expect(await ask.textContent()).toContain('127.0.0.1')
    await ask.getByRole('button', { name: 'Cancel' }).click()
    await ask.waitFor({ state: 'hidden' })
    expect((await get<Allowlist>('/v1/enterprise/ip-allowlist')).body.enabled).toBe(false)

    await card.getByRole('button', { name: 'Add my address' }).click()
    expect(await card.getByLabel('Entry 3', { exact: true }).inputValue()).toBe('127.0.0.1')
    await card.getByRole('button', { name: 'Save allowlist' }).click()
    await card.getByText('Allowlist saved.').waitFor()
    // Saved normalized: host bits cleared.
    expect(await card.getByLabel('Entry 2', { exact: true }).inputValue()).toBe('10.1.0.0/16')
    await card.getByText('127.0.0.1 — listed in the saved list.', { exact: false }).waitFor()
    const saved = await get<Allowlist>('/v1/enterprise/ip-allowlist')
    expect(saved.status).toBe(200)
    expect(saved.body).toMatchObject({
      enabled: true,
      cidrs: ['10.0.0.0/8', '10.1.0.0/16', '127.0.0.1'],
      your_address_listed: true,
    })
    await r.screenshot(page, 'security-allowlist-saved')

    // Confirmed, a list without this address is saved, and this address is refused from then on.
    await card.getByRole('button', { name: 'Remove entry 3' }).click()
    await card.getByRole('button', { name: 'Save allowlist' }).click()
    await ask.waitFor()
    await ask.getByRole('button', { name: 'Save and lose access' }).click()
    await ask.waitFor({ state: 'hidden' })
    const refused = await get<{ error: { code: string } }>('/v1/enterprise/ip-allowlist')
    expect(refused.status).toBe(403)
    expect(refused.body.error.code).toBe('ip_not_allowed')
    await ctx.close()
  }, 60_000)
})
