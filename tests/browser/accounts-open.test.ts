import { describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { consoleRig, seriousViolations } from '../helpers/browser'

// Open sign-up mode: sign-up, "check your email" with the resend cooldown, the verification
// landing page, sign-in; then forgot and reset password. Email is turned off (ENGRAM_EMAIL=disabled,
// the rig's default), so the links come back in the API's answers (link_delivery: response). A short
// cooldown lets the test watch the countdown run out instead of sleeping through a minute.
const rig = consoleRig({
  ENGRAM_SIGNUP_MODE: 'open',
  ENGRAM_RESEND_COOLDOWN_SECONDS: '3',
  ENGRAM_PASSWORD_MEMORY_KIB: '1024',
})

/** No serious or critical axe violations, in the light and the dark scheme. */
async function accessible(page: Page): Promise<void> {
  const dark = await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)
  expect(await seriousViolations(page)).toEqual([])
  await page.emulateMedia({ colorScheme: dark ? 'light' : 'dark' })
  expect(await seriousViolations(page)).toEqual([])
  await page.emulateMedia({ colorScheme: dark ? 'dark' : 'light' })
}

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL('**/console/bases')
  await page.getByRole('navigation', { name: 'Sections' }).waitFor()
}

describe('console: open sign-up and passwords', () => {
  test('sign-up → check your email (resend after its countdown) → the verification link → sign in', async () => {
    const r = rig()
    // The narrow screen of a phone: these public pages must work at 375 px.
    const ctx = await r.context({ width: 375, height: 780 })
    const page = await ctx.newPage()
    await page.goto(r.url('/console/sign-up'))
    await page.getByLabel('Workspace name').fill('Open Lab')
    await page.getByLabel('Your name').fill('Olga Open')
    await page.getByLabel('Email').fill('olga@example.com')
    await page.getByLabel('Password').fill('open sesame 1')
    await page.getByRole('button', { name: /Create (the )?workspace/ }).click()

    await page.waitForURL('**/console/check-email?*')
    await page.getByRole('heading', { name: 'Check your email' }).waitFor()
    const confirm = page.getByRole('link', { name: 'Confirm my address' })
    const firstLink = await confirm.getAttribute('href')
    expect(firstLink).toMatch(/^\/console\/verify-email\?token=[0-9A-Za-z]{43}$/)
    expect(await page.getByText('olga@example.com').first().isVisible()).toBe(true)
    // The resend button counts down the server's cooldown and is disabled meanwhile.
    const resend = page.getByRole('button', { name: /Send the link again/ })
    expect(await resend.textContent()).toMatch(/in \d s/)
    expect(await resend.isDisabled()).toBe(true)
    // Nothing overflows the narrow screen sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
    await accessible(page)
    await r.screenshot(page, 'accounts-check-email-375')

    await page.waitForFunction(() =>
      [...document.querySelectorAll('button')].some(
        (b) => b.textContent === 'Send the link again' && !b.disabled,
      ),
    )
    await resend.click()
    await page.getByText('Here is a new link; the older one no longer works.').waitFor()
    const secondLink = await confirm.getAttribute('href')
    expect(secondLink).not.toBe(firstLink)

    // The first link was replaced by the second: the landing page says so in the API's words.
    await page.goto(r.url(firstLink!))
    await page.getByRole('heading', { name: 'This link does not work' }).waitFor()
    expect(await page.getByRole('alert').textContent()).toBe('The link is invalid, already used or expired.')
    await accessible(page)

    await page.goto(r.url(secondLink!))
    await page.getByRole('heading', { name: 'Address confirmed' }).waitFor()
    await accessible(page)
    await r.screenshot(page, 'accounts-verified-375')
    await page.getByRole('link', { name: 'Sign in' }).click()
    await page.waitForURL('**/console/sign-in')
    await signIn(page, 'olga@example.com', 'open sesame 1')
    // (The narrow layout hides the workspace name in the top bar; it is there for wider screens.)
    expect(await page.locator('.topbar').textContent()).toContain('Open Lab')

    // A spent link stays spent.
    await page.goto(r.url(secondLink!))
    await page.getByRole('heading', { name: 'This link does not work' }).waitFor()
    await ctx.close()
  })

  test('forgot password → the reset link → a new password → sign in with it (and not the old one)', async () => {
    const r = rig()
    const ctx = await r.context()
    const page = await ctx.newPage()
    await page.goto(r.url('/console/sign-in'))
    await page.getByRole('link', { name: 'Forgot your password?' }).click()
    await page.waitForURL('**/console/forgot-password')
    await accessible(page)
    await page.getByLabel('Email').fill('olga@example.com')
    await page.getByRole('button', { name: 'Send the reset link' }).click()
    const choose = page.getByRole('link', { name: 'Choose a new password' })
    await choose.waitFor()
    await accessible(page)
    await choose.click()
    await page.waitForURL('**/console/reset-password?token=*')
    await accessible(page)

    // Two different passwords are caught before anything is sent; a short one by the API's rule.
    await page.getByLabel('New password', { exact: true }).fill('brand new pw 2')
    await page.getByLabel('Repeat the new password').fill('brand new pw 3')
    await page.getByRole('button', { name: 'Set the new password' }).click()
    expect(await page.getByRole('alert').textContent()).toBe('The two passwords are not the same.')
    await page.getByLabel('Repeat the new password').fill('brand new pw 2')
    await page.getByRole('button', { name: 'Set the new password' }).click()
    await page.getByRole('heading', { name: 'Password changed' }).waitFor()
    await accessible(page)
    await page.getByRole('link', { name: 'Sign in' }).click()
    await page.waitForURL('**/console/sign-in')

    await page.getByLabel('Email').fill('olga@example.com')
    await page.getByLabel('Password').fill('open sesame 1')
    await page.getByRole('button', { name: 'Sign in' }).click()
    expect(await page.getByRole('alert').textContent()).toMatch(/Incorrect email or password/)
    await signIn(page, 'olga@example.com', 'brand new pw 2')
    await r.screenshot(page, 'accounts-after-reset')
    await ctx.close()
  })

  test('a reset link that is garbage shows the API refusal; a page without a token says so', async () => {
    const r = rig()
    const ctx = await r.context({ dark: true })
    const page = await ctx.newPage()
    await page.goto(r.url('/console/reset-password?token=not-a-real-token'))
    await page.getByLabel('New password', { exact: true }).fill('whatever pw 1')
    await page.getByLabel('Repeat the new password').fill('whatever pw 1')
    await page.getByRole('button', { name: 'Set the new password' }).click()
    const alert = page.getByRole('alert')
    await alert.waitFor()
    expect(await alert.textContent()).toBe('The link is invalid, already used or expired.')
    await page.goto(r.url('/console/verify-email'))
    await page.getByRole('heading', { name: 'This link does not work' }).waitFor()
    expect(await page.getByRole('alert').textContent()).toMatch(/no token/)
    await page.goto(r.url('/console/check-email'))
    // Reached without an address: it asks for one and sends a link at once (no cooldown running).
    await page.getByLabel('Email').fill('olga@example.com')
    await page.getByRole('button', { name: 'Send the link again' }).click()
    await page.getByText(/^No new link: the address is already confirmed/).waitFor()
    await accessible(page)
    await r.screenshot(page, 'accounts-bad-links-dark')
    await ctx.close()
  })
})
