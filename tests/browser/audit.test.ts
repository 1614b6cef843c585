import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { consoleRig, seriousViolations } from '../helpers/browser'
import { type Account, addMember, registerAdmin, signInUi } from '../helpers/console-workspace'

const rig = consoleRig()
let admin: Account | undefined

/** The workspace's admin, registered through the API on first use. */
async function theAdmin(): Promise<Account> {
  admin ??= await registerAdmin(rig())
  return admin
}

/** A call to the API as `who`, from this process; the answer's JSON. */
async function api<T>(who: Account, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${rig().server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${who.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return (text ? JSON.parse(text) : null) as T
}

describe('console: audit log', () => {
  test('the log lists, filters and pages by cursor; exports CSV and JSON Lines; verifies the chain; shows deletion receipts', async () => {
    const r = rig()
    const admin = await theAdmin()
    // 30 keys made and revoked: 60 api_key rows, more than a page of 50.
    for (let i = 0; i < 30; i++) {
      const k = await api<{ id: string }>(admin, 'POST', '/v1/api-keys', {
        name: `key ${i}`,
        scopes: ['query'],
        expires_at: null,
        corpus_ids: null,
      })
      await api(admin, 'DELETE', `/v1/api-keys/${k.id}`)
    }
    const base = await api<{ id: string }>(admin, 'POST', '/v1/corpora', { name: 'Gone base' })
    await api(admin, 'DELETE', `/v1/corpora/${base.id}`)

    const ctx = await r.context()
    const page = await ctx.newPage()
    await signInUi(page, r, admin, '/console/audit')
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor()
    const table = page.getByRole('table', { name: /Audit log/ })
    await table.waitFor()
    // Newest first: this sign-in, then the base's deletion; a page is 50 rows, with more to load.
    const rows = table.locator('tbody tr')
    expect(await rows.count()).toBe(50)
    expect(await rows.first().textContent()).toContain('auth.sign_in')
    expect(await rows.first().textContent()).toContain('127.0.0.1')
    expect(await rows.nth(1).textContent()).toContain('corpus.deleted')
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'audit-log')

    await page.getByRole('button', { name: 'Load more' }).click()
    await page.getByText(/rows, all shown/).waitFor()
    const total = await rows.count()
    expect(total).toBeGreaterThan(60)
    // The rows are the chain's, each once: their places count down without a gap.
    const seqs = await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-seq'))))
    expect(new Set(seqs).size).toBe(total)
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a))

    // A family filter keeps the revocations alone.
    await page.getByLabel('Action').fill('api_key.revoked')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await page.getByText('30 rows, all shown.').waitFor()
    for (const text of await rows.allTextContents()) expect(text).toContain('api_key.revoked')

    // The export is the filtered rows as a file, oldest first with their hashes.
    const [csv] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ])
    expect(csv.suggestedFilename()).toMatch(/\.csv$/)
    const csvText = readFileSync((await csv.path())!, 'utf8')
    const csvLines = csvText.trim().split(/\r?\n/)
    expect(csvLines[0]).toContain('hash')
    expect(csvLines).toHaveLength(31)
    expect(csvLines.slice(1).every((l) => l.includes('api_key.revoked'))).toBe(true)
    const [jsonl] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export JSON Lines' }).click(),
    ])
    expect(jsonl.suggestedFilename()).toMatch(/\.jsonl$/)
    const lines = readFileSync((await jsonl.path())!, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { action: string; seq: number; hash: string })
    expect(lines).toHaveLength(30)
    expect(lines.every((l) => l.action === 'api_key.revoked' && l.hash.length === 64)).toBe(true)
    expect(lines[0]!.seq).toBeLessThan(lines[29]!.seq)

    // Clearing the filters shows the exports' own rows at the top.
    await page.getByRole('button', { name: 'Clear' }).click()
    await table.locator('tbody tr').first().getByText('audit.exported').waitFor()

    await page.getByRole('button', { name: 'Verify the log' }).click()
    const verdict = page.getByRole('status').filter({ hasText: 'The chain holds.' })
    await verdict.waitFor()
    const verify = await api<{ ok: boolean; checked: number }>(admin, 'GET', '/v1/audit/verify')
    expect(verify.ok).toBe(true)
    expect(await verdict.textContent()).toMatch(/\d+ rows checked/)

    // The deletion receipts: the base alone, with its facts.
    await page.getByRole('tab', { name: 'Deletion receipts' }).click()
    const receipts = page.getByRole('table', { name: /Deletion receipts/ })
    await receipts.waitFor()
    expect(await receipts.locator('tbody tr').count()).toBe(1)
    expect(await receipts.locator('tbody tr').textContent()).toContain('Gone base')
    await page.getByText('1 row, all shown.').waitFor()
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'audit-deletions')
    await ctx.close()
  }, 120_000)

  test('filters that keep no row say so, in both tabs', async () => {
    const r = rig()
    const admin = await theAdmin()
    const ctx = await r.context()
    const page = await ctx.newPage()
    await signInUi(page, r, admin, '/console/audit')
    await page.getByRole('table', { name: /Audit log/ }).waitFor()
    await page.getByLabel('Target').fill('no_such_target')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await page.getByText('No rows').waitFor()
    await page.getByRole('tab', { name: 'Deletion receipts' }).click()
    await page.getByText('No rows').waitFor()
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'audit-empty')
    await ctx.close()
  }, 60_000)

  test('a member sees neither Audit log nor Security, and opening them says they are for admins', async () => {
    const r = rig()
    const member = await addMember(r, await theAdmin())
    const ctx = await r.context()
    const page = await ctx.newPage()
    await signInUi(page, r, member, '/console/audit')
    const nav = page.getByRole('navigation', { name: 'Sections' })
    expect(await nav.getByRole('link', { name: 'Audit log' }).count()).toBe(0)
    expect(await nav.getByRole('link', { name: 'Security' }).count()).toBe(0)
    await page.getByText('This page is for workspace admins.').waitFor()
    expect(await page.getByRole('table').count()).toBe(0)
    await page.goto(r.url('/console/security'))
    await page.getByText('This page is for workspace admins.').waitFor()
    expect(await page.getByText('Your address:').count()).toBe(0)
    await ctx.close()
  }, 60_000)

  test('at 375 px the Audit log and Security pages fit the screen; the table scrolls inside its box', async () => {
    const r = rig()
    const ctx = await r.context({ width: 375, height: 800 })
    const page = await ctx.newPage()
    await signInUi(page, r, await theAdmin(), '/console/audit')
    await page.getByRole('table', { name: /Audit log/ }).waitFor()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
    await r.screenshot(page, 'audit-375', { fullPage: false })
    await page.goto(r.url('/console/security'))
    await page.getByText('Your address:').waitFor()
    await page.getByText('Not set: objects are stored plain').waitFor()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
    await r.screenshot(page, 'security-375')
    await ctx.close()
  }, 60_000)

  test('a broken chain is said plainly: the rows checked, the first broken row and why', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await ctx.newPage()
    // The server's verdict on a tampered log (tests/api/audit-chain.test.ts makes one for real).
    await page.route('**/v1/audit/verify', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({
          ok: false,
          checked: 3,
          first_broken: { id: 'aud_tampered', seq: 3, reason: 'hash_mismatch' },
          head: { seq: 2, hash: 'ab'.repeat(32) },
        }),
      }),
    )
    await signInUi(page, r, await theAdmin(), '/console/audit')
    await page.getByRole('button', { name: 'Verify the log' }).click()
    const verdict = page.getByRole('status').filter({ hasText: 'The chain is broken.' })
    await verdict.waitFor()
    expect(await verdict.textContent()).toBe(
      'The chain is broken. 3 rows checked; the first broken row is row 3 (aud_tampered): its contents do not match its hash (the row was altered).',
    )
    expect(await verdict.getAttribute('class')).toContain('alert-error')
    expect(await seriousViolations(page)).toEqual([])
    await ctx.close()
  }, 60_000)
})
