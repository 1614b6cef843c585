import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { BrowserContext, Page } from 'playwright-core'
import { parseSse } from '../../src/platform/http/sse'
import { consoleRig, seriousViolations } from '../helpers/browser'
import { type ConsoleBase, fixtureFile, readyBaseOn } from '../helpers/console-base'
import { startLlmStandin } from '../helpers/llm-standin'

const FILES = () => [
  fixtureFile('md/deepset-ai_haystack__sample.md', 'text/markdown'),
  fixtureFile('html/deepset-ai_haystack__what_is_haystack.html', 'text/html'),
  fixtureFile('html/deepset-ai_haystack__paul_graham_superlinear.html', 'text/html'),
]

/** A browser context already signed in as the base's admin (the token in sessionStorage). */
async function signedIn(ctx: BrowserContext, b: ConsoleBase): Promise<Page> {
  await ctx.addInitScript((s) => sessionStorage.setItem('engram.session', JSON.stringify(s)), {
    token: b.token,
    expiresAt: b.expiresAt,
  })
  return ctx.newPage()
}

interface Head {
  answered: boolean
  sources: { filename: string; snippet: string }[]
}

/** Asks `question` in the chat form; answers the stream's response as the server sent it. */
async function ask(page: Page, question: string) {
  await page.getByLabel('Question', { exact: true }).fill(question)
  const [res] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/chat/stream') && r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Ask' }).click(),
  ])
  return res
}

describe('console: chat with a ready base', () => {
  const rig = consoleRig()
  let b: ConsoleBase
  beforeAll(async () => {
    b = await readyBaseOn(rig().server.url, FILES())
  }, 120_000)

  test('a question the documents answer streams in, and its citation [1] opens the passage and its document', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await signedIn(ctx, b)
    await page.goto(r.url(`/console/bases/${b.corpusId}/chat`))
    await page.getByRole('heading', { name: 'Chat' }).waitFor()
    await page.getByText('Ask the first question').waitFor()
    expect(await seriousViolations(page)).toEqual([])

    const res = await ask(page, 'What is Haystack?')
    expect(res.status()).toBe(200)
    expect(res.headers()['content-type']).toContain('text/event-stream')
    const events = parseSse(await res.text())
    expect(events.map((e) => e.event)).toContain('delta')
    const head = events.find((e) => e.event === 'head')!.data as Head
    expect(head.answered).toBe(true)

    // The answer is whole once its rating buttons show (the stream's `done`).
    await page.getByRole('button', { name: 'Good answer' }).waitFor()
    const answer = page.locator('.answer-text').last()
    expect(await answer.textContent()).toContain('Haystack')
    expect(await page.getByText('Not in this base').count()).toBe(0)

    await page
      .getByRole('button', { name: /^Source 1:/ })
      .first()
      .click()
    const dialog = page.getByRole('dialog')
    await dialog.waitFor()
    const first = head.sources[0]!
    expect(await dialog.getByRole('link', { name: first.filename }).isVisible()).toBe(true)
    const passage = (await dialog.getByLabel('Passage').textContent()) ?? ''
    expect(passage.replace(/\s+/g, ' ').trim()).toBe(first.snippet.replace(/\s+/g, ' ').trim())
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'chat-citation')
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    await ctx.close()
  })

  test('the strategy switch sends rag, a follow-up carries the conversation, and a rating is recorded', async () => {
    const r = rig()
    const ctx = await r.context({ dark: true })
    const page = await signedIn(ctx, b)
    await page.goto(r.url(`/console/bases/${b.corpusId}/chat`))
    await page.getByRole('group', { name: 'Strategy' }).waitFor()
    expect(await page.getByLabel('Cartridges (cart)').isChecked()).toBe(true)
    await ask(page, 'What is Haystack?')
    await page.getByRole('button', { name: 'Good answer' }).waitFor()

    await page.getByLabel('Retrieval (rag)').check()
    const [req] = await Promise.all([
      page.waitForRequest((q) => q.url().endsWith('/chat/stream')),
      ask(page, 'What can I build with it?'),
    ])
    const body = req.postDataJSON() as { strategy: string; history?: { role: string }[] }
    expect(body.strategy).toBe('rag')
    expect(body.history?.map((t) => t.role)).toEqual(['user', 'assistant'])
    await page.getByRole('button', { name: 'Good answer' }).nth(1).waitFor()
    expect(await page.locator('.strategy-badge').allTextContents()).toEqual(['cart', 'rag'])

    const [fb] = await Promise.all([
      page.waitForResponse((q) => q.url().endsWith(`/corpora/${b.corpusId}/feedback`)),
      page.getByRole('button', { name: 'Bad answer' }).nth(1).click(),
    ])
    expect(fb.status()).toBe(200)
    expect(fb.request().postDataJSON()).toMatchObject({
      rating: 'down',
      question: 'What can I build with it?',
      strategy: 'rag',
    })
    await page.getByText('Thanks: your rating was recorded.').waitFor()
    expect(await page.getByRole('button', { name: 'Bad answer' }).nth(1).getAttribute('aria-pressed')).toBe(
      'true',
    )
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'chat-strategy-feedback-dark')
    await ctx.close()
  })

  test('a question the base does not answer shows "not in this base", citing nothing (375 px wide)', async () => {
    const r = rig()
    const ctx = await r.context({ width: 375, height: 740 })
    const page = await signedIn(ctx, b)
    await page.goto(r.url(`/console/bases/${b.corpusId}/chat`))
    await page.getByRole('heading', { name: 'Chat' }).waitFor()
    const res = await ask(page, 'What is the capital of Mongolia?')
    const head = parseSse(await res.text()).find((e) => e.event === 'head')!.data as Head
    expect(head.answered).toBe(false)
    await page.getByText('Not in this base').waitFor()
    await page.getByRole('button', { name: 'Good answer' }).waitFor()
    // The closest passages are offered for what they are, not as citations.
    expect(await page.getByRole('button', { name: /^Source \d+:/ }).count()).toBe(0)
    await page.getByText('Closest passages (they do not answer the question)').click()
    expect(await page.getByRole('list', { name: 'Closest passages' }).getByRole('listitem').count()).toBe(
      head.sources.length,
    )
    // Nothing wider than the phone's screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'chat-declined-375')
    await ctx.close()
  })
  test('a base with nothing onboarded offers no question box, and an unknown base shows the API’s error', async () => {
    const r = rig()
    const created = await fetch(`${r.server.url}/v1/corpora`, {
      method: 'POST',
      headers: { authorization: b.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Empty base' }),
    })
    const empty = (await created.json()) as { id: string }
    const ctx = await r.context()
    const page = await signedIn(ctx, b)
    await page.goto(r.url(`/console/bases/${empty.id}/chat`))
    await page.getByText('This base is not ready for questions yet').waitFor()
    expect(await page.getByLabel('Question', { exact: true }).count()).toBe(0)
    expect(await seriousViolations(page)).toEqual([])
    await page.goto(r.url('/console/bases/cor_missing/compare'))
    const alert = page.getByRole('alert')
    await alert.waitFor()
    expect(await alert.textContent()).toBe('Document base not found.')
    await page.getByRole('button', { name: 'Try again' }).waitFor()
    await r.screenshot(page, 'chat-not-ready')
    await ctx.close()
  })
})

describe('console: chat with a model server that fails (not strict)', () => {
  const standin = startLlmStandin()
  standin.setMode('error500')
  const rig = consoleRig({
    ENGRAM_LLM_URL: standin.url,
    ENGRAM_LLM_MODEL: 'tiny',
    ENGRAM_LLM_TIMEOUT_MS: '2000',
  })
  let b: ConsoleBase
  beforeAll(async () => {
    b = await readyBaseOn(rig().server.url, FILES(), { email: 'cy@example.com' })
  }, 120_000)
  afterAll(() => standin.stop())

  test('the answer is the extractive one, and the page says so with the reason', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await signedIn(ctx, b)
    await page.goto(r.url(`/console/bases/${b.corpusId}/chat`))
    const res = await ask(page, 'What is Haystack?')
    const head = parseSse(await res.text()).find((e) => e.event === 'head')!.data as Head & {
      fallback?: string
    }
    expect(head.fallback).toBe('extractive')
    const note = page.getByRole('note')
    await note.waitFor()
    expect(await note.textContent()).toContain(
      'Answered without the model server: The model server answered 500.',
    )
    await page.getByRole('button', { name: 'Good answer' }).waitFor()
    expect(await page.getByRole('button', { name: /^Source 1:/ }).count()).toBeGreaterThan(0)
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'chat-fallback')
    await ctx.close()
  })
})

describe('console: chat while the model server is unavailable (strict: 503 with Retry-After)', () => {
  const standin = startLlmStandin(() => 'Haystack is an open source Python framework for search [1].')
  const rig = consoleRig({
    ENGRAM_LLM_URL: standin.url,
    ENGRAM_LLM_MODEL: 'tiny',
    ENGRAM_LLM_TIMEOUT_MS: '2000',
    ENGRAM_LLM_STRICT: 'true',
  })
  let b: ConsoleBase
  beforeAll(async () => {
    b = await readyBaseOn(rig().server.url, FILES(), { email: 'bea@example.com' })
  }, 120_000)
  afterAll(() => standin.stop())

  test('the 503 shows a countdown, not an error, and the question is asked again by itself', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await signedIn(ctx, b)
    await page.goto(r.url(`/console/bases/${b.corpusId}/chat`))
    await page.getByRole('heading', { name: 'Chat' }).waitFor()
    standin.setMode('error500')
    const refused = await ask(page, 'What is Haystack?')
    expect(refused.status()).toBe(503)
    expect(refused.headers()['retry-after']).toBe('5')
    const countdown = page.getByRole('status').filter({ hasText: 'Trying again in' })
    await countdown.waitFor()
    expect(await countdown.textContent()).toContain('The model server answered 500.')
    expect(await page.getByRole('alert').count()).toBe(0)
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'chat-retry-countdown')
    // The model server is back: the retry the countdown makes by itself is answered.
    standin.setMode('ok')
    const retried = await page.waitForResponse((q) => q.url().endsWith('/chat/stream'), { timeout: 15_000 })
    expect(retried.status()).toBe(200)
    await page.getByRole('button', { name: 'Good answer' }).waitFor()
    expect(await page.locator('.answer-text').last().textContent()).toContain(
      'Haystack is an open source Python framework for search',
    )
    expect(await countdown.count()).toBe(0)
    await r.screenshot(page, 'chat-retried')
    await ctx.close()
  })

  test('compare waits out the same 503 with its countdown and then shows both sides', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await signedIn(ctx, b)
    await page.goto(r.url(`/console/bases/${b.corpusId}/compare`))
    await page.getByRole('heading', { name: 'Compare', exact: true }).waitFor()
    standin.setMode('busy429')
    await page.getByLabel('Question', { exact: true }).fill('What is Haystack?')
    const [refused] = await Promise.all([
      page.waitForResponse((q) => q.url().includes('/compare?side=both')),
      page.getByRole('button', { name: 'Compare', exact: true }).click(),
    ])
    expect(refused.status()).toBe(503)
    const countdown = page.getByRole('status').filter({ hasText: 'Trying again in' })
    await countdown.waitFor()
    expect(await countdown.locator('.retry-seconds').textContent()).toMatch(/^[1-7]$/)
    standin.setMode('ok')
    // "Try now" does not wait for the end of the count.
    await page.getByRole('button', { name: 'Try now' }).click()
    await page.getByRole('region', { name: 'Retrieval (rag)' }).waitFor()
    expect(await countdown.count()).toBe(0)
    await ctx.close()
  })
})
