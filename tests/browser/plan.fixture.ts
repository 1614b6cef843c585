/**
 * The Plan page tests' helpers: a workspace signed up in open mode (onto the server's default plan),
 * its verification link followed and its admin signed in, and calls to the API as that admin.
 */
import { expect } from 'bun:test'
import type { ConsoleRig } from '../helpers/browser'
import type { Account } from '../helpers/console-workspace'

/** Signs a workspace up in open mode, follows its verification link (email is off), signs in. */
export async function openSignUp(r: ConsoleRig, email = 'ada@example.com'): Promise<Account> {
  const url = r.server.url
  const password = 'correct horse battery'
  const made = await fetch(`${url}/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ workspace_name: 'Acme Research', name: 'Ada Admin', email, password }),
  })
  const { verify_link } = (await made.json()) as { verify_link: string }
  const token = new URL(verify_link).searchParams.get('token') ?? ''
  expect((await fetch(`${url}/v1/auth/verify-email?token=${token}`)).status).toBe(200)
  const login = await fetch(`${url}/v1/auth/login`, {
    method: 'POST',
    body: new URLSearchParams({ username: email, password }),
  })
  const { access_token } = (await login.json()) as { access_token: string }
  return { email, password, token: access_token }
}

/** A call to the server as `who`; throws on a refusal. */
export async function apiAs<T>(
  r: ConsoleRig,
  who: Account,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`${r.server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${who.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return JSON.parse(text) as T
}

/** The workspace's acceptance of each legal document, as `/v1/legal/status` answers it. */
export interface LegalStatus {
  all_accepted: boolean
  documents: { document: string; version: string; title: string; accepted: boolean }[]
}
