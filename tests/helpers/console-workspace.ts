/**
 * Workspaces and users for console browser tests, made through the API with fetch (what the test
 * is not about), and signing a browser page in through the console's sign-in form.
 */
import { expect } from 'bun:test'
import type { Page } from 'playwright-core'
import type { ConsoleRig } from './browser'

/** Someone who can sign in. */
export interface Account {
  email: string
  password: string
  token: string
}

async function post<T>(url: string, body: unknown, token?: string): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${text}`)
  return JSON.parse(text) as T
}

/** Registers a workspace and its first admin through the API. */
export async function registerAdmin(r: ConsoleRig, email = 'ada@example.com'): Promise<Account> {
  const password = 'correct horse battery'
  const resp = await post<{ access_token: string }>(`${r.server.url}/v1/auth/register`, {
    workspace_name: 'Acme Research',
    name: 'Ada Admin',
    email,
    password,
  })
  return { email, password, token: resp.access_token }
}

/** Invites `email` as a member and accepts the invite (the link comes back: email is off). */
export async function addMember(r: ConsoleRig, admin: Account, email = 'max@example.com'): Promise<Account> {
  const invite = await post<{ invite_link?: string }>(
    `${r.server.url}/v1/admin/invites`,
    { email, role: 'member' },
    admin.token,
  )
  expect(invite.invite_link).toBeString()
  const token = new URL(invite.invite_link!).searchParams.get('token')
  const password = 'member password 123'
  const resp = await post<{ access_token: string }>(`${r.server.url}/v1/auth/accept-invite`, {
    token,
    password,
    name: 'Max Member',
  })
  return { email, password, token: resp.access_token }
}

/** Signs `page` in through the console's form and waits for `next` to show its navigation. */
export async function signInUi(page: Page, r: ConsoleRig, who: Account, next: string): Promise<void> {
  await page.goto(r.url(`/console/sign-in?next=${encodeURIComponent(next)}`))
  await page.getByLabel('Email').fill(who.email)
  await page.getByLabel('Password').fill(who.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL(`**${next}`)
  await page.getByRole('navigation', { name: 'Sections' }).waitFor()
}
