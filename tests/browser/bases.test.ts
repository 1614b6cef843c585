import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { consoleRig, seriousViolations } from '../helpers/browser'
import { FIXTURE_DOCS } from '../helpers/fixture-data'

// Issue 19: document bases in the console, end to end against the real server. One workspace and
// one signed-in browser page go through the file's tests in order: the empty list, a base created,
// the repository's real PDF, DOCX, HTML, Markdown and CSV files uploaded (picked, dropped and a
// folder), a refused type, a retry, onboarding to 100 %, sections, and the deletes.

const rig = consoleRig()

/** One small real file of each kind the issue names (tests/fixtures/data/docs). */
const PICKED = [
  'pdf/deepset-ai_haystack__sample_pdf_1.pdf',
  'docx/deepset-ai_haystack__sample_docx.docx',
  'html/deepset-ai_haystack__paul_graham_superlinear.html',
  'csv/mwaskom_seaborn-data__iris.csv',
].map((p) => join(FIXTURE_DOCS, p))
/** Dropped on the zone with a synthetic DataTransfer. */
const DROPPED = join(FIXTURE_DOCS, 'md/deepset-ai_haystack__sample.md')
const EMAIL = 'bea@example.com'
const PASSWORD = 'correct horse battery'
const BASE = 'Handbook 2026'

let ctx: BrowserContext
let page: Page
let baseUrl = ''
const folder = mkdtempSync(join(tmpdir(), 'engram-bases-folder-'))

afterAll(async () => {
  await ctx?.close()
  rmSync(folder, { recursive: true, force: true })
})

/** axe finds nothing serious, in light and in dark. */
async function accessible(p: Page): Promise<void> {
  expect(await seriousViolations(p)).toEqual([])
  await p.emulateMedia({ colorScheme: 'dark' })
  expect(await seriousViolations(p)).toEqual([])
  await p.emulateMedia({ colorScheme: 'light' })
}

/** The line of the upload queue for `path`. */
const upload = (path: string) => page.locator(`li.upload-item[data-path="${path}"]`)

/** Waits until the upload of `path` has ended in `state` (Done, Failed). */
async function uploadEnds(path: string, state: 'Done' | 'Failed') {
  await upload(path)
    .locator('.upload-state', { hasText: new RegExp(`^${state}`) })
    .waitFor()
}

describe('console: document bases', () => {
  test('a new workspace is invited to create its first base; creating it opens its page', async () => {
    const r = rig()
    const reg = await fetch(`${r.server.url}/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workspace_name: 'Bea Labs', name: 'Bea', email: EMAIL, password: PASSWORD }),
    })
    expect(reg.status).toBe(200)
    ctx = await r.context()
    page = await ctx.newPage()
    await page.goto(r.url('/console/sign-in'))
    await page.getByLabel('Email').fill(EMAIL)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL('**/console/bases')
    await page.getByText('No document bases yet').waitFor()
    await accessible(page)
    await r.screenshot(page, 'bases-empty')

    // A name of spaces only passes the browser's check; the API refuses it, in its words.
    await page.getByLabel('Name your first base').fill('   ')
    await page.getByRole('button', { name: 'Create base' }).click()
    const refused = page.locator('form[aria-label="Create a document base"] [role="alert"]')
    await refused.waitFor()
    expect(await refused.textContent()).toMatch(/^name: /)
    await page.getByLabel('Name your first base').fill(BASE)
    await page.getByRole('button', { name: 'Create base' }).click()
    await page.waitForURL(/\/console\/bases\/cor_[^/]+$/)
    baseUrl = page.url()
    await page.getByRole('heading', { level: 1, name: BASE }).waitFor()
    await page.getByText('No documents yet').waitFor()
    expect(await page.getByRole('link', { name: 'Chat' }).getAttribute('href')).toBe(
      `${new URL(baseUrl).pathname}/chat`,
    )
    expect(await page.getByRole('link', { name: 'Compare' }).getAttribute('href')).toBe(
      `${new URL(baseUrl).pathname}/compare`,
    )
    await accessible(page)
    await r.screenshot(page, 'base-new')
  })

  test('files picked, dropped and a folder upload with a bar each; a refused type is named; retry sends again', async () => {
    const r = rig()
    // The first upload request is cut off: that file fails in the browser's words, and its retry works.
    let cut = false
    await page.route('**/v1/corpora/*/documents', async (route) => {
      if (!cut && route.request().method() === 'POST') {
        cut = true
        await route.abort('connectionreset')
      } else await route.continue()
    })
    // How full each row's bar is at the moment the row turns "Done" (its bar is full by then).
    await page.evaluate(() => {
      const fill: Record<string, number> = {}
      ;(window as unknown as { doneFill: Record<string, number> }).doneFill = fill
      new MutationObserver(() => {
        for (const li of document.querySelectorAll<HTMLElement>('li.upload-done')) {
          const path = li.dataset.path ?? ''
          if (path in fill) continue
          const track = li.querySelector('.progress')!.getBoundingClientRect().width
          fill[path] = li.querySelector('.progress-bar')!.getBoundingClientRect().width / track
        }
      }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true })
    })
    await page.getByLabel('Files to upload').setInputFiles(PICKED)
    // A drop of a real file, as a person dragging it from their desktop makes it.
    const md = readFileSync(DROPPED).toString('base64')
    await page.evaluate(
      ({ name, b64 }) => {
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))
        const dt = new DataTransfer()
        dt.items.add(new File([bytes], name, { type: 'text/markdown' }))
        const zone = document.querySelector('.dropzone') as HTMLElement
        for (const type of ['dragenter', 'dragover', 'drop'])
          zone.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }))
      },
      { name: basename(DROPPED), b64: md },
    )
    // A folder, its inner paths kept (hidden files left out).
    mkdirSync(join(folder, 'notes/sub'), { recursive: true })
    writeFileSync(join(folder, 'notes/a.md'), '# Alpha\n\nThe alpha note talks about river harbours.\n')
    writeFileSync(join(folder, 'notes/sub/b.txt'), 'The beta note is about winter orchards.\n')
    writeFileSync(join(folder, 'notes/.DS_Store'), 'hidden')
    await page.getByLabel('Folder to upload').setInputFiles(join(folder, 'notes'))

    const all = [...PICKED.map((p) => basename(p)), basename(DROPPED), 'notes/a.md', 'notes/sub/b.txt']
    await page.locator('.uploads-summary', { hasText: /in progress/ }).waitFor({ state: 'detached' })
    expect(await page.locator('li.upload-item').count()).toBe(all.length)
    const failed = page.locator('li.upload-failed')
    expect(await failed.count()).toBe(1)
    expect(await failed.locator('.upload-error').textContent()).toContain('could not be reached')
    const failedPath = (await failed.getAttribute('data-path'))!
    await page.unroute('**/v1/corpora/*/documents')
    await page.getByRole('button', { name: `Retry ${failedPath}` }).click()
    for (const path of all) {
      await uploadEnds(path, 'Done')
      expect(await upload(path).getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100')
    }
    expect(await page.locator('.uploads-summary').textContent()).toBe(
      `${all.length} of ${all.length} uploaded.`,
    )
    const fills = await page.evaluate(
      () => (window as unknown as { doneFill: Record<string, number> }).doneFill,
    )
    expect(Object.keys(fills).sort()).toEqual([...all].sort())
    for (const path of all) expect(fills[path]).toBeGreaterThan(0.999)
    // The documents table lists every file once the queue is empty.
    for (const path of all) await page.getByRole('rowheader', { name: path }).waitFor()
    expect(await page.locator('.base-counters dd').first().textContent()).toBe(String(all.length))

    // Random bytes named x.bin: 415, and the line says what the type is, in the API's words.
    const random = new Uint8Array(4096).map((_, i) => (i * 7919 + 13) % 251)
    await page.getByLabel('Files to upload').setInputFiles({
      name: 'x.bin',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from(random),
    })
    await uploadEnds('x.bin', 'Failed')
    const refusal = (await upload('x.bin').locator('.upload-error').textContent()) ?? ''
    expect(refusal).toMatch(/^Unsupported file type: /)
    expect(refusal).toContain('Supported types:')
    // Retry sends it again: the same refusal, not a stale line.
    const before = await page.locator('li.upload-failed').count()
    await page.getByRole('button', { name: 'Retry x.bin' }).click()
    await uploadEnds('x.bin', 'Failed')
    expect(await page.locator('li.upload-failed').count()).toBe(before)
    expect(await upload('x.bin').locator('.upload-error').textContent()).toBe(refusal)
    await page.getByRole('button', { name: 'Retry failed (1)' }).waitFor()
    await accessible(page)
    await r.screenshot(page, 'base-uploaded')
  })

  test('onboarding shows its live bar to 100 %, the base becomes ready, and the history lists the run', async () => {
    const r = rig()
    const started = Date.now()
    await page.getByRole('button', { name: 'Start onboarding' }).click()
    await page
      .getByRole('button', { name: 'Cancel onboarding' })
      .or(page.getByText('100% · finished'))
      .waitFor()
    const bar = page.getByRole('progressbar', { name: 'Onboarding progress' })
    await page.waitForFunction(
      () =>
        document.querySelector('[aria-label="Onboarding progress"]')?.getAttribute('aria-valuenow') === '100',
      undefined,
      { timeout: 90_000 },
    )
    expect(await bar.getAttribute('aria-valuenow')).toBe('100')
    await page.getByText(/^100% · finished/).waitFor()
    await page.locator('.base-summary', { hasText: 'ready' }).waitFor()
    const counters = await page.locator('.base-counters dd').allTextContents()
    expect(counters.slice(0, 4)).toEqual(['7', '7', '0', '0'])
    const history = page.getByRole('table', { name: /Onboarding history/ })
    // The history is fetched apart from the base's counters: wait for the finished run's row.
    await history.getByText('succeeded').waitFor()
    expect(await history.getByRole('row').count()).toBe(2)
    expect(await history.getByText('succeeded').count()).toBe(1)
    console.log(`onboarding of 7 files took ${Date.now() - started} ms in the browser`)
    await accessible(page)
    await r.screenshot(page, 'base-ready')
  })

  test('a run in flight shows the estimate of time left, and cancel stops it (the job answers stood in)', async () => {
    const r = rig()
    // A run of seven small files ends within a second: the job's answers are stood in, so the
    // running state and the cancel can be seen whatever the machine's speed.
    const job = (status: string, progress: number, eta: number | null) => ({
      id: 'job_standin',
      corpus_id: 'cor_x',
      parent_id: null,
      kind: 'train',
      status,
      progress,
      eta_seconds: eta,
      detail: '7 section(s) to onboard',
      error: null,
      created_at: new Date().toISOString(),
      started_at: new Date().toISOString(),
      finished_at: status === 'canceled' ? new Date().toISOString() : null,
    })
    let trainUrl = ''
    let canceled = false
    await page.route('**/v1/corpora/*/train*', (route) => {
      trainUrl = route.request().url()
      return route.fulfill({ json: job('running', 0, null) })
    })
    await page.route('**/v1/jobs/job_standin', (route) =>
      route.fulfill({ json: canceled ? job('canceled', 0.43, 0) : job('running', 0.43, 75) }),
    )
    await page.route('**/v1/corpora/*/cancel', (route) => {
      canceled = true
      return route.fulfill({ json: job('running', 0.43, 75) })
    })
    await page.getByLabel('Redo every document, not only new and changed ones').check()
    await page.getByRole('button', { name: 'Start onboarding' }).click()
    await page.getByText('43% · about 1 min 15 s left').waitFor()
    expect(new URL(trainUrl).searchParams.get('force')).toBe('true')
    expect(
      await page.getByRole('progressbar', { name: 'Onboarding progress' }).getAttribute('aria-valuenow'),
    ).toBe('43')
    await accessible(page)
    await r.screenshot(page, 'base-onboarding-running')
    // The cartridges' build after a run is said above the history while it goes (issue 38).
    const building = /\/v1\/corpora\/[^/]+\/jobs\?kind=train_deferred/
    await page.route(building, (route) =>
      route.fulfill({
        json: {
          items: [{ ...job('running', 0.4, 3), id: 'job_deferred', kind: 'train_deferred' }],
          next_cursor: null,
        },
      }),
    )
    await page.getByRole('button', { name: 'Cancel onboarding' }).click()
    await page.getByText('Canceled at 43%').waitFor()
    await page.getByRole('button', { name: 'Start onboarding' }).waitFor()
    const buildingLine = page.getByRole('status').filter({ hasText: 'Building cartridges: 40%' })
    await buildingLine.waitFor()
    await buildingLine.scrollIntoViewIfNeeded()
    // It is the base's state, not a row of its history: above the history's heading, saying how it answers meanwhile.
    expect(await buildingLine.textContent()).toContain(
      'Questions are answered by rag until the cartridges are built.',
    )
    const history = page.getByRole('heading', { name: 'History', exact: true })
    expect((await buildingLine.boundingBox())!.y).toBeLessThan((await history.boundingBox())!.y)
    await r.screenshot(page, 'base-building-cartridges', { fullPage: false })
    await page.unroute(building)
    await page.getByText('Building cartridges: 40%').waitFor({ state: 'detached' })
    await page.unroute('**/v1/corpora/*/train*')
    await page.unroute('**/v1/jobs/job_standin')
    await page.unroute('**/v1/corpora/*/cancel')
    // Nothing was sent to the server: the real history still holds the one run.
    expect(
      await page
        .getByRole('table', { name: /Onboarding history/ })
        .getByRole('row')
        .count(),
    ).toBe(2)
  })

  test('sections show on demand; a document and then the base are deleted after confirmations that name them', async () => {
    const r = rig()
    // A one-section file has nothing to open; the HTML page is read as several sections.
    const pdf = basename(PICKED[0]!)
    expect(await page.getByRole('button', { name: new RegExp(`sections of ${pdf}$`) }).count()).toBe(0)
    const html = basename(PICKED[2]!)
    const show = page.getByRole('button', { name: new RegExp(`^Show \\d+ sections of ${html}$`) })
    const n = Number((await show.getAttribute('aria-label'))!.split(' ')[1])
    expect(n).toBeGreaterThan(1)
    await show.click()
    const list = page.getByRole('list', { name: `Sections of ${html}` })
    await list.waitFor()
    expect(await list.getByRole('listitem').count()).toBe(n)
    expect(
      await page.getByRole('button', { name: /^Hide \d+ sections of/ }).getAttribute('aria-expanded'),
    ).toBe('true')
    await accessible(page)

    // The whole page fits a 375 px phone, without sideways scrolling of the page itself.
    await page.setViewportSize({ width: 375, height: 800 })
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
    await accessible(page)
    await r.screenshot(page, 'base-375')
    await page.setViewportSize({ width: 1280, height: 800 })

    const csv = basename(PICKED[3]!)
    await page.getByRole('button', { name: `Delete ${csv}` }).click()
    const dialog = page.getByRole('dialog', { name: 'Delete this document?' })
    await dialog.waitFor()
    expect(await dialog.textContent()).toContain(csv)
    await accessible(page)
    await dialog.getByRole('button', { name: 'Delete document' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await page.getByRole('rowheader', { name: csv }).waitFor({ state: 'detached' })
    await page.locator('.base-counters dd').first().filter({ hasText: /^6$/ }).waitFor()

    // The list shows the base with its status and counters; a second base is deleted from the list.
    const token = await page.evaluate(() => JSON.parse(sessionStorage.getItem('engram.session')!).token)
    const other = await fetch(`${r.server.url}/v1/corpora`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Scratch' }),
    })
    expect(other.status).toBe(200)
    await page.getByRole('link', { name: 'All bases' }).click()
    await page.waitForURL('**/console/bases')
    const row = page.getByRole('row', { name: new RegExp(`^${BASE}`) })
    await row.waitFor()
    expect(await row.getByRole('cell').allTextContents()).toEqual([
      'ready',
      '6',
      '6',
      '0',
      '0',
      expect.any(String),
      'Delete',
    ])
    await accessible(page)
    await r.screenshot(page, 'bases-list')
    await page.getByRole('button', { name: 'Delete Scratch' }).click()
    const scratch = page.getByRole('dialog', { name: 'Delete the base “Scratch”?' })
    await scratch.waitFor()
    expect(await scratch.textContent()).toContain('0 documents')
    await scratch.getByRole('button', { name: 'Delete base' }).click()
    await page.getByRole('row', { name: /^Scratch/ }).waitFor({ state: 'detached' })
    await row.getByRole('link', { name: BASE }).click()
    await page.waitForURL(baseUrl)

    await page.getByRole('button', { name: 'Delete base' }).click()
    const confirm = page.getByRole('dialog', { name: `Delete the base “${BASE}”?` })
    await confirm.waitFor()
    expect(await confirm.textContent()).toContain('6 documents')
    // Cancel keeps it; confirming deletes it and goes back to the list, empty again.
    await confirm.getByRole('button', { name: 'Cancel' }).click()
    await confirm.waitFor({ state: 'hidden' })
    await page.getByRole('button', { name: 'Delete base' }).click()
    await confirm.getByRole('button', { name: 'Delete base' }).click()
    await page.waitForURL('**/console/bases')
    await page.getByText('No document bases yet').waitFor()
    const gone = await fetch(
      `${r.server.url}/v1${new URL(baseUrl).pathname.replace('/console/bases', '/corpora')}`,
      {
        headers: {
          authorization: `Bearer ${await page.evaluate(() => JSON.parse(sessionStorage.getItem('engram.session')!).token)}`,
        },
      },
    )
    expect(gone.status).toBe(404)
    await accessible(page)
    await r.screenshot(page, 'bases-after-delete')
  })
})
