import { describe, expect, test } from 'bun:test'
import { LINK_LOG_MESSAGE } from '../../src/platform/email/email'
import { consoleRig, seriousViolations } from '../helpers/browser'
import { signInUi } from '../helpers/console-workspace'

// Issue 32, item 1: with no mail server (ENGRAM_EMAIL=log, the default) the console says where a
// link went: to the server's log, for the person who runs the server; never onto the page.
const rig = consoleRig({ ENGRAM_EMAIL: 'log', ENGRAM_PASSWORD_MEMORY_KIB: '1024' })

const ADMIN = { email: 'ada@example.com', password: 'correct horse battery', token: '' }

describe('console: links go to the server log', () => {
  test('the first run tells the operator where links will go, before the workspace exists', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await ctx.newPage()
    await page.goto(r.url('/console/'))
    await page.getByRole('heading', { name: 'Welcome to Engram' }).waitFor()
    const note = page.getByText(/This server sends no email/)
    expect(await note.textContent()).toContain('written to its log for you to pass on')
    expect(await note.textContent()).toContain('docker logs')
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'link-delivery-first-run')
    await page.getByLabel('Workspace name').fill('Acme Research')
    await page.getByLabel('Your name').fill('Ada Admin')
    await page.getByLabel('Email').fill(ADMIN.email)
    await page.getByLabel('Password').fill(ADMIN.password)
    await page.getByRole('button', { name: 'Create the workspace' }).click()
    await page.waitForURL('**/console/bases')
    await ctx.close()
  })

  test('forgot-password says before and after asking that the link goes to the server log', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await ctx.newPage()
    await page.goto(r.url('/console/forgot-password'))
    // Said before anything is sent, from /auth/config.
    await page
      .getByText(/This server sends no email: the reset link is written to the server's log/)
      .waitFor()
    await page.getByLabel('Email').fill(ADMIN.email)
    await page.getByRole('button', { name: 'Send the reset link' }).click()
    const said = page.getByText(/its reset link was written to the server's log .*, not sent to you/)
    await said.waitFor()
    expect(await said.textContent()).toContain('ask the person who runs this server')
    // No link on the page: it is in the server's log, for the operator.
    expect(await page.getByRole('link', { name: 'Choose a new password' }).count()).toBe(0)
    const line = await r.server.waitForLine((l) => l.msg === LINK_LOG_MESSAGE && l.kind === 'reset_password')
    const token = new URL(String(line.link)).searchParams.get('token')!
    expect(await page.content()).not.toContain(token)
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'link-delivery-forgot-password')
    await ctx.close()
  })

  test('an invitation says its link was written to the server log, and shows none', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await ctx.newPage()
    await signInUi(page, r, ADMIN, '/console/members')
    await page.getByLabel('Email address').fill('bo@example.com')
    await page.getByRole('button', { name: 'Send invitation' }).click()
    const said = page.getByText(/the invitation link was written to the server's log/)
    await said.waitFor()
    expect(await said.textContent()).toContain('bo@example.com')
    expect(await page.getByLabel('Invitation link').count()).toBe(0)
    const line = await r.server.waitForLine((l) => l.msg === LINK_LOG_MESSAGE && l.kind === 'invite')
    expect(line).toMatchObject({ level: 'warn', email: 'bo@example.com' })
    expect(await seriousViolations(page)).toEqual([])
    await r.screenshot(page, 'link-delivery-invite')
    await ctx.close()
  })
})
