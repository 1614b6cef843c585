/**
 * Sources can be read (issue 34): a citation's dialog names the page and section of its passage
 * (not internal ids or scores) and opens the document viewer at the passage, highlighted and in
 * view, on its PDF page; the viewer's address survives a reload; the original file downloads
 * byte for byte.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { consoleRig, seriousViolations } from '../helpers/browser'
import { type ConsoleBase, fixtureFile, readyBaseOn } from '../helpers/console-base'
import { askInChat, inViewport } from '../helpers/console-steps'

const PDF = 'pdf/Unstructured-IO_unstructured__layout-parser-paper-fast.pdf'
const PDF_NAME = 'Unstructured-IO_unstructured__layout-parser-paper-fast.pdf'
// Answered on the paper's second page ("Existing models are developed using distinct frameworks
// like TensorFlow [1] or PyTorch [24]").
const QUESTION = 'Which frameworks are existing models developed using?'
// 14 pages, 83,000 characters of text in six sections: more than the viewer reads at once.
const LONG = 'pdf/mozilla_pdf.js__tracemonkey.pdf'

async function signedIn(ctx: BrowserContext, b: ConsoleBase): Promise<Page> {
  await ctx.addInitScript((s) => sessionStorage.setItem('engram.session', JSON.stringify(s)), {
    token: b.token,
    expiresAt: b.expiresAt,
  })
  return ctx.newPage()
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim()

describe('console: reading a cited document', () => {
  const rig = consoleRig()
  let b: ConsoleBase
  beforeAll(async () => {
    b = await readyBaseOn(
      rig().server.url,
      [fixtureFile(PDF, 'application/pdf'), fixtureFile(LONG, 'application/pdf')],
      { name: 'Papers' },
    )
  }, 120_000)
  let ctx: BrowserContext
  afterAll(async () => ctx?.close())

  test('the citation dialog shows page and passage, no ids or scores, and opens the viewer at the passage', async () => {
    const r = rig()
    ctx = await r.context({ height: 700 })
    const page = await signedIn(ctx, b)
    await page.goto(r.url(`/console/bases/${b.corpusId}/chat`))
    await page.getByRole('heading', { name: 'Chat' }).waitFor()
    const sources = await askInChat(page, QUESTION)
    const first = sources[0]!
    expect(first.page).toBe(2)
    expect(first.start).not.toBeNull()

    await page
      .getByRole('button', { name: /^Source 1:/ })
      .first()
      .click()
    const dialog = page.getByRole('dialog')
    await dialog.waitFor()
    const shown = (await dialog.textContent()) ?? ''
    expect(shown).toContain('Page 2')
    expect(squash((await dialog.getByLabel('Passage').textContent()) ?? '')).toBe(squash(first.snippet))
    // Nothing internal: no passage or document id, no raw score.
    expect(shown).not.toContain(first.id)
    expect(shown).not.toContain(first.document_id)
    expect(shown).not.toMatch(/score/i)
    expect(shown).not.toContain(first.score.toFixed(2))
    expect(await seriousViolations(page)).toEqual([])
    await page.screenshot({ path: '/tmp/viewer/citation-dialog.png' })
    await r.screenshot(page, 'citation-dialog')

    await dialog.getByRole('link', { name: 'Open in document' }).click()
    await page.waitForURL(/\/documents\/[^/?]+\?at=\d+-\d+$/)
    const mark = page.locator('mark.cited').first()
    await mark.waitFor()
    expect(new URL(page.url()).search).toBe(`?at=${first.start}-${first.end}`)
    expect(squash((await page.locator('mark.cited').allTextContents()).join(''))).toBe(squash(first.snippet))
    expect(await inViewport(page, 'mark.cited')).toBe(true)
    expect(await page.getByText('The cited passage is on page 2').count()).toBe(1)
    // The passage sits under page 2's marker: the last marker before it names page 2.
    const pageOfMark = await page.$eval('mark.cited', (m) => {
      const markers = [...document.querySelectorAll('.page-marker')]
      const before = markers.filter((p) => p.compareDocumentPosition(m) & Node.DOCUMENT_POSITION_FOLLOWING)
      return before.at(-1)?.getAttribute('data-page')
    })
    expect(pageOfMark).toBe('2')
    expect(await seriousViolations(page)).toEqual([])
    await page.screenshot({ path: '/tmp/viewer/viewer.png' })
    await r.screenshot(page, 'document-viewer', { fullPage: false })

    // The address is the place: a reload opens the same passage, highlighted and in view.
    await page.reload()
    await page.locator('mark.cited').first().waitFor()
    expect(await inViewport(page, 'mark.cited')).toBe(true)

    // The original, byte for byte, under the server's name.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download original' }).click(),
    ])
    expect(download.suggestedFilename()).toBe(PDF_NAME)
    const saved = readFileSync((await download.path())!)
    const original = readFileSync(resolve(import.meta.dir, '../fixtures/data/docs', PDF))
    expect(saved.length).toBe(original.length)
    expect(createHash('sha256').update(saved).digest('hex')).toBe(
      createHash('sha256').update(original).digest('hex'),
    )
  }, 120_000)

  test('a shared viewer address opens a long document around its place; more text loads above and below; the outline moves', async () => {
    const r = rig()
    const api = async <T>(path: string): Promise<T> => {
      const res = await fetch(`${r.server.url}/v1/corpora/${b.corpusId}${path}`, {
        headers: { authorization: b.authorization },
      })
      expect(res.status).toBe(200)
      return (await res.json()) as T
    }
    const docs = await api<{ items: { id: string; filename: string }[] }>('/documents')
    const id = docs.items.find((d) => d.filename.endsWith('tracemonkey.pdf'))!.id
    const whole = await api<{
      text: string
      pages: { number: number; start: number; end: number }[]
      sections: { title: string | null; start: number }[]
    }>(`/documents/${id}/text`)
    const section = whole.sections.find((s) => s.title === '6.6 Correctness')!
    const at = { start: section.start, end: section.start + 400 }

    const page = await signedIn(await r.context(), b)
    await page.goto(r.url(`/console/bases/${b.corpusId}/documents/${id}?at=${at.start}-${at.end}`))
    await page.locator('mark.cited').first().waitFor()
    expect(await inViewport(page, 'mark.cited')).toBe(true)
    expect(squash((await page.locator('mark.cited').allTextContents()).join(''))).toBe(
      squash(whole.text.slice(at.start, at.end)),
    )
    // The section's heading is the text's own first line, shown once, as a heading.
    expect(await page.getByRole('heading', { name: '6.6 Correctness' }).count()).toBe(1)
    expect(await page.getByText('6.6 Correctness').count()).toBe(2) // the heading and the outline
    expect(await page.getByText('The cited passage is on page 10').count()).toBe(1)

    // Only a window around the place was read: more loads above and below until the whole text.
    const shown = () =>
      page.$$eval(
        '.doc-text > span:not(.doc-anchor), .doc-text > mark, .doc-section > span, .doc-section > mark',
        (els) => els.map((e) => e.textContent ?? '').join(''),
      )
    expect((await shown()).length).toBeLessThan(whole.text.length)
    while ((await page.getByRole('button', { name: 'Load earlier text' }).count()) > 0) {
      await page.getByRole('button', { name: 'Load earlier text' }).click()
      await page.waitForFunction(() => !document.querySelector('.doc-body button[aria-busy="true"]'))
    }
    while ((await page.getByRole('button', { name: 'Load more text' }).count()) > 0) {
      await page.getByRole('button', { name: 'Load more text' }).click()
      await page.waitForFunction(() => !document.querySelector('.doc-body button[aria-busy="true"]'))
    }
    expect(await shown()).toBe(whole.text)
    expect(await page.locator('.page-marker').count()).toBe(whole.pages.length)

    // The outline: a page picked is shown at its marker, and the address names the place.
    await page.getByLabel('Page', { exact: true }).fill('13')
    await page.getByRole('button', { name: 'Go' }).click()
    const p13 = whole.pages.find((p) => p.number === 13)!
    await page.waitForURL((u) => u.search === `?at=${p13.start}-${p13.start}`)
    await page.waitForFunction(() => {
      const r = document.querySelector('#page-13')?.getBoundingClientRect()
      return r && r.top >= 0 && r.top < innerHeight
    })
    await page
      .getByRole('navigation', { name: 'Outline' })
      .getByRole('button', { name: '3. Trace Trees' })
      .click()
    await page.waitForFunction(() => {
      const h = [...document.querySelectorAll('h2.doc-section')].find(
        (e) => e.textContent?.trim() === '3. Trace Trees',
      )
      const r = h?.getBoundingClientRect()
      return r && r.top >= 0 && r.top < innerHeight
    })
    expect(await seriousViolations(page)).toEqual([])
    await page.screenshot({ path: '/tmp/viewer/viewer-long.png' })
    await r.screenshot(page, 'document-viewer-long', { fullPage: false })
  }, 120_000)
})
