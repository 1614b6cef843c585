import { beforeAll, describe, expect, test } from 'bun:test'
import type { BrowserContext, Page } from 'playwright-core'
import { consoleRig, seriousViolations } from '../helpers/browser'
import { type ConsoleBase, fixtureFile, readyBaseOn } from '../helpers/console-base'
import { lastAnswerPlace } from '../helpers/console-steps'

// Issue 34, "the chat behaves like a chat": the page brings each new answer into view, the
// conversation is still there after leaving the page, past conversations can be reopened, and the
// strategy choice says what each strategy does.

const FILES = () => [
  fixtureFile('md/deepset-ai_haystack__sample.md', 'text/markdown'),
  fixtureFile('html/deepset-ai_haystack__what_is_haystack.html', 'text/html'),
  fixtureFile('html/deepset-ai_haystack__paul_graham_superlinear.html', 'text/html'),
]

async function signedIn(ctx: BrowserContext, b: ConsoleBase): Promise<Page> {
  await ctx.addInitScript((s) => sessionStorage.setItem('engram.session', JSON.stringify(s)), {
    token: b.token,
    expiresAt: b.expiresAt,
  })
  return ctx.newPage()
}

/** Asks `question` and waits until its answer is whole (its rating buttons show). */
async function askAndWait(page: Page, question: string, nth: number) {
  await page.getByLabel('Question', { exact: true }).fill(question)
  await page.getByRole('button', { name: 'Ask' }).click()
  await page.getByRole('button', { name: 'Good answer' }).nth(nth).waitFor()
}

describe('console: a chat that behaves like one', () => {
  const rig = consoleRig()
  let b: ConsoleBase
  beforeAll(async () => {
    b = await readyBaseOn(rig().server.url, FILES())
  }, 120_000)

  test('each new answer is brought into view, above the question box, and not under it', async () => {
    const r = rig()
    const ctx = await r.context({ width: 1280, height: 800 })
    const page = await signedIn(ctx, b)
    await page.goto(r.url(`/console/bases/${b.corpusId}/chat`))
    await page.getByText('Ask the first question').waitFor()
    const questions = ['What is Haystack?', 'What can I build with Haystack?', 'What is superlinear return?']
    for (const [i, q] of questions.entries()) {
      await askAndWait(page, q, i)
      const at = await lastAnswerPlace(page)
      // The answer's words start in the viewport and are not under the question box.
      expect(at.top).toBeGreaterThanOrEqual(0)
      expect(at.wordsTop).toBeGreaterThanOrEqual(0)
      expect(at.wordsBottom).toBeLessThanOrEqual(Math.min(at.viewport, at.composerTop))
    }
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'chat-answer-in-view', { fullPage: false })
    await page.screenshot({ path: '/tmp/chat-answer-in-view.png' })
    await ctx.close()
  }, 60_000)

  test('the conversation is still there after leaving the page and coming back, or reloading', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await signedIn(ctx, b)
    await page.goto(r.url(`/console/bases/${b.corpusId}/chat`))
    await askAndWait(page, 'What is Haystack?', 0)
    const answer = await page.locator('.answer-text').last().textContent()
    // Away to the documents, and back through the base's Chat link.
    await page.getByRole('link', { name: 'Documents', exact: true }).click()
    await page.waitForURL(`**/console/bases/${b.corpusId}`)
    await page.getByRole('link', { name: 'Chat' }).first().click()
    await page.waitForURL('**/chat')
    await page.getByRole('article', { name: 'Question: What is Haystack?' }).waitFor()
    expect(await page.locator('.answer-text').last().textContent()).toBe(answer)
    expect(await page.getByRole('button', { name: 'Good answer' }).count()).toBe(1)
    // A follow-up still carries it.
    await page.getByLabel('Question', { exact: true }).fill('What can I build with it?')
    const [req] = await Promise.all([
      page.waitForRequest((q) => q.url().endsWith('/chat/stream')),
      page.getByRole('button', { name: 'Ask' }).click(),
    ])
    expect((req.postDataJSON() as { history?: unknown[] }).history).toHaveLength(2)
    await page.getByRole('button', { name: 'Good answer' }).nth(1).waitFor()
    await page.reload()
    await page.getByRole('article', { name: 'Question: What can I build with it?' }).waitFor()
    expect(await page.locator('article.exchange').count()).toBe(2)
    // Nothing of the session is kept with it.
    const kept = await page.evaluate(() => JSON.stringify({ ...localStorage }))
    expect(kept).toContain('What can I build with it?')
    expect(kept).not.toContain(b.token)
    await ctx.close()
  }, 60_000)

  test('a new conversation keeps the last one in the list; it can be reopened, deleted, and all cleared', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await signedIn(ctx, b)
    await page.goto(r.url(`/console/bases/${b.corpusId}/chat`))
    await page.getByText('Ask the first question').waitFor()
    await askAndWait(page, 'What is superlinear return?', 0)
    // The very first conversation, on screen, is not a past one: none is counted or listed.
    const history = page.locator('details.chat-history')
    const count = history.locator('summary .badge')
    expect(await count.textContent()).toBe('0')
    await history.locator('summary').click()
    await history.getByText('None yet. The conversation on screen is kept').waitFor()
    expect(await history.getByRole('list', { name: 'Past conversations' }).count()).toBe(0)
    await history.locator('summary').click()
    await page.getByRole('button', { name: 'Bad answer' }).click()
    await page.getByText('Thanks: your rating was recorded.').waitFor()
    await page.getByRole('button', { name: 'New conversation' }).click()
    await page.getByText('Ask the first question').waitFor()
    await askAndWait(page, 'What is Haystack?', 0)

    // The one before is past; the one on screen is not listed.
    expect(await count.textContent()).toBe('1')
    await page.getByText('Past conversations').click()
    const list = page.getByRole('list', { name: 'Past conversations' })
    await list.waitFor()
    const titles = async () =>
      (await list.getByRole('listitem').getByRole('button').allTextContents()).filter((t) => t !== 'Delete')
    expect(await titles()).toEqual(['What is superlinear return?'])
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'chat-past-conversations')

    // Reopened: the earlier exchange, its answer and its rating are back, and it can go on; the
    // one it replaced on screen is now the past one.
    await list.getByRole('button', { name: 'What is superlinear return?', exact: true }).click()
    await page.getByRole('article', { name: 'Question: What is superlinear return?' }).waitFor()
    expect(await page.locator('article.exchange').count()).toBe(1)
    expect(await page.getByRole('button', { name: 'Bad answer' }).getAttribute('aria-pressed')).toBe('true')
    expect(await titles()).toEqual(['What is Haystack?'])
    await askAndWait(page, 'Why does it matter?', 1)
    expect(await page.locator('article.exchange').count()).toBe(2)

    // Deleting a past one leaves the one on screen; a new conversation makes it past again.
    await list.getByRole('button', { name: 'Delete the conversation “What is Haystack?”' }).click()
    await history.getByText('None yet. The conversation on screen is kept').waitFor()
    expect(await count.textContent()).toBe('0')
    expect(await page.locator('article.exchange').count()).toBe(2)
    await page.getByRole('button', { name: 'New conversation' }).click()
    await page.getByText('Ask the first question').waitFor()
    expect(await titles()).toEqual(['What is superlinear return?'])
    await page.getByRole('button', { name: 'Clear all' }).click()
    const confirm = page.getByRole('dialog')
    await confirm.getByRole('button', { name: 'Clear all' }).click()
    await page.getByText('None yet.').waitFor()
    expect(
      await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('engram.chats'))),
    ).toEqual([])
    await ctx.close()
  }, 60_000)

  test('the strategy choice says in one line what each strategy does', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await signedIn(ctx, b)
    await page.goto(r.url(`/console/bases/${b.corpusId}/chat`))
    const cart = page.getByRole('radio', { name: 'Cartridges (cart)' })
    const rag = page.getByRole('radio', { name: 'Retrieval (rag)' })
    await cart.waitFor()
    const described = async (radio: typeof cart) => {
      const id = (await radio.getAttribute('aria-describedby')) ?? ''
      return (await page.locator(`[id="${id}"]`).textContent())?.trim() ?? ''
    }
    expect(await described(cart)).toContain('compiled cartridges')
    expect(await described(rag)).toContain('full-text index')
    for (const line of [await described(cart), await described(rag)])
      expect(line.split(/[.:] /).length).toBeLessThan(4)
    await ctx.close()
  }, 60_000)
})
