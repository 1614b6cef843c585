import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext } from 'playwright-core'
import { consoleRig, seriousViolations } from '../helpers/browser'
import {
  askInChat,
  baseCounter,
  inViewport,
  lastAnswerPlace,
  refuseClipboard,
  uploadUi,
} from '../helpers/console-steps'
import { FIXTURE_DOCS } from '../helpers/fixture-data'

// Issue 34, "What it must show": the first hour walked as a new user would, in one browser against
// one server from a fresh data dir (its scheduler runs the automatic onboarding). Sign up through
// the first-run page → a base → a PDF, a CSV and an HTML page uploaded → onboarding → a question
// whose answer is in view above the question box → its citation opened in the viewer, on the cited
// page with the passage marked and in view → a question about the table's values → another
// document uploaded to the ready base, said to wait, and answering with no one starting onboarding
// → the base's states agreeing → copying a key and an MCP snippet where the clipboard API refuses.
// The pages' own files test each step in depth; this one shows they hold together. Screenshots of
// each step go to /tmp/journey/.

const rig = consoleRig()
const SHOTS = '/tmp/journey'
const PDF = 'pdf/Unstructured-IO_unstructured__layout-parser-paper-fast.pdf'
const CSV = 'csv/mwaskom_seaborn-data__penguins.csv'
const HTML = 'html/deepset-ai_haystack__what_is_haystack.html'
/** Uploaded once the base is ready: nothing else in the base speaks of superlinear returns. */
const LATER = 'html/deepset-ai_haystack__paul_graham_superlinear.html'
const BASE = 'First hour'
// Answered on the paper's second page ("Existing models are developed using distinct frameworks
// like TensorFlow [1] or PyTorch [24]").
const QUESTION = 'Which frameworks are existing models developed using?'
const TABLE_QUESTION = 'Which penguin species are in the dataset?'
const LATER_QUESTION = 'What is superlinear return?'

let ctx: BrowserContext | undefined
afterAll(async () => ctx?.close())

const squash = (s: string) => s.replace(/\s+/g, ' ').trim()
const name = (path: string) => path.split('/').pop()!

describe('console: the first hour, as a new user walks it', () => {
  test('sign up, upload, onboard, ask, read the source, ask a table, add a document, copy', async () => {
    const r = rig()
    mkdirSync(SHOTS, { recursive: true })
    ctx = await r.context({ width: 1280, height: 800 })
    // A plain-HTTP install's browser: the clipboard API refuses every write.
    await refuseClipboard(ctx)
    const page = await ctx.newPage()
    const shot = (step: string) => page.screenshot({ path: join(SHOTS, `${step}.png`) })
    const started = Date.now()
    const api = async <T>(path: string, token: string): Promise<T> => {
      const res = await fetch(`${r.server.url}/v1${path}`, { headers: { authorization: `Bearer ${token}` } })
      expect(res.status).toBe(200)
      return (await res.json()) as T
    }

    // 1. First run: the install has no workspace, so the console offers to create it.
    await page.goto(r.url('/'))
    await page.getByRole('heading', { name: 'Welcome to Engram' }).waitFor()
    await page.getByLabel('Workspace name').fill('Penguin Labs')
    await page.getByLabel('Your name').fill('Pia Admin')
    await page.getByLabel('Email').fill('pia@example.com')
    await page.getByLabel('Password').fill('correct horse battery')
    await shot('01-first-run')
    await page.getByRole('button', { name: 'Create the workspace' }).click()
    await page.waitForURL('**/console/bases')
    const token = await page.evaluate(
      () => (JSON.parse(sessionStorage.getItem('engram.session') ?? '{}') as { token?: string }).token ?? '',
    )
    expect(token).not.toBe('')

    // 2. A base, and a PDF, a CSV and an HTML page uploaded through the page.
    await page.getByLabel('Name your first base').fill(BASE)
    await page.getByRole('button', { name: 'Create base' }).click()
    await page.waitForURL(/\/console\/bases\/cor_[^/]+$/)
    const baseId = new URL(page.url()).pathname.split('/').pop()!
    await uploadUi(
      page,
      [PDF, CSV, HTML].map((f) => join(FIXTURE_DOCS, f)),
    )
    const summary = page.locator('.base-summary')
    // A new base's first run is the user's choice, and the page says so.
    await summary
      .getByText('3 documents waiting to be onboarded: start onboarding to make them answerable.')
      .waitFor()
    await shot('02-uploaded')

    // 3. Onboarding, started by the user; the base reads ready, alone.
    await page.getByRole('button', { name: 'Start onboarding' }).click()
    await summary.getByText('Ready for questions.', { exact: true }).waitFor({ timeout: 90_000 })
    await baseCounter(page, 'Ready').locator('dd', { hasText: /^3$/ }).waitFor()
    await shot('03-onboarded')

    // 4. A question in the chat: the answer is in the viewport, above the question box.
    await page.getByRole('link', { name: 'Chat' }).first().click()
    await page.waitForURL(`**/console/bases/${baseId}/chat`)
    await page.getByText('Ask the first question').waitFor()
    const sources = await askInChat(page, QUESTION)
    const first = sources[0]!
    expect(first.filename).toBe(name(PDF))
    expect(first.page).toBe(2)
    const at = await lastAnswerPlace(page)
    expect(at.top).toBeGreaterThanOrEqual(0)
    expect(at.wordsTop).toBeGreaterThanOrEqual(0)
    expect(at.wordsBottom).toBeLessThanOrEqual(Math.min(at.viewport, at.composerTop))
    expect(await page.locator('.answer-text').last().textContent()).toMatch(/TensorFlow|PyTorch/)
    await shot('04-answer-in-view')

    // 5. Its citation: the page and the passage, then the viewer at the cited page, passage marked.
    await page
      .locator('article.exchange')
      .last()
      .getByRole('button', { name: /^Source 1:/ })
      .first()
      .click()
    const dialog = page.getByRole('dialog')
    await dialog.waitFor()
    expect(await dialog.textContent()).toContain('Page 2')
    expect(squash((await dialog.getByLabel('Passage').textContent()) ?? '')).toBe(squash(first.snippet))
    await shot('05-citation')
    await dialog.getByRole('link', { name: 'Open in document' }).click()
    await page.waitForURL(/\/documents\/[^/?]+\?at=\d+-\d+$/)
    await page.locator('mark.cited').first().waitFor()
    expect(new URL(page.url()).search).toBe(`?at=${first.start}-${first.end}`)
    expect(squash((await page.locator('mark.cited').allTextContents()).join(''))).toBe(squash(first.snippet))
    expect(await inViewport(page, 'mark.cited')).toBe(true)
    expect(await page.getByText('The cited passage is on page 2').count()).toBe(1)
    const pageOfMark = await page.$eval('mark.cited', (m) => {
      const markers = [...document.querySelectorAll('.page-marker')]
      const before = markers.filter((p) => p.compareDocumentPosition(m) & Node.DOCUMENT_POSITION_FOLLOWING)
      return before.at(-1)?.getAttribute('data-page')
    })
    expect(pageOfMark).toBe('2')
    await shot('06-viewer')

    // 6. A question about the table's values, in the same (kept) conversation.
    await page.goBack()
    await page.waitForURL(`**/console/bases/${baseId}/chat`)
    await page.getByRole('article', { name: `Question: ${QUESTION}` }).waitFor()
    const tableSources = await askInChat(page, TABLE_QUESTION)
    const tableAnswer = (await page.locator('.answer-text').last().textContent()) ?? ''
    await shot('07-table-answer')
    expect(tableSources.map((s) => s.filename)).toContain(name(CSV))
    for (const species of ['Adelie', 'Chinstrap', 'Gentoo']) expect(tableAnswer).toContain(species)

    // 7. Another document uploaded to the ready base: it waits, and the base says it will be
    //    onboarded by itself; no "Onboarding N" while none is in a run.
    await page.getByRole('link', { name: 'Documents', exact: true }).click()
    await page.waitForURL(`**/console/bases/${baseId}`)
    await summary.getByText('Ready for questions.', { exact: true }).waitFor()
    expect(await baseCounter(page, 'Onboarding').count()).toBe(0)
    expect(await baseCounter(page, 'Last synced').locator('dd').textContent()).toBe('never synced')
    await uploadUi(page, [join(FIXTURE_DOCS, LATER)])
    await summary
      .getByText('Ready for questions · 1 document waiting — onboarding starts by itself.')
      .waitFor()
    expect(await baseCounter(page, 'Waiting').locator('dd').textContent()).toBe('1')
    expect(await baseCounter(page, 'Onboarding').count()).toBe(0)
    await shot('08-waiting')

    // 8. No one starts onboarding: the scheduler's run takes it, and the base reads ready alone.
    await summary.getByText('Ready for questions.', { exact: true }).waitFor({ timeout: 90_000 })
    await baseCounter(page, 'Waiting').locator('dd', { hasText: /^0$/ }).waitFor()
    await page
      .getByRole('row', { name: new RegExp(name(LATER)) })
      .locator('.badge')
      .filter({ hasText: 'ready' })
      .waitFor()
    await page
      .getByRole('table', { name: /Onboarding history/ })
      .getByRole('cell', { name: 'Onboarding (automatic)' })
      .waitFor()
    // The states agree: nothing onboarding, nothing waiting, never synced (uploads are not syncs),
    // and the API says the same as the page.
    expect(await baseCounter(page, 'Onboarding').count()).toBe(0)
    expect(await baseCounter(page, 'Documents').locator('dd').textContent()).toBe('4')
    expect(await baseCounter(page, 'Ready').locator('dd').textContent()).toBe('4')
    expect(await baseCounter(page, 'Last synced').locator('dd').textContent()).toBe('never synced')
    const corpus = await api<{
      status: string
      documents_pending: number
      documents_onboarding: number
      last_synced_at: string | null
    }>(`/corpora/${baseId}`, token)
    expect(corpus).toMatchObject({
      status: 'ready',
      documents_pending: 0,
      documents_onboarding: 0,
      last_synced_at: null,
    })
    await page.getByRole('tab', { name: 'Sources' }).click()
    await page.getByText('No syncs or imports yet.').waitFor()
    await page.getByRole('tab', { name: 'Documents' }).click()
    expect(await seriousViolations(page)).toEqual([])
    await shot('09-onboarded-by-itself')

    // The list of bases says the same: ready, nothing waiting, never synced.
    await page.getByRole('link', { name: 'All bases' }).click()
    const row = page.getByRole('row', { name: new RegExp(`^${BASE}`) })
    await row.waitFor()
    const rowText = (await row.textContent()) ?? ''
    expect(rowText).toContain('never synced')
    expect(rowText).not.toMatch(/onboarding \d|waiting/i)
    await shot('10-bases-list')

    // 9. The new document answers in the chat.
    await row.getByRole('link', { name: BASE }).click()
    await page.getByRole('link', { name: 'Chat' }).first().click()
    await page.waitForURL(`**/console/bases/${baseId}/chat`)
    const laterSources = await askInChat(page, LATER_QUESTION)
    expect(laterSources[0]?.filename).toBe(name(LATER))
    expect(await page.locator('.answer-text').last().textContent()).toMatch(/superlinear/i)
    const last = await lastAnswerPlace(page)
    expect(last.wordsTop).toBeGreaterThanOrEqual(0)
    expect(last.wordsTop).toBeLessThan(Math.min(last.viewport, last.composerTop))
    await shot('11-new-document-answers')

    // 10. Copying where the clipboard API refuses: the copy command copies the key.
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'API keys' }).click()
    await page.getByLabel('Key name').fill('Agent')
    await page.getByRole('checkbox', { name: /Query/ }).check()
    await page.getByRole('button', { name: 'Create key' }).click()
    const shown = page.getByRole('dialog', { name: 'Your new API key' })
    const secret = await shown.getByLabel(/Secret of/).inputValue()
    await shown.getByRole('button', { name: 'Copy the key' }).click()
    await shown.getByRole('status').filter({ hasText: 'Copied' }).waitFor()
    expect(await page.evaluate(() => (window as unknown as { copied: string[] }).copied)).toEqual([secret])
    await shot('12-key-copied')
    await shown.getByRole('button', { name: 'I have copied it' }).click()

    //     Where the copy command fails too, the MCP snippet is shown selected, with how to copy it.
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'MCP' }).click()
    const snippet = page.locator('section.snippet').first()
    await snippet.waitFor()
    const text = (await snippet.locator('pre').textContent()) ?? ''
    expect(text).toContain(secret)
    await page.evaluate(() => {
      document.execCommand = () => false
    })
    await snippet.getByRole('button', { name: /^Copy: / }).click()
    await snippet.getByRole('status').filter({ hasText: 'would not copy' }).waitFor()
    const manual = snippet.locator('.copy-manual')
    await page.waitForFunction(() => document.activeElement?.classList.contains('copy-manual') ?? false)
    const chosen = await manual.evaluate((el: HTMLInputElement | HTMLTextAreaElement) => ({
      tag: el.tagName,
      focused: el === document.activeElement,
      whole: el.selectionStart === 0 && el.selectionEnd === el.value.length,
      value: el.value,
    }))
    expect(chosen.focused).toBe(true)
    expect(chosen.whole).toBe(true)
    // The snippet has line breaks, so the field is a text area that keeps them (a one-line input
    // would run the JSON's lines, or the Inspector's two commands, together).
    expect(text).toMatch(/\n/)
    expect(chosen.tag).toBe('TEXTAREA')
    expect(chosen.value).toBe(text)
    await shot('13-mcp-copy-fallback')
    await r.screenshot(page, 'first-hour-journey', { fullPage: false })
    console.log(`first-hour journey: ${((Date.now() - started) / 1000).toFixed(1)} s`)
  }, 300_000)
})
