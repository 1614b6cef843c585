import { beforeAll, describe, expect, test } from 'bun:test'
import type { BrowserContext, Page } from 'playwright-core'
import { consoleRig, seriousViolations } from '../helpers/browser'
import { type ConsoleBase, fixtureFile, readyBaseOn } from '../helpers/console-base'

// The scale test is kept small: three queries a strategy at each level.
const rig = consoleRig({ ENGRAM_SCALE_TEST_MAX_REQUESTS_PER_LEVEL: '3', ENGRAM_SCALE_TEST_MAX_SECONDS: '20' })
let b: ConsoleBase
beforeAll(async () => {
  b = await readyBaseOn(rig().server.url, [
    fixtureFile('md/deepset-ai_haystack__sample.md', 'text/markdown'),
    fixtureFile('html/deepset-ai_haystack__what_is_haystack.html', 'text/html'),
  ])
}, 120_000)

async function comparePage(ctx: BrowserContext): Promise<Page> {
  await ctx.addInitScript((s) => sessionStorage.setItem('engram.session', JSON.stringify(s)), {
    token: b.token,
    expiresAt: b.expiresAt,
  })
  const page = await ctx.newPage()
  await page.goto(rig().url(`/console/bases/${b.corpusId}/compare`))
  await page.getByRole('heading', { name: 'Compare', exact: true }).waitFor()
  return page
}

describe('console: compare the strategies on a ready base', () => {
  test('one question goes through both strategies, side by side with latency, time to first token and cost', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await comparePage(ctx)
    await page.getByLabel('Question', { exact: true }).fill('What is Haystack?')
    const [res] = await Promise.all([
      page.waitForResponse((q) => q.url().includes('/compare?side=both')),
      page.getByRole('button', { name: 'Compare', exact: true }).click(),
    ])
    expect(res.status()).toBe(200)
    for (const side of ['Cartridges (cart)', 'Retrieval (rag)']) {
      const region = page.getByRole('region', { name: side })
      await region.waitFor()
      const figures = await region.locator('dl.figures > div').allInnerTexts()
      const value = (name: string) => figures.find((f) => f.startsWith(name))?.split('\n')[1] ?? ''
      expect(value('Latency')).toMatch(/^\d+(\.\d+)? (ms|s)$/)
      expect(value('Time to first token')).toMatch(/^\d+(\.\d+)? (ms|s)$/)
      expect(value('Cost per query')).toMatch(/^\$\d/)
      expect(await region.getByRole('list').getByRole('listitem').count()).toBeGreaterThan(0)
    }
    await page.getByText(/^Against rag, cart/).waitFor()
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'compare-question')
    await ctx.close()
  })

  test('a short scale test draws each level as it comes, and the run is saved and listed', async () => {
    const r = rig()
    const ctx = await r.context({ dark: true })
    const page = await comparePage(ctx)
    await page.getByText('No saved runs yet').waitFor()
    await page.getByLabel('Highest concurrency').fill('2')
    const [req] = await Promise.all([
      page.waitForRequest((q) => q.url().endsWith('/scale-test/stream')),
      page.getByRole('button', { name: 'Run scale test' }).click(),
    ])
    expect(req.postDataJSON()).toEqual({ max_concurrency: 2 })
    await page.getByText('Done: 2 levels measured').waitFor({ timeout: 60_000 })
    const levels = page.getByRole('table', { name: 'Scale test levels' })
    const rows = await levels.locator('tbody tr th').allTextContents()
    expect(rows).toEqual(['2', '1'])
    // uPlot draws each chart on a canvas, named for screen readers.
    expect(await page.getByRole('img', { name: 'Queries per second by concurrency' }).count()).toBe(1)
    expect(await page.getByRole('img', { name: 'Latency by concurrency (ms)' }).count()).toBe(1)
    const size = await page
      .locator('.chart canvas')
      .first()
      .evaluate((c) => [(c as HTMLCanvasElement).width, (c as HTMLCanvasElement).height])
    expect(size[0]).toBeGreaterThan(100)
    expect(size[1]).toBeGreaterThan(100)

    await page.getByLabel('Note (optional)').fill('console test run')
    const [saved] = await Promise.all([
      page.waitForResponse((q) => q.url().endsWith('/scale-runs') && q.request().method() === 'POST'),
      page.getByRole('button', { name: 'Save this run' }).click(),
    ])
    expect(saved.status()).toBe(200)
    await page.getByText('Run saved').waitFor()
    const list = page.getByRole('table', { name: 'Saved runs' })
    await list.getByText('console test run').waitFor()
    expect(await list.locator('tbody tr').count()).toBe(1)
    expect(await list.locator('tbody tr td').nth(2).textContent()).toBe('2, 1')
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'compare-scale-test-dark')
    await ctx.close()
  })

  test('the economics slider asks again for the new volume and the figures and break-even follow', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await comparePage(ctx)
    const month = page.getByTestId('month-cart')
    await month.waitFor()
    const before = await month.textContent()
    const breakevenBefore = await page.locator('.breakeven').textContent()
    expect(breakevenBefore).toContain('100,000 queries a month')
    const slider = page.getByRole('slider', { name: 'Queries per month' })
    const [res] = await Promise.all([
      page.waitForResponse((q) => q.url().includes('/economics?queries_per_month=10000000')),
      slider.fill('7'),
    ])
    expect(res.status()).toBe(200)
    await page.waitForFunction(
      (old) => document.querySelector('[data-testid="month-cart"]')?.textContent !== old,
      before,
    )
    expect(await page.locator('.breakeven').textContent()).toContain('10,000,000 queries a month')
    expect(await slider.getAttribute('aria-valuetext')).toBe('10,000,000 queries per month')
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'compare-economics')
    await ctx.close()
  })
})
