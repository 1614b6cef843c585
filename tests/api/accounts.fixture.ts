import { expect } from 'bun:test'
import { type TestApp, type TestAppOptions, testApp } from '../helpers/app'

/**
 * Helpers shared by the accounts, auth, keys, admin, status and tenancy tests: an app with cheap
 * password hashing, sign-up and sign-in shortcuts, row counts and error-shape assertions.
 */

/** A test app with argon2id at its minimum memory cost (the tests hash hundreds of passwords). */
export function authApp(opts: TestAppOptions = {}): TestApp {
  return testApp({ ...opts, env: { ENGRAM_PASSWORD_MEMORY_KIB: '1024', ...opts.env } })
}

/** Both mounts of a path: the `/v1` contract and the frozen unversioned one. */
export function mounts(path: string): [string, string] {
  return [`/v1${path}`, path]
}

/** The Authorization header for a token. */
export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` }
}

/** A url-encoded form request init. */
export function form(fields: Record<string, string>): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  }
}

/**
 * Rows in a table (to show a refused request wrote nothing), on the app's engine; the engine's index
 * (`engine_*`) is in the SQLite file on both engines.
 */
export async function rows(t: TestApp, table: string, where = '1 = 1'): Promise<number> {
  const query = `SELECT count(*) AS n FROM ${table} WHERE ${where}`
  if (table.startsWith('engine_')) return t.db.$client.query<{ n: number }, []>(query).get()!.n
  return (await t.sql.get<{ n: number }>(query))!.n
}

/** Row counts of every table the accounts features write. */
export async function snapshot(t: TestApp): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const table of [
    'workspaces',
    'users',
    'email_tokens',
    'access_requests',
    'invites',
    'api_keys',
    'audit_events',
  ]) {
    out[table] = await rows(t, table)
  }
  return out
}

let counter = 0

/** A fresh, unique, non-disposable address. */
export function address(tag = 'user'): string {
  counter++
  return `${tag}${counter}@example.com`
}

/** Registers a workspace (invite mode by default) and returns the admin's token and ids. */
export async function signUp(
  t: TestApp,
  over: Partial<{ email: string; password: string; workspace_name: string; name: string }> = {},
) {
  const email = over.email ?? address('admin')
  const password = over.password ?? 'correct horse'
  const res = await t.request('/v1/auth/register', {
    method: 'POST',
    json: { email, password, workspace_name: over.workspace_name ?? 'Acme', name: over.name ?? 'Ada' },
  })
  expect(res.status).toBe(200)
  const body = (await res.json()) as { access_token: string }
  const me = (await (await t.request('/v1/auth/me', { headers: bearer(body.access_token) })).json()) as {
    id: string
    workspace_id: string
  }
  return { email, password, token: body.access_token, userId: me.id, workspaceId: me.workspace_id }
}

/** Signs in with the password form and returns the response body. */
export async function signIn(t: TestApp, email: string, password: string, remember = false) {
  const res = await t.request('/v1/auth/login', {
    ...form({ username: email, password, remember_me: remember ? 'true' : 'false' }),
  })
  expect(res.status).toBe(200)
  return (await res.json()) as { access_token: string; expires_at: string }
}

/** Mints an API key with the given scopes using an admin token; returns the create response. */
export async function mintKey(t: TestApp, adminToken: string, scopes: string[], extra: object = {}) {
  const res = await t.request('/v1/api-keys', {
    method: 'POST',
    headers: bearer(adminToken),
    json: { name: `key ${scopes.join('+')}`, scopes, ...extra },
  })
  expect(res.status).toBe(200)
  return (await res.json()) as { id: string; key: string; prefix: string; scopes: string[] }
}

/** Invites an address (email disabled, so the link is returned) and accepts it; returns the member. */
export async function addMember(t: TestApp, adminToken: string, role: 'admin' | 'member' = 'member') {
  const email = address(role)
  const inv = await t.request('/v1/admin/invites', {
    method: 'POST',
    headers: bearer(adminToken),
    json: { email, role },
  })
  expect(inv.status).toBe(200)
  const link = ((await inv.json()) as { invite_link: string }).invite_link
  const token = new URL(link).searchParams.get('token')!
  const acc = await t.request('/v1/auth/accept-invite', {
    method: 'POST',
    json: { token, password: 'member password', name: 'Member' },
  })
  expect(acc.status).toBe(200)
  const access = ((await acc.json()) as { access_token: string }).access_token
  const me = (await (await t.request('/v1/auth/me', { headers: bearer(access) })).json()) as { id: string }
  return { email, password: 'member password', token: access, userId: me.id }
}

/** The token query value of a link. */
export function tokenOf(link: string): string {
  return new URL(link).searchParams.get('token')!
}

/**
 * Asserts an error in the shape of the mount the path belongs to: the `/v1` envelope with code,
 * status and request id, or the frozen `{detail}`. Returns the message.
 */
export async function expectError(
  res: Response,
  path: string,
  status: number,
  code: string,
  message?: string,
): Promise<string> {
  expect(res.status).toBe(status)
  const body = (await res.json()) as Record<string, unknown>
  if (path.startsWith('/v1')) {
    const error = body.error as Record<string, unknown>
    expect(Object.keys(body)).toEqual(['error'])
    expect(error.code).toBe(code)
    expect(error.status).toBe(status)
    expect(error.request_id).toBe(res.headers.get('x-request-id') ?? '')
    if (message !== undefined) expect(error.message).toBe(message)
    return error.message as string
  }
  expect(Object.keys(body)).toEqual(['detail'])
  if (status === 422 && code === 'validation_error') {
    expect(Array.isArray(body.detail)).toBe(true)
    return JSON.stringify(body.detail)
  }
  expect(typeof body.detail).toBe('string')
  if (message !== undefined) expect(body.detail).toBe(message)
  return body.detail as string
}

/** The validation issues of a 422 in either shape. */
export async function issues(
  res: Response,
  path: string,
): Promise<{ loc: unknown[]; msg: string; type: string }[]> {
  expect(res.status).toBe(422)
  const body = (await res.json()) as { detail?: unknown; error?: { code: string; details: unknown } }
  if (path.startsWith('/v1')) {
    expect(body.error?.code).toBe('validation_error')
    return body.error?.details as { loc: unknown[]; msg: string; type: string }[]
  }
  return body.detail as { loc: unknown[]; msg: string; type: string }[]
}

/**
 * The order audit rows were written in, for an `ORDER BY` over `audit_events`: SQLite's `rowid`; on
 * PostgreSQL the `seq` of the event each row was written for (an audit row's id is its event's,
 * `aud_` for `evt_`), then the row's place in the table. Not `ctid` alone: a row goes to the page its
 * connection last wrote to while it has room, so two rows written by two connections of the pool
 * can sit in either order (seen in CI).
 */
export function insertionOrder(t: TestApp): string {
  return t.sql.engine === 'postgres'
    ? `(SELECT e.seq FROM domain_events e WHERE e.id = 'evt_' || substr(audit_events.id, 5)), ctid`
    : 'rowid'
}

/** Audit rows of an action, every workspace's, in the order they were written. */
export function auditRows(t: TestApp, action: string) {
  return t.sql.all<{
    workspace_id: string
    actor_type: string
    actor_id: string
    target_id: string
    details: string
  }>(
    `SELECT workspace_id, actor_type, actor_id, target_id, details FROM audit_events WHERE action = ? ORDER BY ${insertionOrder(t)}`,
    action,
  )
}
