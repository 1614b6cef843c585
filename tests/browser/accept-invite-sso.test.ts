import { describe, expect, test } from 'bun:test'
import { consoleRig, seriousViolations } from '../helpers/browser'

// Issue 35 follow-up, in Chromium against the real server: an invitation to a workspace that
// enforces single sign-on. The accept-invite page asked for a password the server then ignored,
// and tried to adopt the empty session it answered. Now it reads `sso_required` from
// invite-info, asks for no password, and sends the invitee to the sign-in page's SSO step with
// the invited address filled in.

const rig = consoleRig()

/** Calls the API; answers the JSON of a 200. */
async function call(method: string, path: string, body: unknown, token?: string) {
  const res = await fetch(`${rig().server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  })
  expect(res.status).toBe(200)
  return (await res.json()) as Record<string, string>
}

const DOMAIN = 'corp.example.org'
const sso = (enforce: boolean, token: string) =>
  call(
    'PUT',
    '/v1/enterprise/sso',
    {
      issuer: 'https://login.example.org',
      client_id: 'engram',
      client_secret: 's',
      domains: [DOMAIN],
      enforce,
    },
    token,
  )

describe('console: accepting an invitation under single sign-on', () => {
  test('with SSO set up but not enforced the password is asked; enforced, none is, and joining leads to "Sign in with SSO" with the address', async () => {
    const r = rig()
    const admin = (
      await call('POST', '/v1/auth/register', {
        workspace_name: 'Corp',
        name: 'Ada Admin',
        email: `admin@${DOMAIN}`,
        password: 'correct horse 1',
      })
    ).access_token as string
    const invite = async (email: string) => {
      // The link names the server's public address; the path is opened on the test's server.
      const link = new URL(
        (await call('POST', '/v1/admin/invites', { email, role: 'member' }, admin)).invite_link as string,
      )
      return r.url(`${link.pathname}${link.search}`)
    }
    const joeLink = await invite(`joe@${DOMAIN}`)
    const ivy = `ivy@${DOMAIN}`
    const ivyLink = await invite(ivy)
    await sso(false, admin)

    // Not enforced: a password is chosen and the invitee lands signed in.
    const joeCtx = await r.context()
    const joe = await joeCtx.newPage()
    await joe.goto(joeLink)
    await joe.getByLabel('Choose a password').waitFor()
    expect(await joe.getByText('no password is needed').count()).toBe(0)
    await joe.getByLabel('Your name').fill('Joe Invitee')
    await joe.getByLabel('Choose a password').fill('correct horse 2')
    await joe.getByRole('button', { name: 'Join the workspace' }).click()
    await joe.waitForURL('**/console/bases')
    await joe.getByRole('navigation', { name: 'Sections' }).waitFor()
    await joeCtx.close()

    // Enforced: no password field, and no session to adopt.
    await sso(true, admin)
    const ctx = await r.context()
    const page = await ctx.newPage()
    await page.goto(ivyLink)
    await page.getByRole('heading', { name: 'Join Corp' }).waitFor()
    await page.getByText('no password is needed').waitFor()
    expect(await page.getByLabel('Choose a password').count()).toBe(0)
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'accept-invite-sso')
    await page.getByLabel('Your name').fill('Ivy Invitee')
    await page.getByRole('button', { name: 'Join the workspace' }).click()
    await page.getByRole('heading', { name: 'Sign in with SSO' }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/console/sign-in')
    expect(await page.getByLabel('Work email').inputValue()).toBe(ivy)
    // The empty token answered is not kept as a session.
    expect(await page.evaluate(() => sessionStorage.getItem('engram.session'))).toBeNull()
    await r.screenshot(page, 'accept-invite-sso-next')
    // The invitation is spent: opening it again says so.
    await page.goto(ivyLink)
    await page.getByRole('heading', { name: 'This invitation does not work' }).waitFor()
    await ctx.close()
  })
})
