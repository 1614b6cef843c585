import { afterAll, describe, expect, test } from 'bun:test'
import type { BrowserContext } from 'playwright-core'
import { consoleRig } from '../helpers/browser'
import { registerAdmin, signInUi } from '../helpers/console-workspace'

// Issue 32, item 8: a file named with U+202E RIGHT-TO-LEFT OVERRIDE was shown as is, so
// `invoice-\u202Eexe.pdf` read as `invoice-fdp.exe`. The API answers the name as stored; the
// console shows the override as a marker, the name isolated from the text around it.

const rig = consoleRig()
let ctx: BrowserContext | undefined
afterAll(async () => {
  await ctx?.close()
})

const NAME = 'invoice-\u202Eexe.pdf'

describe('console: file names with direction controls', () => {
  test('the documents table and the delete dialog show the override as <U+202E>, isolated', async () => {
    const r = rig()
    const admin = await registerAdmin(r)
    const auth = { authorization: `Bearer ${admin.token}` }
    const created = await fetch(`${r.server.url}/v1/corpora`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Invoices' }),
    })
    const base = ((await created.json()) as { id: string }).id
    const form = new FormData()
    form.append('files', new File(['Invoice 42: total due 100 EUR.'], NAME, { type: 'text/plain' }))
    const up = await fetch(`${r.server.url}/v1/corpora/${base}/documents`, {
      method: 'POST',
      headers: auth,
      body: form,
    })
    expect(((await up.json()) as { filename: string }[]).map((d) => d.filename)).toEqual([NAME])

    ctx = await r.context()
    const page = await ctx.newPage()
    await signInUi(page, r, admin, `/console/bases/${base}`)
    const cell = page.locator('th.doc-cell bdi.doc-path')
    await cell.waitFor()
    expect(await cell.textContent()).toBe('invoice-<U+202E>exe.pdf')
    // The row's whole text holds the marker, never the override itself.
    const row = (await page.locator('th.doc-cell').textContent()) ?? ''
    expect(row).toContain('invoice-<U+202E>exe.pdf')
    expect(row).not.toContain('\u202E')
    await page.getByRole('button', { name: 'Delete invoice-<U+202E>exe.pdf' }).click()
    const dialog = page.getByRole('dialog')
    expect(await dialog.locator('bdi.doc-path').textContent()).toBe('invoice-<U+202E>exe.pdf')
  }, 60_000)
})
