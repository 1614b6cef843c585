import { describe, expect, test } from 'bun:test'
import { consoleRig, seriousViolations } from '../helpers/browser'

// axe-core on every page of the console, as an admin sees it (the pages with the most on them), in
// light and dark, at 1440 and 375 px. The pages' own tests check their other states.
const rig = consoleRig()

const PUBLIC = [
  '/console/sign-in',
  '/console/forgot-password',
  '/console/reset-password?token=x',
  '/console/verify-email?token=x',
  '/console/accept-invite?token=x',
  '/console/request-access',
  '/console/check-email?email=a%40example.com',
  '/console/auth/callback',
  '/console/auth/link',
  '/console/no-such-page',
]
const SIGNED_IN = [
  'bases',
  'keys',
  'members',
  'usage',
  'plan',
  'sso',
  'webhooks',
  'security',
  'audit',
  'mcp',
  'status',
  'account',
]

describe('console: accessibility of every page', () => {
  test('no page has a serious or critical axe violation, light or dark, wide or narrow', async () => {
    const r = rig()
    const reg = await fetch(`${r.server.url}/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        workspace_name: 'A11y',
        name: 'Al',
        email: 'al@example.com',
        password: 'long password 1',
      }),
    })
    const session = (await reg.json()) as { access_token: string; expires_at: string }
    const base = await fetch(`${r.server.url}/v1/corpora`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Empty base' }),
    })
    const baseId = ((await base.json()) as { id: string }).id
    const paths = [
      // The public pages render the same with a session in the tab.
      ...PUBLIC.map((p) => ({ path: p, signedIn: false })),
      ...[
        ...SIGNED_IN.map((p) => `/console/${p}`),
        `/console/bases/${baseId}`,
        `/console/bases/${baseId}/chat`,
        `/console/bases/${baseId}/compare`,
      ].map((p) => ({ path: p, signedIn: true })),
    ]
    const found: Record<string, unknown> = {}
    for (const width of [1440, 375]) {
      for (const dark of [false, true]) {
        const ctx = await r.context({ width, height: 900, dark })
        await ctx.addInitScript(
          ([token, expiresAt]) =>
            sessionStorage.setItem('engram.session', JSON.stringify({ token, expiresAt })),
          [session.access_token, session.expires_at],
        )
        const page = await ctx.newPage()
        for (const { path } of paths) {
          await page.goto(r.url(path))
          await page.locator('h1').first().waitFor()
          await page.waitForFunction(() => !document.querySelector('.loading'))
          const v = await seriousViolations(page)
          if (v.length > 0) found[`${path} ${width}px ${dark ? 'dark' : 'light'}`] = v
        }
        await r.screenshot(page, `a11y-last-${width}-${dark ? 'dark' : 'light'}`)
        await ctx.close()
      }
    }
    expect(found).toEqual({})
  }, 240_000)
})
