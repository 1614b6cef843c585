import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { binaryObjects } from '../helpers/binary'
import { consoleRig, seriousViolations } from '../helpers/browser'
import { baseCounter, uploadUi } from '../helpers/console-steps'
import { type Account, registerAdmin, signInUi } from '../helpers/console-workspace'
import { storedObjects } from '../helpers/stored-objects'

// Issue 34, "Documents added to a ready base become searchable by themselves" and "States agree",
// in the console against the real server (its scheduler runs the automatic onboarding): a base
// never synced says so; documents uploaded to an onboarded base say they wait and that onboarding
// starts by itself, then answer once the run it starts ends; with automatic onboarding turned off
// they offer "Start onboarding"; a run that could not onboard a document reads "partly failed";
// usage counts people's questions apart from load tests and comparisons. One workspace and one
// signed-in page go through the tests in order.

/** The server's data dir, known to the test: a document's text is taken from its objects to make it fail. */
const DATA = mkdtempSync(join(tmpdir(), 'engram-states-data-'))
// Automatic starts wait 4 s of quiet (not 2): time enough to cancel one from the page.
const rig = consoleRig({ ENGRAM_DATA_DIR: DATA, ENGRAM_ONBOARDING_AUTO_DELAY_MS: '4000' })
const FILES = mkdtempSync(join(tmpdir(), 'engram-states-files-'))
const BASE = 'Field notes'

const TEXTS: Record<string, string> = {
  'harbour.md':
    '# The harbour\n\nThe lighthouse on Kestrel Point was built in 1871 and is kept by Mara Quill.\n',
  'rhine.txt': 'The Rhine begins in the Swiss Alps at Lake Toma and flows into the North Sea at Rotterdam.\n',
  'kept.txt': 'The Danube flows through ten countries, more than any other river in the world.\n',
  'lost.txt': 'The Volga is the longest river in Europe and flows into the Caspian Sea.\n',
  'tagus.txt': 'The Tagus is the longest river of the Iberian Peninsula and reaches the sea at Lisbon.\n',
}
for (const [name, text] of Object.entries(TEXTS)) writeFileSync(join(FILES, name), text)

let ctx: BrowserContext
let page: Page
let admin: Account
let baseId = ''

afterAll(async () => {
  await ctx?.close()
  for (const d of [FILES, DATA]) rmSync(d, { recursive: true, force: true })
})

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

/** A JSON call of the API as the admin. */
async function api<T>(path: string, init: { method?: string; json?: unknown; headers?: object } = {}) {
  const res = await fetch(`${rig().server.url}/v1${path}`, {
    method: init.method ?? 'GET',
    headers: { ...bearer(admin.token), 'content-type': 'application/json', ...init.headers },
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${text}`)
  return JSON.parse(text) as T
}

/** Uploads files of FILES through the page's file input and waits until each is done. */
const upload = (names: string[]) =>
  uploadUi(
    page,
    names.map((n) => join(FILES, n)),
  )

/** The base page's counter `label` (Documents, Ready, Waiting, ...). */
const counter = (label: string) => baseCounter(page, label)

/** The status of the document `name` in the documents table. */
const docStatus = (name: string) => page.getByRole('row', { name: new RegExp(name) }).locator('.badge')

/** axe finds nothing serious, in light and in dark. */
async function accessible(p: Page): Promise<void> {
  expect(await seriousViolations(p)).toEqual([])
  await p.emulateMedia({ colorScheme: 'dark' })
  expect(await seriousViolations(p)).toEqual([])
  await p.emulateMedia({ colorScheme: 'light' })
}

describe('console: a base’s states agree', () => {
  test('a base that no source or import has synced reads "never synced" in its header, sources tab and the list', async () => {
    const r = rig()
    admin = await registerAdmin(r, 'flo@example.com')
    baseId = (await api<{ id: string }>('/corpora', { method: 'POST', json: { name: BASE } })).id
    ctx = await r.context()
    page = await ctx.newPage()
    await signInUi(page, r, admin, `/console/bases/${baseId}`)
    await page.getByRole('heading', { level: 1, name: BASE }).waitFor()
    // An upload is not a sync: the base stays never synced.
    await upload(['harbour.md'])
    await counter('Documents').locator('dd', { hasText: /^1$/ }).waitFor()
    expect(await counter('Last synced').locator('dd').textContent()).toBe('never synced')
    await page.getByRole('tab', { name: 'Sources' }).click()
    await page.getByText('No syncs or imports yet.').waitFor()
    expect(await counter('Last synced').locator('dd').textContent()).toBe('never synced')
    expect(await page.locator('time').count()).toBe(0)
    await page.getByRole('link', { name: 'All bases' }).click()
    const row = page.getByRole('row', { name: new RegExp(`^${BASE}`) })
    await row.waitFor()
    expect(await row.getByRole('cell').nth(5).textContent()).toBe('never synced')
    await row.getByRole('link', { name: BASE }).click()
    await page.getByRole('heading', { level: 1, name: BASE }).waitFor()
  }, 120_000)

  test('an upload to an onboarded base waits, says onboarding starts by itself, then answers when the run it started ends', async () => {
    const r = rig()
    // A new base's first run is a person's choice: its waiting document asks for it.
    const summary = page.locator('.base-summary')
    await summary
      .getByText('1 document waiting to be onboarded: start onboarding to make them answerable.')
      .waitFor()
    await page.getByRole('button', { name: 'Start onboarding' }).click()
    await summary.getByText('Ready for questions.', { exact: true }).waitFor({ timeout: 90_000 })

    await upload(['rhine.txt'])
    await summary
      .getByText('Ready for questions · 1 document waiting — onboarding starts by itself.')
      .waitFor()
    expect(await counter('Waiting').locator('dd').textContent()).toBe('1')
    // "Onboarding N" is for documents in a run, and none is yet.
    expect(await counter('Onboarding').count()).toBe(0)
    // The automatic start waits a moment for uploads to stop; the panel says it is coming.
    await page.getByText('1 document waiting: onboarding starts in a moment.').waitFor()
    await r.screenshot(page, 'base-waiting')

    // The run it starts takes the document; then nothing waits and the base reads ready alone.
    await summary.getByText('Ready for questions.', { exact: true }).waitFor({ timeout: 90_000 })
    await counter('Waiting').locator('dd', { hasText: /^0$/ }).waitFor()
    await docStatus('rhine.txt').filter({ hasText: 'ready' }).waitFor()
    const history = page.getByRole('table', { name: /Onboarding history/ })
    await history.getByRole('cell', { name: 'Onboarding (automatic)' }).waitFor()
    await page.getByText('started by itself').waitFor()
    const answer = await api<{ answered: boolean; sources: { filename: string }[] }>(
      `/corpora/${baseId}/chat`,
      { method: 'POST', json: { question: 'Where does the Rhine begin?' } },
    )
    expect(answer.answered).toBe(true)
    expect(answer.sources[0]?.filename).toBe('rhine.txt')
    await accessible(page)
  }, 120_000)

  test('after a canceled start the header, the panel and the list say the document waits for a start or the next change', async () => {
    const r = rig()
    const summary = page.locator('.base-summary')
    await upload(['tagus.txt'])
    await page.getByText('1 document waiting: onboarding starts in a moment.').waitFor()
    await page.getByRole('button', { name: 'Cancel onboarding' }).click()
    // The server paused automatic onboarding; every place that shows the waiting document says so.
    const paused =
      '1 document waiting — onboarding was canceled: start it, or it starts by itself once documents are added or changed'
    await summary.getByText(`Ready for questions · ${paused}.`).waitFor()
    await page.locator('.run-waiting').getByText(`${paused}.`).waitFor()
    await page.getByRole('button', { name: 'Start onboarding' }).waitFor()
    const base = await api<{ auto_onboard_paused: boolean; documents_pending: number }>(`/corpora/${baseId}`)
    expect(base).toMatchObject({ auto_onboard_paused: true, documents_pending: 1 })
    const autoStarts = await api<{ items: { status: string }[] }>(`/corpora/${baseId}/jobs?kind=train_auto`)
    expect(autoStarts.items.map((j) => j.status)).not.toContain('pending')
    expect(await page.getByText('onboarding starts by itself').count()).toBe(0)
    await accessible(page)
    await r.screenshot(page, 'base-canceled')
    await page.getByRole('link', { name: 'All bases' }).click()
    const row = page.getByRole('row', { name: new RegExp(`^${BASE}`) })
    await row.getByRole('button', { name: `Start onboarding ${BASE}` }).waitFor()
    await row.getByRole('link', { name: BASE }).click()
    // Started by hand: the pause ends, and the document answers.
    await page.getByRole('button', { name: 'Start onboarding' }).click()
    await summary.getByText('Ready for questions.', { exact: true }).waitFor({ timeout: 90_000 })
    await docStatus('tagus.txt').filter({ hasText: 'ready' }).waitFor()
    expect((await api<{ auto_onboard_paused: boolean }>(`/corpora/${baseId}`)).auto_onboard_paused).toBe(
      false,
    )
  }, 120_000)

  test('with automatic onboarding off, waiting documents offer "Start onboarding"; a run that loses one reads partly failed', async () => {
    const r = rig()
    const auto = page.getByLabel('Onboard new and changed documents by themselves')
    expect(await auto.isChecked()).toBe(true)
    await auto.uncheck()
    await until(async () => !(await api<{ auto_onboard: boolean }>(`/corpora/${baseId}`)).auto_onboard)
    await page.reload()
    expect(await page.getByLabel('Onboard new and changed documents by themselves').isChecked()).toBe(false)

    await upload(['kept.txt', 'lost.txt'])
    const summary = page.locator('.base-summary')
    await summary.getByText('Ready for questions · 2 documents waiting to be onboarded.').waitFor()
    await page.getByText('2 documents waiting to be onboarded.', { exact: true }).waitFor()

    // lost.txt's extracted text goes missing before the run (as a store that lost a file would).
    await binaryObjects(DATA).delete(await sidecarOf(TEXTS['lost.txt']!.trimEnd()))

    // The list of bases offers the start for a base whose documents would otherwise wait.
    await page.getByRole('link', { name: 'All bases' }).click()
    const row = page.getByRole('row', { name: new RegExp(`^${BASE}`) })
    await row.getByText('2 waiting').waitFor()
    await accessible(page)
    await r.screenshot(page, 'bases-waiting')
    await row.getByRole('button', { name: `Start onboarding ${BASE}` }).click()
    await row.getByRole('link', { name: BASE }).click()

    const run = page.locator('.run-progress')
    await run.getByText(/^100% · finished in .* · 1 of 2 failed$/).waitFor({ timeout: 90_000 })
    const badge = run.locator('.run-head .badge')
    expect(await badge.textContent()).toBe('partly failed')
    expect(await badge.getAttribute('class')).toContain('badge-warn')
    expect(await run.getByText('succeeded').count()).toBe(0)
    const history = page.getByRole('table', { name: /Onboarding history/ })
    expect(await history.getByRole('row').nth(1).locator('.badge').textContent()).toBe('partly failed')
    await docStatus('lost.txt').filter({ hasText: 'failed' }).waitFor()
    await docStatus('kept.txt').filter({ hasText: 'ready' }).waitFor()
    // The counters are the base's, fetched apart from the documents' page when the run ends: they agree
    // once both have come.
    await counter('Failed').locator('dd', { hasText: /^1$/ }).waitFor()
    await accessible(page)
    await r.screenshot(page, 'base-partly-failed')
  }, 120_000)

  test('usage counts the questions people asked apart from load tests and comparisons', async () => {
    const r = rig()
    // This test needs an answering base, not the states above: onboarded here if they failed.
    if ((await api<{ status: string }>(`/corpora/${baseId}`)).status === 'new')
      await api(`/corpora/${baseId}/train`, { method: 'POST' })
    await until(async () => (await api<{ status: string }>(`/corpora/${baseId}`)).status === 'ready', 60_000)
    type Totals = { queries: number; load_test_queries: number; compare_queries: number }
    const totals = async () => (await api<{ totals: Totals }>('/admin/usage')).totals
    const before = await totals()
    // One more person's question, the scale test's load (marked as such), and a comparison.
    await api(`/corpora/${baseId}/chat`, { method: 'POST', json: { question: 'Who keeps the lighthouse?' } })
    for (let i = 0; i < 2; i++)
      await api(`/corpora/${baseId}/chat`, {
        method: 'POST',
        json: { question: 'Where does the Rhine begin?' },
        headers: { 'X-Engram-Origin': 'scale_test' },
      })
    await api(`/corpora/${baseId}/compare`, {
      method: 'POST',
      json: { question: 'Where does the Rhine begin?' },
    })
    // Questions are counted as their events are delivered: wait for the comparison's two, one for each strategy.
    await until(async () => (await totals()).compare_queries === before.compare_queries + 2)
    const { queries, load_test_queries: load, compare_queries: compare } = await totals()
    expect(queries).toBe(before.queries + 1)
    expect(load).toBe(before.load_test_queries + 2)

    await page.goto(r.url('/console/usage'))
    await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor()
    const tile = page.locator('.tile', { hasText: 'Questions asked' })
    expect(await tile.locator('dd').evaluate((dd) => dd.firstChild?.textContent)).toBe(String(queries))
    expect(await tile.locator('.tile-note').textContent()).toBe(
      `Load tests and comparisons: ${load + compare}`,
    )
    const row = page.getByRole('row', { name: new RegExp(BASE) })
    expect(await row.getByRole('cell').nth(1).textContent()).toBe(String(queries))
    expect(await row.getByRole('cell').nth(2).textContent()).toBe(String(load + compare))
    // The chart is of people's questions: today's point leaves the load out.
    await page.getByText('Show the numbers').click()
    const today = new Date().toISOString().slice(0, 10)
    expect(await page.getByRole('row', { name: today }).getByRole('cell').nth(1).textContent()).toBe(
      String(queries),
    )
    await accessible(page)
    await r.screenshot(page, 'usage-split')
  }, 120_000)
})

/**
 * The key of the text sidecar holding `text` (a file read as it was uploaded: its line end dropped,
 * its text is stored beside it when the upload answers).
 */
async function sidecarOf(text: string): Promise<string> {
  const stored = await storedObjects(binaryObjects(DATA), '', (k) => k.endsWith('.txt'))
  const found = stored.find((o) => o.bytes.toString() === text)
  if (!found) throw new Error(`no sidecar holds "${text}"`)
  return found.key
}

/** Resolves once `ok` answers true, asked every 100 ms for at most `ms`. */
async function until(ok: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`still not so after ${ms} ms`)
    await Bun.sleep(100)
  }
}
