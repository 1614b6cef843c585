import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type TestApp, testApp } from '../helpers/app'
import { startProvider, type TestProvider } from '../helpers/oidc-provider'

// Issue 35 follow-ups on who single sign-on signs in, end to end against a real OpenID provider on
// loopback: a member linked to one person (subject) at the provider is never signed in as by
// another person the company later gave the address to; and an invitation accepted in a workspace
// that enforces SSO makes the member without a password, who then signs in through the provider.

const CLIENT = { client_id: 'engram-sso-rules', client_secret: 'sso-rules-secret-never-logged' }
const ACME = 'acme.example.com'
const CORP = 'corp.example.com'

let op: TestProvider
let app: TestApp
let http: ReturnType<typeof Bun.serve>
let base: string
let acme: { token: string; key: string; workspaceId: string }

/** A JSON answer: a session, a member, an invitation's details. */
interface Answer {
  access_token?: string
  key?: string
  id?: string
  workspace_id?: string
  [k: string]: unknown
}

const auth = (token: string) => ({ authorization: `Bearer ${token}` })

async function json(path: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { 'content-type': 'application/json', ...(init.token ? auth(init.token) : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  })
  return { status: res.status, body: (res.status === 204 ? {} : await res.json()) as Answer }
}

beforeAll(async () => {
  let handler: (r: Request) => Promise<Response> = async () => new Response('starting', { status: 503 })
  http = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (r) => handler(r) })
  base = `http://127.0.0.1:${http.port}`
  op = await startProvider({
    clients: [{ ...CLIENT, redirect_uris: [`${base}/auth/sso/callback`] }],
    accounts: {
      'alice-2019': { email: `alice@${ACME}`, email_verified: true, name: 'Alice (2019)' },
      carol: { email: `carol@${CORP}`, email_verified: true, name: 'Carol At The Provider' },
    },
  })
  app = testApp({
    env: { ENGRAM_BASE_URL: base, ENGRAM_PASSWORD_MEMORY_KIB: '1024', ENGRAM_SOURCES_ALLOW_LOOPBACK: 'true' },
  })
  app.clock.set(new Date())
  handler = (r) => app.handle(r, http)
  const reg = await json('/v1/auth/register', {
    body: { email: `admin@${ACME}`, password: 'correct horse 1', workspace_name: 'Acme', name: 'Admin' },
  })
  const token = reg.body.access_token as string
  const me = await json('/v1/auth/me', { token })
  const key = await json('/v1/api-keys', { token, body: { name: 'sso admin', scopes: ['admin'] } })
  acme = { token, key: key.body.key!, workspaceId: me.body.workspace_id! }
  const put = await json('/v1/enterprise/sso', {
    method: 'PUT',
    token: acme.key,
    body: { issuer: op.issuer, ...CLIENT, domains: [ACME] },
  })
  expect(put.status).toBe(200)
}, 60_000)

afterAll(async () => {
  http.stop(true)
  app.close()
  await op.stop()
})

interface Landed {
  location: URL
  fragment: URLSearchParams
  error: string | null
}

/** One browser's whole SSO sign-in as `account` at the provider, typing `email` at Engram. */
async function ssoSignIn(account: string, email: string): Promise<Landed> {
  app.clock.set(new Date())
  const res = await fetch(`${base}/auth/sso/start`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  })
  expect(res.status).toBe(200)
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!
  const { authorization_url } = (await res.json()) as { authorization_url: string }
  const back = await op.signIn(authorization_url, account)
  app.clock.set(new Date())
  const landed = await fetch(back, { redirect: 'manual', headers: { cookie } })
  const location = new URL(landed.headers.get('location') ?? 'http://missing/')
  return {
    location,
    fragment: new URLSearchParams(location.hash.slice(1)),
    error: location.searchParams.get('error'),
  }
}

async function count(table: string, where = '1 = 1'): Promise<number> {
  return (await app.sql.get<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`))!.n
}

async function userIdOf(email: string): Promise<string | undefined> {
  return (await app.sql.get<{ id: string }>('SELECT id FROM users WHERE email = ?', email))?.id
}

describe('an address the company gave to another person', () => {
  test('is refused with identity_mismatch, writes nothing, and the old member is kept for the old person', async () => {
    const first = await ssoSignIn('alice-2019', `alice@${ACME}`)
    expect(first.error).toBeNull()
    const alice = (await userIdOf(`alice@${ACME}`))!
    expect(alice).toBeTruthy()

    // Years later the provider has a new person (another subject) holding the same address.
    op.accounts.set('alice-2024', { email: `alice@${ACME}`, email_verified: true, name: 'Alice (2024)' })
    const before = {
      users: await count('users'),
      identities: await count('user_identities'),
      signIns: await count('audit_events', "action = 'auth.sign_in'"),
    }
    const other = await ssoSignIn('alice-2024', `alice@${ACME}`)
    expect(`${other.location.origin}${other.location.pathname}`).toBe(`${base}/console/sign-in`)
    expect(other.error).toBe('identity_mismatch')
    expect(other.location.hash).toBe('')
    expect({
      users: await count('users'),
      identities: await count('user_identities'),
      signIns: await count('audit_events', "action = 'auth.sign_in'"),
    }).toEqual(before)
    expect(app.log.lines.some((l) => l.msg === 'sso sign-in refused' && l.code === 'identity_mismatch')).toBe(
      true,
    )

    // The person the member was made for still signs in as it.
    const old = await ssoSignIn('alice-2019', `alice@${ACME}`)
    const me = await json('/v1/auth/me', { token: old.fragment.get('access_token')! })
    expect(me.body.id).toBe(alice)
  })

  test('once an admin removes the old member, the new person joins as a new member', async () => {
    const alice = (await userIdOf(`alice@${ACME}`))!
    expect((await json(`/v1/admin/members/${alice}`, { method: 'DELETE', token: acme.key })).status).toBe(204)
    const joined = await ssoSignIn('alice-2024', `alice@${ACME}`)
    expect(joined.error).toBeNull()
    const me = await json('/v1/auth/me', { token: joined.fragment.get('access_token')! })
    expect(me.body).toMatchObject({ email: `alice@${ACME}`, name: 'Alice (2024)' })
    expect(me.body.id).not.toBe(alice)
  })
})

describe('an invitation accepted where SSO is enforced', () => {
  test('makes the member without a password or session; the invitee then signs in through the provider as that member', async () => {
    const reg = await json('/v1/auth/register', {
      body: { email: `admin@${CORP}`, password: 'correct horse 2', workspace_name: 'Corp', name: 'Admin' },
    })
    const token = reg.body.access_token!
    const key = (await json('/v1/api-keys', { token, body: { name: 'corp admin', scopes: ['admin'] } })).body
      .key!
    const put = await json('/v1/enterprise/sso', {
      method: 'PUT',
      token: key,
      body: { issuer: op.issuer, ...CLIENT, domains: [CORP], enforce: true },
    })
    expect(put.status).toBe(200)
    const inv = await json('/v1/admin/invites', {
      token: key,
      body: { email: `carol@${CORP}`, role: 'admin' },
    })
    const invite = new URL(inv.body.invite_link as string).searchParams.get('token')!

    expect((await json('/v1/auth/invite-info', { body: { token: invite } })).body.sso_required).toBe(true)
    const accepted = await json('/v1/auth/accept-invite', { body: { token: invite, name: 'Carol' } })
    expect(accepted).toEqual({
      status: 200,
      body: {
        access_token: '',
        token_type: 'bearer',
        expires_at: null,
        email_verified: true,
        sso_required: true,
      },
    })
    const carol = (await userIdOf(`carol@${CORP}`))!

    const landed = await ssoSignIn('carol', `carol@${CORP}`)
    expect(landed.error).toBeNull()
    const me = await json('/v1/auth/me', { token: landed.fragment.get('access_token')! })
    // The member the invitation made, with its name and role, not a new one from the provider.
    expect(me.body).toMatchObject({ id: carol, name: 'Carol', role: 'admin', email: `carol@${CORP}` })
  })
})
