import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BrowserContext, Locator, Page } from 'playwright-core'
import { consoleRig, seriousViolations } from '../helpers/browser'

// Issue 21: the Sources tab of a base, end to end against the real server. The workspace may read
// folders under one root (granted in ENGRAM_SOURCES_FOLDER_ROOTS); a folder connection and a source are added
// through the form, validated, synced, a file deleted on disk is deleted from the base on the next
// sync, a folder is imported, the schedule is changed, validate names what is wrong (a folder that
// now leads outside the root, a folder gone), and the source is deleted with its documents. One
// signed-in page goes through the file's tests in order.

const top = mkdtempSync(join(tmpdir(), 'engram-sources-ui-'))
const root = join(top, 'shares')
const handbook = join(root, 'handbook')
const archive = join(root, 'archive')
const outside = join(top, 'elsewhere')
for (const dir of [handbook, join(handbook, 'policies'), archive, outside])
  mkdirSync(dir, { recursive: true })
writeFileSync(
  join(handbook, 'welcome.md'),
  '# Welcome\n\nThe handbook explains how the harbour office works.\n',
)
writeFileSync(join(handbook, 'holidays.txt'), 'Holidays are booked two weeks ahead through the office.\n')
writeFileSync(
  join(handbook, 'policies/travel.md'),
  '# Travel\n\nTrains are preferred over flights under 600 km.\n',
)
writeFileSync(join(archive, 'minutes-2025.txt'), 'Minutes of the 2025 meeting: the budget was approved.\n')
writeFileSync(join(archive, 'minutes-2024.md'), '# Minutes 2024\n\nThe new office opened in March.\n')
writeFileSync(join(outside, 'secret.txt'), 'Nothing under the root may lead here.\n')

// Files past 4 KB are refused, so that a sync has a file it cannot take.
// The workspace's folder is <top>/tenants/<its id>: linked to the root once the workspace exists.
const tenants = join(top, 'tenants')
const rig = consoleRig({
  ENGRAM_SOURCES_FOLDER_ROOTS: `*=${tenants}/{workspace_id}`,
  ENGRAM_INGEST_MAX_FILE_BYTES: '4096',
})
const EMAIL = 'sol@example.com'

let ctx: BrowserContext
let page: Page
let baseId = ''
let token = ''

afterAll(async () => {
  await ctx?.close()
  rmSync(top, { recursive: true, force: true })
})

/** axe finds nothing serious, in light and in dark. */
async function accessible(p: Page): Promise<void> {
  expect(await seriousViolations(p)).toEqual([])
  await p.emulateMedia({ colorScheme: 'dark' })
  expect(await seriousViolations(p)).toEqual([])
  await p.emulateMedia({ colorScheme: 'light' })
}

/** The source named `name` in the list. */
const source = (name: string) =>
  page.getByRole('listitem').filter({ has: page.getByRole('heading', { name }) })

/** The counters a run shows in `where`, by name. */
async function counters(where: Locator): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const c of await where.locator('.run-counter').all()) {
    out[(await c.getAttribute('data-counter'))!] = (await c.locator('dd').textContent())!
  }
  return out
}

/** Waits until the last sync of `name` has ended with `status` and answers its counters. */
async function lastSync(name: string, status: string): Promise<Record<string, string>> {
  const state = source(name).locator('.source-state')
  await state.locator('.run-head', { hasText: 'Last sync' }).locator('.badge', { hasText: status }).waitFor()
  return counters(state)
}

/** The text of the option a select shows. */
const selected = (select: Locator) =>
  select.evaluate((el) => (el as HTMLSelectElement).selectedOptions[0]?.textContent ?? '')

/** The API, as the signed-in user. */
async function apiCall(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers)
  headers.set('authorization', `Bearer ${token}`)
  return fetch(`${rig().server.url}/v1${path}`, { ...init, headers })
}

describe('console: sources of a base', () => {
  test('the Sources tab is reached by keyboard and starts empty', async () => {
    const r = rig()
    const reg = await fetch(`${r.server.url}/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        workspace_name: 'Harbour',
        name: 'Sol',
        email: EMAIL,
        password: 'long password 1',
      }),
    })
    expect(reg.status).toBe(200)
    const session = (await reg.json()) as { access_token: string; expires_at: string }
    token = session.access_token
    const me = (await (await apiCall('/auth/me')).json()) as { workspace_id: string }
    mkdirSync(tenants, { recursive: true })
    symlinkSync(root, join(tenants, me.workspace_id))
    const base = await apiCall('/corpora', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Harbour office' }),
    })
    baseId = ((await base.json()) as { id: string }).id
    ctx = await r.context()
    await ctx.addInitScript(
      ([t, e]) => sessionStorage.setItem('engram.session', JSON.stringify({ token: t, expiresAt: e })),
      [session.access_token, session.expires_at],
    )
    page = await ctx.newPage()
    await page.goto(r.url(`/console/bases/${baseId}`))
    const documents = page.getByRole('tab', { name: 'Documents' })
    expect(await documents.getAttribute('aria-selected')).toBe('true')
    await documents.focus()
    await page.keyboard.press('ArrowRight')
    const sources = page.getByRole('tab', { name: 'Sources' })
    expect(await sources.getAttribute('aria-selected')).toBe('true')
    expect(await sources.evaluate((el) => el === document.activeElement)).toBe(true)
    await page.waitForURL(/\?tab=sources$/)
    await page.getByText('No sources yet').waitFor()
    await page.getByText('No syncs or imports yet.').waitFor()
    await accessible(page)
    // A reload keeps the tab.
    await page.reload()
    await page.getByText('No sources yet').waitFor()
  })

  test('a folder outside the roots is refused with its code; a folder connection and source are added and validated', async () => {
    const r = rig()
    await page.getByRole('button', { name: 'Add source' }).click()
    const form = page.getByRole('form', { name: 'Add a source' })
    expect(await form.getByLabel('Connection', { exact: true }).inputValue()).toBe('')
    expect(await form.getByLabel('Kind').inputValue()).toBe('folder')
    await form.getByLabel('Connection name').fill('File share')
    await form.getByLabel('Folder on the server').fill(outside)
    await form.getByLabel('Source name (optional)').fill('Handbook')
    await form.getByRole('button', { name: 'Add and validate' }).click()
    const refused = form.getByRole('alert')
    await refused.waitFor()
    expect(await refused.locator('.error-code').textContent()).toBe('folder_root_not_allowed')
    expect(await refused.textContent()).toContain('sources.folder_roots')
    // The connection made for the refused source is deleted again (issue 34): nothing is left
    // behind, and the new connection's fields stay for the corrected try, which makes only one.
    const none = (await (await apiCall('/connections')).json()) as { items: unknown[] }
    expect(none.items).toEqual([])
    expect(await form.getByLabel('Connection', { exact: true }).inputValue()).toBe('')
    expect(await form.getByLabel('Connection name').inputValue()).toBe('File share')
    await accessible(page)
    await r.screenshot(page, 'sources-add')

    await form.getByLabel('Folder on the server').fill(handbook)
    await form.getByLabel('Sync every (minutes, optional)').fill('')
    await form.getByRole('button', { name: 'Add and validate' }).click()
    await form.waitFor({ state: 'detached' })
    const item = source('Handbook')
    await item.getByRole('status').filter({ hasText: 'Valid: the connection reaches the folder' }).waitFor()
    expect(await item.locator('.source-facts').textContent()).toContain(handbook)
    expect(await item.locator('.source-facts').textContent()).toContain('only when asked')
    await item.getByText('Not synced yet.').waitFor()
    const listed = (await (await apiCall('/connections')).json()) as {
      items: { name: string; kind: string }[]
    }
    expect(listed.items.map((c) => [c.name, c.kind])).toEqual([['File share', 'folder']])
  })

  test('sync now brings every file; a file deleted on disk is deleted by the next sync; the history lists both runs', async () => {
    const r = rig()
    const item = source('Handbook')
    await item.getByRole('button', { name: 'Sync now Handbook' }).click()
    expect(await lastSync('Handbook', 'succeeded')).toEqual({
      created: '3',
      updated: '0',
      unchanged: '0',
      deleted: '0',
      failed: '0',
    })
    await page.locator('.base-counters dd').first().filter({ hasText: /^3$/ }).waitFor()
    const history = page.getByRole('region', { name: 'Sync history' })
    await history.getByRole('row').nth(1).waitFor()
    expect(await history.getByRole('row').count()).toBe(2)

    // One file deleted on disk, and one added that is larger than the server takes: the run kept two
    // files, deleted one and could not take one, so it reads `partly failed`, with the file and its reason.
    rmSync(join(handbook, 'holidays.txt'))
    writeFileSync(join(handbook, 'big.txt'), 'An oversized note. '.repeat(500))
    await item.getByRole('button', { name: 'Sync now Handbook' }).click()
    await item.locator('[data-counter="deleted"] dd', { hasText: /^1$/ }).waitFor()
    expect(await lastSync('Handbook', 'partly failed')).toEqual({
      created: '0',
      updated: '0',
      unchanged: '2',
      deleted: '1',
      failed: '1',
    })
    const fileErrors = item.locator('.run-file-errors')
    await fileErrors.getByText('1 file not taken').click()
    expect(await fileErrors.locator('li').allTextContents()).toEqual([expect.stringMatching(/^big\.txt: /)])
    await page.locator('.base-counters dd').first().filter({ hasText: /^2$/ }).waitFor()
    await history.getByRole('row').nth(2).waitFor()
    const rows = await history.getByRole('row').all()
    expect(rows.length).toBe(3)
    // Newest first: Started, Source, Status, Created, Updated, Unchanged, Deleted, Failed, Took, Errors.
    const newest = await rows[1]!.getByRole('cell').allTextContents()
    expect(newest.slice(1, 8)).toEqual(['Handbook', 'partly failed', '0', '0', '2', '1', '1'])
    expect(newest[9]).toContain('big.txt')
    const oldest = await rows[2]!.getByRole('cell').allTextContents()
    expect(oldest.slice(1, 8)).toEqual(['Handbook', 'succeeded', '3', '0', '0', '0', '0'])
    // The document of the deleted file is gone from the base.
    const docs = (await (await apiCall(`/corpora/${baseId}/documents`)).json()) as {
      items: { filename: string }[]
    }
    expect(docs.items.map((d) => d.filename).sort()).toEqual(['policies/travel.md', 'welcome.md'])
    await accessible(page)
    await r.screenshot(page, 'sources')
  })

  test('a sync in flight shows its bar and estimate, and cancel asks the server to stop it (the answers stood in)', async () => {
    const r = rig()
    // A sync of three small files ends within a second: the list's and the job's answers are stood
    // in, so the running state and the cancel can be seen whatever the machine's speed.
    const real = (await (await apiCall(`/corpora/${baseId}/sources`)).json()) as {
      items: Record<string, unknown>[]
    }
    const run = { ...(real.items[0]!.last_run as Record<string, unknown>), status: 'running' }
    const running = {
      ...run,
      id: 'run_standin',
      job_id: 'job_standin',
      created: 40,
      unchanged: 2,
      deleted: 0,
      finished_at: null,
    }
    const listing = { ...real.items[0]!, syncing: true, current_run: running }
    const list = new RegExp(`/v1/corpora/${baseId}/sources\\?`)
    await page.route(list, (route) =>
      route.fulfill({ json: { items: [listing], total: 1, next_cursor: null } }),
    )
    await page.route('**/v1/jobs/job_standin', (route) =>
      route.fulfill({
        json: {
          id: 'job_standin',
          corpus_id: baseId,
          parent_id: null,
          kind: 'sources.sync',
          status: 'running',
          progress: 0.42,
          eta_seconds: 95,
          detail: '42 files looked at',
          error: null,
          created_at: new Date().toISOString(),
          started_at: new Date().toISOString(),
          finished_at: null,
        },
      }),
    )
    await page.route('**/v1/corpora/*/sources/*/cancel', (route) =>
      route.fulfill({ json: { ...running, status: 'canceled' } }),
    )
    await page.reload()
    const item = source('Handbook')
    await item.getByText('42% · about 1 min 35 s left · 42 files looked at').waitFor()
    expect(
      await item
        .getByRole('progressbar', { name: 'Sync progress of Handbook' })
        .getAttribute('aria-valuenow'),
    ).toBe('42')
    expect((await counters(item.locator('.source-state'))).created).toBe('40')
    await accessible(page)
    await r.screenshot(page, 'sources-syncing')
    // The request itself, as the page sent it: the route's handler may run after it is seen.
    const [cancel] = await Promise.all([
      page.waitForRequest('**/v1/corpora/*/sources/*/cancel'),
      item.getByRole('button', { name: 'Cancel sync Handbook' }).click(),
    ])
    expect(cancel.url()).toContain(`/v1/corpora/${baseId}/sources/`)
    await page.unroute(list)
    await page.unroute('**/v1/jobs/job_standin')
    await page.unroute('**/v1/corpora/*/sources/*/cancel')
    await page.reload()
    await lastSync('Handbook', 'partly failed')
  })

  test('a folder is imported through the dialog, its status followed until it ends', async () => {
    const r = rig()
    await page.getByRole('button', { name: 'Import a folder' }).click()
    const dialog = page.getByRole('dialog', { name: 'Import a folder' })
    await dialog.getByText('This base has no import yet.').waitFor()
    await dialog.locator('.connection-summary', { hasText: 'Server folder' }).waitFor()
    expect(await selected(dialog.getByLabel('Connection', { exact: true }))).toBe(
      'File share (Server folder)',
    )
    await dialog.getByLabel('Folder on the server').fill(archive)
    await dialog.getByRole('button', { name: 'Start import' }).click()
    const status = dialog.getByRole('region', { name: 'Import status' })
    await status.locator('.run-head .badge', { hasText: 'succeeded' }).waitFor()
    expect(await counters(status)).toEqual({
      created: '2',
      updated: '0',
      unchanged: '0',
      deleted: '0',
      failed: '0',
    })
    expect(await status.textContent()).toContain(archive)
    await accessible(page)
    await r.screenshot(page, 'sources-import')
    await dialog.getByRole('button', { name: 'Close' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await page.locator('.base-counters dd').first().filter({ hasText: /^4$/ }).waitFor()
    const history = page.getByRole('region', { name: 'Sync history' })
    await history.getByRole('row', { name: /Import/ }).waitFor()
  })

  test('the schedule is changed (too short an interval refused in the API’s words)', async () => {
    const item = source('Handbook')
    await item.getByRole('button', { name: 'Edit schedule Handbook' }).click()
    const dialog = page.getByRole('dialog', { name: 'Schedule of “Handbook”' })
    await dialog.getByLabel('Sync every (minutes)').fill('2')
    await dialog.getByRole('button', { name: 'Save schedule' }).click()
    await dialog
      .getByRole('alert')
      .filter({ hasText: 'interval_minutes: The shortest interval is 5 minutes.' })
      .waitFor()
    await dialog.getByLabel('Sync every (minutes)').fill('90')
    await dialog.getByRole('button', { name: 'Save schedule' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await item.locator('.source-facts', { hasText: 'every 1 h 30 min · next' }).waitFor()
    await accessible(page)
  })

  test('validate names what is wrong: a folder that now leads outside the roots, then a folder gone', async () => {
    const r = rig()
    const item = source('Handbook')
    // The folder is swapped for a link to a directory outside the root.
    renameSync(handbook, join(root, 'handbook-moved'))
    symlinkSync(outside, handbook)
    await item.getByRole('button', { name: 'Validate Handbook' }).click()
    const alert = item.getByRole('alert').filter({ hasText: 'Validation failed' })
    await alert.locator('.error-code', { hasText: 'folder_root_not_allowed' }).waitFor()
    expect(await alert.textContent()).toContain('sources.folder_roots')
    await accessible(page)
    await r.screenshot(page, 'sources-validate-error')

    rmSync(handbook)
    await item.getByRole('button', { name: 'Validate Handbook' }).click()
    await alert.locator('.error-code', { hasText: 'source_folder_not_found' }).waitFor()
  })

  test('deleting the source with its documents leaves the imported ones; the page fits a phone', async () => {
    const r = rig()
    await page.setViewportSize({ width: 375, height: 800 })
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
    await accessible(page)
    await r.screenshot(page, 'sources-375')
    await page.setViewportSize({ width: 1280, height: 800 })

    await source('Handbook').getByRole('button', { name: 'Delete Handbook' }).click()
    const dialog = page.getByRole('dialog', { name: 'Delete the source “Handbook”?' })
    await dialog.getByLabel('Also delete its documents (each with a deletion receipt)').check()
    await accessible(page)
    await dialog.getByRole('button', { name: 'Delete source' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await page
      .getByRole('status')
      .filter({ hasText: 'The source “Handbook” was deleted with its 2 documents.' })
      .waitFor()
    await page.getByText('No sources yet').waitFor()
    await page.locator('.base-counters dd').first().filter({ hasText: /^2$/ }).waitFor()
    const docs = (await (await apiCall(`/corpora/${baseId}/documents`)).json()) as {
      items: { filename: string }[]
    }
    expect(docs.items.map((d) => d.filename).sort()).toEqual(['minutes-2024.md', 'minutes-2025.txt'])
  })
})
