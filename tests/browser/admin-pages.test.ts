import { beforeAll, describe, expect, test } from 'bun:test'
import { inspectorAskCommand, inspectorListCommand } from '../../web/src/lib/mcp-commands'
import { type ConsoleRig, consoleRig, seriousViolations } from '../helpers/browser'
import { type Account, addMember, registerAdmin, signInUi } from '../helpers/console-workspace'

const rig = consoleRig()
let admin: Account
let member: Account
let baseId = ''
const QUESTIONS = ['Where is the lighthouse?', 'Who keeps the lighthouse?', 'When was it built?']

const NOTES = `# The lighthouse

The lighthouse stands on Kestrel Point, north of the harbour. It was built in 1871 and is kept by
Mara Quill, who climbs its 112 steps every evening to light the lamp.
`

function bearer(token: string) {
  return { authorization: `Bearer ${token}` }
}

/** Polls the base until it is onboarded (the state the test needs, not a fixed delay). */
async function baseReady(r: ConsoleRig, token: string, id: string): Promise<void> {
  const deadline = Date.now() + 60_000
  for (;;) {
    const res = await fetch(`${r.server.url}/v1/corpora/${id}`, { headers: bearer(token) })
    const base = (await res.json()) as { status: string }
    if (base.status === 'ready') return
    if (base.status === 'failed' || Date.now() > deadline) throw new Error(`the base is ${base.status}`)
    await Bun.sleep(50)
  }
}

beforeAll(async () => {
  const r = rig()
  admin = await registerAdmin(r)
  member = await addMember(r, admin)
  // A base with one small document, onboarded, and a few questions asked: usage has something to chart.
  const created = await fetch(`${r.server.url}/v1/corpora`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(admin.token) },
    body: JSON.stringify({ name: 'Harbour notes' }),
  })
  baseId = ((await created.json()) as { id: string }).id
  const form = new FormData()
  form.append('files', new File([NOTES], 'lighthouse.md', { type: 'text/markdown' }))
  const uploaded = await fetch(`${r.server.url}/v1/corpora/${baseId}/documents`, {
    method: 'POST',
    headers: bearer(admin.token),
    body: form,
  })
  expect(uploaded.status).toBe(200)
  const train = await fetch(`${r.server.url}/v1/corpora/${baseId}/train`, {
    method: 'POST',
    headers: bearer(admin.token),
  })
  expect(train.status).toBe(200)
  await baseReady(r, admin.token, baseId)
  for (const question of QUESTIONS) {
    const res = await fetch(`${r.server.url}/v1/corpora/${baseId}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(admin.token) },
      body: JSON.stringify({ question }),
    })
    expect(`${res.status} ${await res.text()}`).toStartWith('200 ')
  }
  // One answer rated helpful: the usage page shows the feedback given.
  const rated = await fetch(`${r.server.url}/corpora/${baseId}/feedback`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(admin.token) },
    body: JSON.stringify({ rating: 'up', question: QUESTIONS[0] }),
  })
  expect(rated.status).toBe(200)
}, 120_000)

describe('console: usage, status and MCP pages', () => {
  test('usage shows the totals, the daily questions as a chart, and each base, in light and dark', async () => {
    const r = rig()
    for (const dark of [false, true]) {
      const ctx = await r.context({ dark })
      const page = await ctx.newPage()
      const blocked: string[] = []
      page.on('console', (m) => {
        if (m.type() === 'error') blocked.push(m.text())
      })
      await signInUi(page, r, admin, '/console/usage')
      await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor()
      const tile = page.locator('.tile', { hasText: 'Questions asked' })
      expect(await tile.locator('dd').evaluate((dd) => dd.firstChild?.textContent)).toBe(
        String(QUESTIONS.length),
      )
      await page
        .getByRole('img', { name: /Questions, chart of the last 30 days/ })
        .locator('canvas')
        .waitFor()
      const row = page.getByRole('row', { name: /Harbour notes/ })
      expect(await row.getByRole('cell').nth(1).textContent()).toBe(String(QUESTIONS.length))
      const feedback = page.locator('.tile', { hasText: 'Feedback on answers' })
      // Drawn thumbs and words, not emoji (a browser or server without an emoji font shows boxes).
      expect(await feedback.locator('dd').evaluate((dd) => dd.firstChild?.textContent)).toBe('1 good, 0 bad')
      expect(await row.getByRole('cell').nth(3).textContent()).toBe('1 good, 0 bad')
      expect(await feedback.locator('dd svg[aria-hidden="true"]').count()).toBe(2)
      expect(await page.locator('main').textContent()).not.toMatch(/\p{Extended_Pictographic}/u)
      // The numbers behind the chart are there for screen readers and keyboard users.
      await page.getByText('Show the numbers').click()
      const today = new Date().toISOString().slice(0, 10)
      expect(await page.getByRole('row', { name: today }).getByRole('cell').nth(1).textContent()).toBe(
        String(QUESTIONS.length),
      )
      expect(await seriousViolations(page)).toEqual([])
      expect(blocked).toEqual([])
      await r.screenshot(page, dark ? 'usage-dark' : 'usage')
      await ctx.close()
    }
  })

  test('platform status lists each component and the service objectives', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await ctx.newPage()
    await signInUi(page, r, admin, '/console/status')
    await page.getByRole('heading', { name: 'Platform status', level: 1 }).waitFor()
    await page.getByRole('heading', { name: 'Service objectives' }).waitFor()
    await page.getByText('Availability').waitFor()
    const rows = page.locator('tbody tr')
    expect(await rows.count()).toBeGreaterThan(0)
    expect(await page.locator('tbody .badge').allTextContents()).not.toContain('')
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'status')
    await ctx.close()
  })

  test('MCP shows the hosted address, and a key created in this tab fills the configurations until a reload or sign-out', async () => {
    const r = rig()
    const ctx = await r.context()
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: r.server.url })
    const page = await ctx.newPage()
    await signInUi(page, r, admin, '/console/mcp')
    await page.getByRole('heading', { name: 'MCP', level: 1 }).waitFor()
    const hosted = `${r.server.url}/mcp-http/`
    expect(await page.getByLabel('Server address (Streamable HTTP)').inputValue()).toBe(hosted)
    expect(await page.getByLabel("Base id (the tools' base_id)").inputValue()).toBe(baseId)
    // No key yet: the configurations hold the placeholder and say why.
    const hostedJson = page.locator('#cfg-hosted')
    expect(await hostedJson.textContent()).toContain(hosted)
    expect(await hostedJson.textContent()).toContain('Bearer ek_...')
    expect(await page.locator('#cfg-stdio').textContent()).toContain(`"--url",\n        "${r.server.url}"`)
    expect(await seriousViolations(page)).toEqual([])

    // A key made on the keys page (same tab, no reload) is the one the configurations carry.
    await page.getByRole('link', { name: 'API keys' }).click()
    await page.getByLabel('Key name').fill('Claude Desktop')
    await page.getByRole('button', { name: 'Create key' }).click()
    const secret = await page.getByLabel(/Secret of/).inputValue()
    await page.getByRole('button', { name: 'I have copied it' }).click()
    await page.getByRole('link', { name: 'MCP' }).click()
    await page.getByLabel('API key').waitFor()
    await page.getByText('created in this tab. Treat them like a password').waitFor()
    const config = JSON.parse((await hostedJson.textContent()) ?? '') as {
      mcpServers: { engram: { url: string; headers: { Authorization: string } } }
    }
    expect(config.mcpServers.engram.url).toBe(hosted)
    // The MCP Inspector's commands carry the same address, key and base, as tests/e2e/mcp-inspector.test.ts runs them.
    const inspector = (await page.locator('#cfg-inspector').textContent()) ?? ''
    expect(inspector).toContain(inspectorListCommand(hosted, secret))
    expect(inspector).toContain(inspectorAskCommand(hosted, secret, baseId, 'What is this base about?'))
    // The configuration works as pasted: the hosted server lists the tools for it.
    const listed = await fetch(config.mcpServers.engram.url, {
      method: 'POST',
      headers: {
        ...config.mcpServers.engram.headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(listed.status).toBe(200)
    expect(config.mcpServers.engram.headers.Authorization).toBe(`Bearer ${secret}`)
    await page.getByRole('button', { name: 'Copy: Hosted, Claude Code command' }).click()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(
      `--header "Authorization: Bearer ${secret}"`,
    )
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'mcp')

    // A reload forgets the secret: back to the placeholder.
    await page.reload()
    await page.getByLabel('API key').waitFor()
    await page.locator('#cfg-hosted').waitFor()
    expect(await page.content()).not.toContain(secret)
    expect(await hostedJson.textContent()).toContain('Bearer ek_...')

    // So does signing out, even when someone signs in again in the same tab without a reload.
    await page.getByRole('link', { name: 'API keys' }).click()
    await page.getByLabel('Key name').fill('Left behind')
    await page.getByRole('button', { name: 'Create key' }).click()
    const second = await page.getByLabel(/Secret of/).inputValue()
    await page.getByRole('button', { name: 'I have copied it' }).click()
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL('**/console/sign-in')
    await page.getByLabel('Email').fill(admin.email)
    await page.getByLabel('Password').fill(admin.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'MCP' }).click()
    await page.getByLabel('API key').waitFor()
    await hostedJson.waitFor()
    expect(await hostedJson.textContent()).toContain('Bearer ek_...')
    expect(await page.content()).not.toContain(second)
    await ctx.close()
  })

  test('at 375 px the usage, MCP, status and keys pages fit the screen', async () => {
    const r = rig()
    await fetch(`${r.server.url}/v1/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(admin.token) },
      body: JSON.stringify({ name: 'Phone check', scopes: ['query'] }),
    })
    const ctx = await r.context({ width: 375, height: 800 })
    const page = await ctx.newPage()
    await signInUi(page, r, admin, '/console/usage')
    await page.locator('.daily-chart canvas').waitFor()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'usage-375')
    await page.getByRole('link', { name: 'MCP' }).click()
    await page.locator('#cfg-hosted').waitFor()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'mcp-375')
    for (const [link, heading] of [
      ['Status', 'Platform status'],
      ['API keys', 'API keys'],
    ] as const) {
      await page.getByRole('link', { name: link, exact: true }).click()
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor()
      await page.locator('tbody tr').first().waitFor()
      expect([heading, await page.evaluate(() => document.documentElement.scrollWidth)]).toEqual([
        heading,
        375,
      ])
      expect(await seriousViolations(page)).toEqual([])
    }
    await r.screenshot(page, 'keys-375')
    await ctx.close()
  })

  test('a member sees no Keys or Usage section and no admin action', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await ctx.newPage()
    await signInUi(page, r, member, '/console/status')
    const nav = page.getByRole('navigation', { name: 'Sections' })
    expect(await nav.getByRole('link', { name: 'API keys' }).count()).toBe(0)
    expect(await nav.getByRole('link', { name: 'Usage' }).count()).toBe(0)
    expect(await nav.getByRole('link', { name: 'Members' }).count()).toBe(0)
    await page.getByRole('heading', { name: 'Platform status', level: 1 }).waitFor()
    expect(await seriousViolations(page)).toEqual([])

    // MCP: the configurations with the placeholder, and who to ask for a key; no key list, no link to make one.
    await nav.getByRole('link', { name: 'MCP' }).click()
    await page.locator('#cfg-hosted').waitFor()
    await page.getByText('only admins can create them').waitFor()
    expect(await page.getByLabel('API key').count()).toBe(0)
    expect(await page.getByRole('link', { name: /Create a new key/ }).count()).toBe(0)
    expect(await page.locator('#cfg-hosted').textContent()).toContain('Bearer ek_...')
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'mcp-member')

    // The admin pages, reached by address, refuse without offering any action.
    for (const path of ['/console/keys', '/console/usage']) {
      await page.goto(r.url(path))
      await page.getByRole('heading', { name: 'Not available' }).waitFor()
      expect(await page.getByRole('button', { name: /Create key|Revoke|Refresh/ }).count()).toBe(0)
      expect(await page.locator('canvas').count()).toBe(0)
    }
    await r.screenshot(page, 'keys-member')
    await ctx.close()
  })
})
