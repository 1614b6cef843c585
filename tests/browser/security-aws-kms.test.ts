import { afterAll, describe, expect, test } from 'bun:test'
import { consoleRig, seriousViolations } from '../helpers/browser'
import { registerAdmin, signInUi } from '../helpers/console-workspace'
import { startKmsStandin } from '../helpers/kms-standin'

const ACCESS_KEY = 'AKIASTANDIN000000000'
const SECRET_KEY = 'standin-secret-access-key-do-not-leak'
// A KMS speaking the AWS KMS API on loopback, which this server is allowed to reach over http.
const kms = startKmsStandin(ACCESS_KEY)
afterAll(() => kms.stop())
const rig = consoleRig({
  ENGRAM_KMS_ALLOW_HTTP: 'true',
  ENGRAM_KMS_ALLOW_LOOPBACK: 'true',
  ENGRAM_KMS_AWS_ACCESS_KEY_ID: ACCESS_KEY,
  ENGRAM_KMS_AWS_SECRET_ACCESS_KEY: SECRET_KEY,
})

describe('console: security, a key in a KMS', () => {
  test('an aws-kms key asks where it is; a key the KMS refuses is said and not saved; a good one is set and fixed', async () => {
    const r = rig()
    const admin = await registerAdmin(r)
    const keyId = kms.createKey('console-key')
    const ctx = await r.context()
    const page = await ctx.newPage()
    await signInUi(page, r, admin, '/console/security')
    const card = page.locator('form', { has: page.getByRole('heading', { name: 'Encryption key' }) })
    await card.getByText('Not set: objects are stored plain').waitFor()
    await card.getByLabel('Provider').selectOption('aws-kms')
    await card.getByLabel('Key id', { exact: true }).fill('no-such-key')
    await card.getByLabel('Region').fill('us-east-1')
    await card.getByLabel('Endpoint (optional)').fill(kms.url)
    await card.getByRole('button', { name: 'Set the key' }).click()
    const refusal = card.getByRole('alert')
    await refusal.waitFor()
    expect(await refusal.textContent()).toContain('The KMS could not make and open a data key with this key')
    const current = async () =>
      (await (
        await fetch(`${r.server.url}/v1/enterprise/kms-key`, {
          headers: { authorization: `Bearer ${admin.token}` },
        })
      ).json()) as { provider: string | null; key_id: string | null; status: string; endpoint: string | null }
    expect((await current()).status).toBe('not_configured')
    expect(await card.getByText('Not set: objects are stored plain').count()).toBe(1)

    await card.getByLabel('Key id', { exact: true }).fill(keyId)
    await card.getByRole('button', { name: 'Set the key' }).click()
    await card.getByText('Key settings saved.').waitFor()
    await card.getByText('On', { exact: true }).waitFor()
    expect(await current()).toMatchObject({
      provider: 'aws-kms',
      key_id: keyId,
      status: 'enabled',
      endpoint: kms.url,
    })
    // Where the key lives is fixed once set; another key of the KMS is reached by rotating.
    expect(await card.getByLabel('Provider').isDisabled()).toBe(true)
    expect(await card.getByLabel('Key id', { exact: true }).isDisabled()).toBe(true)
    // Rotating to another key of the same KMS moves the key there.
    const other = kms.createKey('console-key-2')
    await card.getByLabel('Rotate to another key (optional)').fill(other)
    await card.getByRole('button', { name: 'Rotate the key' }).click()
    await card.getByText(/Rotation started/).waitFor()
    expect((await current()).key_id).toBe(other)
    expect(await card.getByLabel('Key id', { exact: true }).inputValue()).toBe(other)
    // A save after it keeps the key rotated to.
    await card.getByRole('button', { name: 'Save key settings' }).click()
    await card.getByText('Key settings saved.').waitFor()
    expect(await current()).toMatchObject({ key_id: other, status: 'enabled' })
    expect(await page.content()).not.toContain(SECRET_KEY)
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'security-aws-kms')
    await ctx.close()
  }, 60_000)
})
