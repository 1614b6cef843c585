import { describe, expect, test } from 'bun:test'
import type { BrowserContext, Page } from 'playwright-core'
import { type ConsoleRig, consoleRig, seriousViolations } from '../helpers/browser'

// Invite mode (the default): an admin invites in one browser, the invitee accepts in a second one;
// roles, the last-admin rule and removal on the members page; the account page; request access.
const rig = consoleRig({ ENGRAM_PASSWORD_MEMORY_KIB: '1024' })

const ADMIN = { email: 'ada@example.com', password: 'correct horse 1', name: 'Ada Admin' }
const MEMBER = { email: 'bo@example.com', password: 'member secret 1', name: 'Bo Member' }

/** No serious or critical axe violations, in the light and the dark scheme. */
async function accessible(page: Page): Promise<void> {
  const dark = await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)
  expect(await seriousViolations(page)).toEqual([])
  await page.emulateMedia({ colorScheme: dark ? 'light' : 'dark' })
  expect(await seriousViolations(page)).toEqual([])
  await page.emulateMedia({ colorScheme: dark ? 'dark' : 'light' })
}

let workspace: Promise<void> | null = null

/** The workspace and its admin, created once through the API. */
function ensureWorkspace(r: ConsoleRig): Promise<void> {
  workspace ??= fetch(`${r.server.url}/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      workspace_name: 'Acme',
      email: ADMIN.email,
      password: ADMIN.password,
      name: ADMIN.name,
    }),
  }).then((res) => expect(res.status).toBe(200))
  return workspace
}

/** A browser context signed in through the sign-in page, on `path`. */
async function signedIn(r: ConsoleRig, who: { email: string; password: string }, path: string) {
  const ctx = await r.context()
  const page = await ctx.newPage()
  await page.goto(r.url(`/console/sign-in?next=${encodeURIComponent(path)}`))
  await page.getByLabel('Email').fill(who.email)
  await page.getByLabel('Password').fill(who.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL(`**${path}`)
  await page.getByRole('navigation', { name: 'Sections' }).waitFor()
  return { ctx, page }
}

/** The session token a page holds. */
function tokenOf(page: Page): Promise<string> {
  return page.evaluate(() => JSON.parse(sessionStorage.getItem('engram.session') ?? '{}').token as string)
}

/** The stored session of a page (to carry it into another context). */
function sessionOf(page: Page): Promise<string> {
  return page.evaluate(() => sessionStorage.getItem('engram.session') ?? '')
}

/** The member's browser, kept from the invitation test for the role tests. */
let memberCtx: BrowserContext | null = null
let memberPage: Page | null = null

describe('console: members, invitations and the account page', () => {
  test('an admin invites in one browser; the invitee accepts in a second and lands signed in, without admin sections', async () => {
    const r = rig()
    await ensureWorkspace(r)
    const { ctx, page } = await signedIn(r, ADMIN, '/console/members')
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor()
    // The last-admin rule is explained before anything is refused; the only admin is locked.
    expect(await page.getByText(/always keeps at least one admin/).isVisible()).toBe(true)
    const onlyAdmin = page.getByText('You are the only admin: make someone else admin first.')
    await onlyAdmin.waitFor()
    expect(await page.getByRole('button', { name: 'Step down to member' }).count()).toBe(0)
    expect(await page.getByRole('button', { name: /^Remove / }).count()).toBe(0)
    expect(await page.getByText('No pending invitations').isVisible()).toBe(true)

    // An invitation withdrawn...
    await page.getByLabel('Email address').fill('never@example.com')
    await page.getByRole('button', { name: 'Send invitation' }).click()
    await page.getByRole('cell', { name: 'never@example.com', exact: true }).waitFor()
    await page.getByRole('button', { name: 'Revoke the invitation of never@example.com' }).click()
    await page.getByText('No pending invitations').waitFor()

    // ...and one sent: email is off, so the link is shown to pass on, with a copy button.
    await page.getByLabel('Email address').fill(MEMBER.email)
    await page.getByLabel('Role', { exact: true }).selectOption('member')
    await page.getByRole('button', { name: 'Send invitation' }).click()
    const field = page.getByLabel('Invitation link')
    await field.waitFor()
    const link = await field.inputValue()
    expect(link).toMatch(/\/console\/accept-invite\?token=[0-9A-Za-z]{43}$/)
    await page.getByRole('cell', { name: MEMBER.email, exact: true }).waitFor()
    await page.getByRole('button', { name: 'Copy' }).click()
    await page.getByText(/^(Copied|This browser would not copy: .*)$/).waitFor()
    await accessible(page)
    await r.screenshot(page, 'accounts-members-invited')

    // The invitee, in a browser of their own (no shared storage with the admin's).
    memberCtx = await r.context()
    memberPage = await memberCtx.newPage()
    const m = memberPage
    const url = new URL(link)
    await m.goto(r.url(url.pathname + url.search))
    await m.getByRole('heading', { name: 'Join Acme' }).waitFor()
    expect(await m.getByText(MEMBER.email).isVisible()).toBe(true)
    await accessible(m)
    await m.getByLabel('Your name').fill(MEMBER.name)
    await m.getByLabel('Choose a password').fill(MEMBER.password)
    await m.getByRole('button', { name: 'Join the workspace' }).click()
    await m.waitForURL('**/console/bases')
    await m.getByRole('navigation', { name: 'Sections' }).waitFor()
    expect(await m.getByText(MEMBER.name).first().isVisible()).toBe(true)
    // A member sees no admin section, and the admin page offers no admin action.
    for (const name of ['Members', 'API keys', 'Usage']) {
      expect(await m.getByRole('link', { name, exact: true }).count()).toBe(0)
    }
    await m.goto(r.url('/console/members'))
    await m.getByRole('heading', { name: 'Not available' }).waitFor()
    expect(await m.getByRole('button', { name: 'Send invitation' }).count()).toBe(0)
    await m.goto(r.url('/console/account'))
    await m.getByRole('heading', { name: 'Your account' }).waitFor()
    expect(await m.getByText('Only an admin of the workspace can rename it.').isVisible()).toBe(true)
    expect(await m.getByRole('button', { name: 'Rename workspace' }).count()).toBe(0)
    await accessible(m)
    await r.screenshot(m, 'accounts-member-account')

    // The invitation is spent: the link now says so in the API's words.
    const again = await memberCtx.newPage()
    await again.goto(r.url(url.pathname + url.search))
    await again.getByRole('heading', { name: 'This invitation does not work' }).waitFor()
    expect(await again.getByRole('alert').textContent()).toBe('The link is invalid, already used or expired.')
    await again.close()

    await page.reload()
    await page.getByRole('cell', { name: MEMBER.name, exact: true }).waitFor()
    expect(await page.getByText('No pending invitations').isVisible()).toBe(true)
    await ctx.close()
  })

  test('role changes; a stale page meets the last-admin refusal in the API words; removal names the person', async () => {
    const r = rig()
    const { ctx, page } = await signedIn(r, ADMIN, '/console/members')
    await page.getByRole('button', { name: `Make ${MEMBER.name} an admin` }).click()
    // With a second admin, the first may step down, and the second may be removed.
    await page.getByRole('button', { name: 'Step down to member' }).waitFor()
    expect(await page.getByRole('button', { name: `Remove ${MEMBER.name}` }).isVisible()).toBe(true)
    expect(await page.getByText(/the only admin: make someone else/).count()).toBe(0)

    // Bo, now an admin, steps down in their own browser (asked first) while Ada's page still shows
    // two admins. The console follows at once: the page is for admins, and Bo no longer is one.
    const m = memberPage!
    await m.goto(r.url('/console/members'))
    await m.getByRole('button', { name: 'Step down to member' }).click()
    const stepDown = m.getByRole('dialog', { name: 'Step down as admin?' })
    await stepDown.waitFor()
    await accessible(m)
    await stepDown.getByRole('button', { name: 'Step down to member' }).click()
    await m.getByRole('heading', { name: 'Not available' }).waitFor()

    // Ada steps down from the stale page: the API refuses, and the page says why in its words.
    await page.getByRole('button', { name: 'Step down to member' }).click()
    await page
      .getByRole('dialog', { name: 'Step down as admin?' })
      .getByRole('button', { name: 'Step down to member' })
      .click()
    const alert = page.getByRole('alert')
    await alert.waitFor()
    expect(await alert.textContent()).toBe('The last admin of a workspace cannot be demoted.')
    await page.getByText('You are the only admin: make someone else admin first.').waitFor()
    expect(await page.getByRole('button', { name: 'Step down to member' }).count()).toBe(0)
    expect(await page.getByRole('button', { name: `Make ${MEMBER.name} an admin` }).isVisible()).toBe(true)
    await accessible(page)
    await r.screenshot(page, 'accounts-last-admin')

    // Removal asks first, naming the person; Bo's session ends with it.
    await page.getByRole('button', { name: `Remove ${MEMBER.name}` }).click()
    const dialog = page.getByRole('dialog', { name: `Remove ${MEMBER.name}?` })
    await dialog.waitFor()
    expect(await dialog.textContent()).toContain(MEMBER.email)
    await accessible(page)
    await dialog.getByRole('button', { name: `Remove ${MEMBER.name}` }).click()
    await dialog.waitFor({ state: 'hidden' })
    await page.getByRole('cell', { name: MEMBER.name, exact: true }).waitFor({ state: 'detached' })
    await m.goto(r.url('/console/bases'))
    await m.waitForURL('**/console/sign-in?next=*')
    await memberCtx?.close()
    await r.screenshot(page, 'accounts-member-removed')
    const stored = await sessionOf(page)
    await ctx.close()

    // On a phone the page fits the screen: the table scrolls in its own box, not the page.
    const phone = await r.context({ width: 375, height: 780 })
    const p = await phone.newPage()
    await p.goto(r.url('/console/bases'))
    await p.evaluate((token) => sessionStorage.setItem('engram.session', token), stored)
    await p.goto(r.url('/console/members'))
    await p.getByRole('button', { name: 'Send invitation' }).waitFor()
    expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
    await accessible(p)
    await r.screenshot(p, 'accounts-members-375')
    await phone.close()
  })

  test('the account page changes the display name, the workspace name and the password', async () => {
    const r = rig()
    const other = await signedIn(r, ADMIN, '/console/bases')
    const otherToken = await tokenOf(other.page)
    const { ctx, page } = await signedIn(r, ADMIN, '/console/account')
    await page.getByRole('heading', { name: 'Your account' }).waitFor()
    await accessible(page)

    await page.getByLabel('Display name').fill('Ada Lovelace')
    await page.getByRole('button', { name: 'Save name' }).click()
    await page.getByText('Your name is saved.').waitFor()
    expect(await page.locator('.topbar').textContent()).toContain('Ada Lovelace')

    await page.getByLabel('Workspace name').fill('Acme Research')
    await page.getByRole('button', { name: 'Rename workspace' }).click()
    await page.getByText('The workspace name is saved.').waitFor()
    expect(await page.locator('.topbar').textContent()).toContain('Acme Research')
    expect(await page.locator('.topbar').textContent()).toContain('Ada Lovelace')

    // A wrong current password is refused in the API's words, and the user stays signed in.
    await page.getByLabel('Current password').fill('not my password')
    await page.getByLabel('New password', { exact: true }).fill('a new password 2')
    await page.getByLabel('Repeat the new password').fill('a new password 2')
    await page.getByRole('button', { name: 'Change password' }).click()
    const alert = page.getByRole('alert')
    await alert.waitFor()
    expect(await alert.textContent()).toBe('The current password is incorrect.')
    expect(page.url()).toEndWith('/console/account')

    await page.getByLabel('Current password').fill(ADMIN.password)
    await page.getByLabel('New password', { exact: true }).fill('a new password 2')
    await page.getByLabel('Repeat the new password').fill('a new password 2')
    await page.getByRole('button', { name: 'Change password' }).click()
    await page.getByText(/Your password is changed/).waitFor()
    await accessible(page)
    await r.screenshot(page, 'accounts-account')

    // This tab carries on with its fresh session; the other session has ended.
    await page.reload()
    await page.getByRole('heading', { name: 'Your account' }).waitFor()
    const me = (token: string) =>
      fetch(`${r.server.url}/v1/auth/me`, { headers: { authorization: `Bearer ${token}` } })
    expect((await me(await tokenOf(page))).status).toBe(200)
    expect((await me(otherToken)).status).toBe(401)
    await other.ctx.close()

    // Signed out, only the new password signs in.
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL('**/console/sign-in')
    await page.getByLabel('Email').fill(ADMIN.email)
    await page.getByLabel('Password').fill(ADMIN.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    expect(await page.getByRole('alert').textContent()).toMatch(/Incorrect email or password/)
    await page.getByLabel('Password').fill('a new password 2')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL('**/console/bases')
    await ctx.close()
  })

  test('with sign-up closed, a visitor can request access', async () => {
    const r = rig()
    const ctx = await r.context({ width: 375, height: 780 })
    const page = await ctx.newPage()
    await page.goto(r.url('/console/sign-in'))
    await page.getByRole('link', { name: 'Request access' }).click()
    await page.waitForURL('**/console/request-access')
    await accessible(page)
    await page.getByLabel('Email').fill('curious@example.com')
    await page.getByRole('button', { name: 'Request access' }).click()
    await page.getByText(/Your request for curious@example.com is recorded/).waitFor()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
    await accessible(page)
    await r.screenshot(page, 'accounts-request-access-375')
    await ctx.close()
  })
})
