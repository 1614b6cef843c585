/**
 * Steps of the console that more than one browser test takes the same way: asking in the chat
 * (and reading the stream's sources), where the newest answer sits on screen, whether an element
 * is in the viewport, and a clipboard API that refuses to write.
 */
import { basename } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { parseSse } from '../../src/platform/http/sse'

/** A source of an answer, as the chat stream's `head` event lists it. */
export interface StreamSource {
  id: string
  document_id: string
  filename: string
  snippet: string
  score: number
  page: number | null
  start: number | null
  end: number | null
}

/** Asks in the chat and answers the stream's `head` sources once the answer is whole. */
export async function askInChat(page: Page, question: string): Promise<StreamSource[]> {
  await page.getByLabel('Question', { exact: true }).fill(question)
  const [res] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/chat/stream') && r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Ask', exact: true }).click(),
  ])
  const events = parseSse(await res.text())
  await page.getByRole('button', { name: 'Good answer' }).last().waitFor()
  return (events.find((e) => e.event === 'head')!.data as { sources: StreamSource[] }).sources
}

/**
 * Where the newest answer is: its box, the viewport's height, and the top of the question box
 * that stays at the bottom of a wide screen (an answer under it is hidden).
 */
export async function lastAnswerPlace(page: Page) {
  // The page scrolls smoothly where the visitor allows motion: wait for it to come to rest.
  await page.waitForFunction(
    () => {
      const w = window as unknown as { lastY?: number }
      const still = w.lastY === window.scrollY
      w.lastY = window.scrollY
      return still
    },
    undefined,
    { polling: 150 },
  )
  return page.evaluate(() => {
    const answers = document.querySelectorAll('.bubble-answer')
    const box = answers[answers.length - 1]!.getBoundingClientRect()
    const text = document.querySelectorAll('.answer-text')
    const words = text[text.length - 1]!.getBoundingClientRect()
    const composer = document.querySelector('.composer')!.getBoundingClientRect()
    return {
      top: box.top,
      bottom: box.bottom,
      wordsTop: words.top,
      wordsBottom: words.bottom,
      viewport: window.innerHeight,
      composerTop: composer.top,
    }
  })
}

/**
 * Whether the element comes to be wholly or partly inside the viewport within `timeoutMs`. The
 * viewer scrolls to a passage in an effect after the render that shows it, so the element can be
 * in the page a moment before it is in view: a test waits for that moment rather than reading once.
 */
export async function inViewport(page: Page, selector: string, timeoutMs = 5_000): Promise<boolean> {
  return page
    .waitForFunction(
      (sel) => {
        const r = document.querySelector(sel)?.getBoundingClientRect()
        return !!r && r.bottom > 0 && r.top < innerHeight && r.height > 0
      },
      selector,
      { timeout: timeoutMs },
    )
    .then(
      () => true,
      () => false,
    )
}

/**
 * Makes the clipboard API refuse, as a browser does on a plain-HTTP origin or without permission
 * (`commandToo`: the older copy command fails as well). What the copy command copies is kept in
 * `window.copied`.
 */
export async function refuseClipboard(ctx: BrowserContext, opts: { commandToo?: boolean } = {}) {
  await ctx.addInitScript((commandToo) => {
    const w = window as unknown as { copied: string[] }
    w.copied = []
    if (navigator.clipboard) {
      navigator.clipboard.writeText = () =>
        Promise.reject(new DOMException('Write permission denied.', 'NotAllowedError'))
    }
    if (commandToo) document.execCommand = () => false
    // What the copy command copies: the selection of the focused text field.
    document.addEventListener(
      'copy',
      () => {
        const el = document.activeElement as HTMLTextAreaElement | null
        if (el && 'value' in el) w.copied.push(el.value.slice(el.selectionStart, el.selectionEnd))
      },
      true,
    )
  }, opts.commandToo ?? false)
}

/** Uploads `paths` through a base page's file input and waits until each is done. */
export async function uploadUi(page: Page, paths: string[]): Promise<void> {
  await page.getByLabel('Files to upload').setInputFiles(paths)
  for (const p of paths)
    await page
      .locator(`li.upload-item[data-path="${basename(p)}"] .upload-state`, { hasText: /^Done/ })
      .waitFor()
}

/** A base page's counter `label` (Documents, Ready, Waiting, Onboarding, Last synced, ...). */
export const baseCounter = (page: Page, label: string) =>
  page.locator('.base-counters > div', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) })
