import { afterAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { BrowserContext } from 'playwright-core'
import { consoleRig, seriousViolations } from '../helpers/browser'
import { FIXTURE_DOCS } from '../helpers/fixture-data'

// Issue 19's whole path in one browser, on a server started from a fresh data dir: first run →
// upload real files → onboarding to 100 % → a streamed chat answer whose citation opens the right
// passage → compare → a key created and used from outside the browser → a member invited and
// accepting in a second browser → sign out. The pages' own files test each step in depth.

const rig = consoleRig()
const FILES = [
  'md/deepset-ai_haystack__sample.md',
  'html/deepset-ai_haystack__what_is_haystack.html',
  'pdf/deepset-ai_haystack__sample_pdf_1.pdf',
  'docx/deepset-ai_haystack__sample_docx.docx',
  'csv/mwaskom_seaborn-data__iris.csv',
]
const contexts: BrowserContext[] = []
/** The steps docs/console.md shows are taken as the screen shows them. */
const VIEW = { fullPage: false }
afterAll(async () => {
  for (const c of contexts) await c.close()
})

describe('console: the whole path', () => {
  test('first run to sign-out, every step through the console', async () => {
    const r = rig()
    const ctx = await r.context()
    contexts.push(ctx)
    const page = await ctx.newPage()
    const foreign: string[] = []
    page.on('request', (req) => {
      if (!req.url().startsWith(r.server.url) && !req.url().startsWith('data:')) foreign.push(req.url())
    })

    // First run: the install has no workspace, so the console offers to create it.
    await page.goto(r.url('/'))
    await page.getByRole('heading', { name: 'Welcome to Engram' }).waitFor()
    await page.getByLabel('Workspace name').fill('Journey Labs')
    await page.getByLabel('Your name').fill('Jo Admin')
    await page.getByLabel('Email').fill('jo@example.com')
    await page.getByLabel('Password').fill('correct horse battery')
    await page.getByRole('button', { name: 'Create the workspace' }).click()
    await page.waitForURL('**/console/bases')

    // A base, and the repository's real PDF, DOCX, HTML, Markdown and CSV files uploaded.
    await r.screenshot(page, 'journey-bases-empty', VIEW)
    await page.getByLabel('Name your first base').fill('Haystack notes')
    await page.getByRole('button', { name: 'Create base' }).click()
    await page.waitForURL(/\/console\/bases\/cor_[^/]+$/)
    const baseId = new URL(page.url()).pathname.split('/').pop()!
    await page.getByLabel('Files to upload').setInputFiles(FILES.map((f) => join(FIXTURE_DOCS, f)))
    for (const f of FILES) {
      await page
        .locator(`li.upload-item[data-path="${f.split('/').pop()}"] .upload-state`, { hasText: /^Done/ })
        .waitFor()
    }

    // Onboarding: the live bar reaches 100 % and the base is ready.
    await page.getByRole('button', { name: 'Start onboarding' }).click()
    await page.waitForFunction(
      () =>
        document.querySelector('[aria-label="Onboarding progress"]')?.getAttribute('aria-valuenow') === '100',
      undefined,
      { timeout: 90_000 },
    )
    await page.locator('.base-summary', { hasText: 'ready' }).waitFor()
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'journey-base', VIEW)

    // Chat: the answer streams in; citation [1] opens the passage the server cited, and its document.
    await page.getByRole('link', { name: 'Chat' }).click()
    await page.waitForURL(`**/console/bases/${baseId}/chat`)
    await page.getByLabel('Question', { exact: true }).fill('What is Haystack?')
    const [stream] = await Promise.all([
      page.waitForResponse((res) => res.url().endsWith('/chat/stream') && res.request().method() === 'POST'),
      page.getByRole('button', { name: 'Ask' }).click(),
    ])
    expect(stream.headers()['content-type']).toContain('text/event-stream')
    const head = JSON.parse(/event: head\ndata: (.*)\n/.exec(await stream.text())?.[1] ?? 'null') as {
      sources: { filename: string; snippet: string }[]
    }
    await page.getByRole('button', { name: 'Good answer' }).waitFor()
    await page
      .getByRole('button', { name: /^Source 1:/ })
      .first()
      .click()
    const dialog = page.getByRole('dialog')
    await dialog.waitFor()
    expect(await dialog.getByRole('link', { name: head.sources[0]!.filename }).isVisible()).toBe(true)
    const passage = (await dialog.getByLabel('Passage').textContent()) ?? ''
    expect(passage.replace(/\s+/g, ' ').trim()).toBe(head.sources[0]!.snippet.replace(/\s+/g, ' ').trim())
    await r.screenshot(page, 'journey-citation', VIEW)
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })

    // Compare: one question through both strategies, side by side.
    await page.goto(r.url(`/console/bases/${baseId}/compare`))
    await page.getByLabel('Question', { exact: true }).fill('What is Haystack?')
    await page.getByRole('button', { name: 'Compare', exact: true }).click()
    for (const side of ['cart', 'rag']) {
      await page
        .getByRole('region', { name: new RegExp(side) })
        .getByText(/ms/)
        .first()
        .waitFor()
    }
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'journey-compare', VIEW)

    // An API key with the query scope, used from outside the browser.
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'API keys' }).click()
    await page.getByLabel('Key name').fill('Outside caller')
    await page.getByRole('checkbox', { name: /Query/ }).check()
    await page.getByRole('button', { name: 'Create key' }).click()
    const shown = page.getByRole('dialog', { name: 'Your new API key' })
    const secret = await shown.getByLabel(/Secret of/).inputValue()
    const outside = await fetch(`${r.server.url}/v1/corpora/${baseId}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'What is Haystack?' }),
    })
    await r.screenshot(page, 'journey-key', VIEW)
    expect(outside.status).toBe(200)
    expect(((await outside.json()) as { answer: string }).answer).toContain('Haystack')
    await shown.getByRole('button', { name: 'I have copied it' }).click()

    // A member invited here accepts in a second browser, and lands signed in.
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Members' }).click()
    await page.getByLabel('Email address').fill('sam@example.com')
    await page.getByRole('button', { name: 'Send invitation' }).click()
    const link = new URL(await page.getByLabel('Invitation link').inputValue())
    await r.screenshot(page, 'journey-members', VIEW)
    const other = await r.context()
    contexts.push(other)
    const invitee = await other.newPage()
    await invitee.goto(r.url(link.pathname + link.search))
    await invitee.getByLabel('Your name').fill('Sam Member')
    await invitee.getByLabel('Choose a password').fill('another good password')
    await invitee.getByRole('button', { name: 'Join the workspace' }).click()
    await invitee.waitForURL('**/console/bases')
    await invitee.getByRole('link', { name: 'Haystack notes' }).waitFor()
    await r.screenshot(invitee, 'journey-invitee')

    // Sign out.
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL('**/console/sign-in')
    await page.goto(r.url(`/console/bases/${baseId}`))
    await page.waitForURL('**/console/sign-in?next=*')
    await r.screenshot(page, 'journey-signed-out')
    expect(foreign).toEqual([])
  }, 240_000)
})
