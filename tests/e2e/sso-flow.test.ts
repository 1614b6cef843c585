import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type TestApp, testApp } from '../helpers/app'
import { startProvider, type TestProvider } from '../helpers/oidc-provider'

// Per-workspace single sign-on end to end: Engram served over real HTTP on loopback, and a real
// OpenID provider (oidc-provider) on loopback playing a company's identity provider. The browser is
// played by hand: manual-redirect fetches carrying the cookie each origin set, through the whole
// chain (start → the provider's sign-in → the callback → the console's fragment), and each attack
// an honest relying party must refuse.

const CLIENT = { client_id: 'engram-sso', client_secret: 'sso-client-secret-never-logged-42' }
const ACME = 'acme.example.com'

let op: TestProvider
let app: TestApp
let http: ReturnType<typeof Bun.serve>
let base: string
/** The admin of the workspace that set SSO up for acme.example.com, and an admin API key of it. */
let acme: { token: string; key: string; workspaceId: string }

async function register(email: string, workspace: string, password = 'correct horse 1') {
  const res = await fetch(`${base}/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password, workspace_name: workspace, name: workspace }),
  })
  expect(res.status).toBe(200)
  const token = ((await res.json()) as { access_token: string }).access_token
  const me = (await (await fetch(`${base}/v1/auth/me`, { headers: auth(token) })).json()) as {
    workspace_id: string
  }
  return { token, workspaceId: me.workspace_id }
}

function auth(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` }
}

async function putSso(key: string, over: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${base}/v1/enterprise/sso`, {
    method: 'PUT',
    headers: { ...auth(key), 'content-type': 'application/json' },
    body: JSON.stringify({ issuer: op.issuer, ...CLIENT, domains: [ACME], ...over }),
  })
}

beforeAll(async () => {
  // Engram listens first, so the provider knows the redirect URI before it starts.
  let handler: (r: Request) => Promise<Response> = async () => new Response('starting', { status: 503 })
  http = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (r) => handler(r) })
  base = `http://127.0.0.1:${http.port}`
  op = await startProvider({
    clients: [{ ...CLIENT, redirect_uris: [`${base}/auth/sso/callback`] }],
    accounts: {
      admin: { email: `admin@${ACME}`, email_verified: true, name: 'Ada Admin' },
      new1: { email: `Newcomer.One@${ACME.toUpperCase()}`, email_verified: true, name: 'Newcomer One' },
      new2: { email: `new2@${ACME}`, email_verified: true, name: 'New Two' },
      capped: { email: `capped@${ACME}`, email_verified: true, name: 'Over The Cap' },
      unverified: { email: `unverified@${ACME}`, email_verified: false, name: 'Not Verified' },
      outsider: { email: 'someone@elsewhere.example.net', email_verified: true, name: 'Outsider' },
      taken: { email: 'bob@beta.example.com', email_verified: true, name: 'Bob Of Beta' },
      unlinked: { email: `unlinked@${ACME}`, email_verified: true, name: 'Not Linked Yet' },
    },
  })
  app = testApp({
    env: {
      ENGRAM_BASE_URL: base,
      ENGRAM_PASSWORD_MEMORY_KIB: '1024',
      // The provider is on loopback; outbound calls there are refused unless allowed.
      ENGRAM_SOURCES_ALLOW_LOOPBACK: 'true',
    },
  })
  // ID tokens carry the provider's real time; Engram's clock starts there too.
  app.clock.set(new Date())
  handler = (r) => app.handle(r, http)
  const a = await register(`admin@${ACME}`, 'Acme')
  const keyRes = await fetch(`${base}/v1/api-keys`, {
    method: 'POST',
    headers: { ...auth(a.token), 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'sso admin', scopes: ['admin'] }),
  })
  acme = { ...a, key: ((await keyRes.json()) as { key: string }).key }
  expect((await putSso(acme.key)).status).toBe(200)
  await register('bob@beta.example.com', 'Beta')
  // A member of Acme by invitation, with a password and no provider identity linked yet.
  const invite = await fetch(`${base}/v1/admin/invites`, {
    method: 'POST',
    headers: { ...auth(acme.key), 'content-type': 'application/json' },
    body: JSON.stringify({ email: `unlinked@${ACME}` }),
  })
  const link = ((await invite.json()) as { invite_link: string }).invite_link
  const accepted = await fetch(`${base}/v1/auth/accept-invite`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      token: new URL(link).searchParams.get('token'),
      password: 'member password',
      name: 'Unlinked',
    }),
  })
  expect(accepted.status).toBe(200)
}, 60_000)

afterAll(async () => {
  http.stop(true)
  app.close()
  await op.stop()
})

/** What a browser holds after `POST /auth/sso/start`: the provider's page and Engram's flow cookie. */
interface Started {
  authorizationUrl: URL
  cookie: string
  setCookie: string
}

async function start(email: string): Promise<Started> {
  app.clock.set(new Date())
  const res = await fetch(`${base}/auth/sso/start`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  })
  expect(res.status).toBe(200)
  const setCookie = res.headers.get('set-cookie') ?? ''
  const body = (await res.json()) as { authorization_url: string }
  return { authorizationUrl: new URL(body.authorization_url), cookie: setCookie.split(';')[0]!, setCookie }
}

/** Where the callback sends the browser. */
interface Landed {
  status: number
  location: URL
  fragment: URLSearchParams
  error: string | null
  setCookie: string
}

async function land(callback: URL, cookie: string | null): Promise<Landed> {
  app.clock.set(new Date())
  const res = await fetch(callback, { redirect: 'manual', headers: cookie ? { cookie } : {} })
  const location = new URL(res.headers.get('location') ?? 'http://missing/')
  return {
    status: res.status,
    location,
    fragment: new URLSearchParams(location.hash.slice(1)),
    error: location.searchParams.get('error'),
    setCookie: res.headers.get('set-cookie') ?? '',
  }
}

/** One browser's whole sign-in as `account` at the provider, typing `email` at Engram. */
async function signIn(account: string, email: string): Promise<Landed> {
  const s = await start(email)
  const back = await op.signIn(s.authorizationUrl.href, account)
  return land(back, s.cookie)
}

async function count(table: string, where = '1 = 1'): Promise<number> {
  return (await app.sql.get<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`))!.n
}

/** The details of the last audit row of an action (in the order rows were written: the clock stands still). */
async function lastAudit(action: string): Promise<{ details: string }> {
  // SQLite's rowid; on PostgreSQL the row's place in the table, as audit rows are only ever inserted.
  const written = app.sql.engine === 'postgres' ? 'ctid' : 'rowid'
  return (await app.sql.get<{ details: string }>(
    `SELECT details FROM audit_events WHERE action = ? ORDER BY ${written} DESC LIMIT 1`,
    action,
  ))!
}

function expectRefused(l: Landed, code: string): void {
  expect(l.status).toBe(302)
  expect(`${l.location.origin}${l.location.pathname}`).toBe(`${base}/console/sign-in`)
  expect(l.error).toBe(code)
  expect(l.location.hash).toBe('')
}

describe('the redirect chain', () => {
  test('start names the provider with PKCE, state, nonce and the registered redirect URI, and binds a cookie', async () => {
    const s = await start(`admin@${ACME}`)
    expect(s.authorizationUrl.origin).toBe(op.issuer)
    const q = s.authorizationUrl.searchParams
    expect(q.get('client_id')).toBe(CLIENT.client_id)
    expect(q.get('redirect_uri')).toBe(`${base}/auth/sso/callback`)
    expect(q.get('response_type')).toBe('code')
    expect(q.get('code_challenge_method')).toBe('S256')
    expect(q.get('login_hint')).toBe(`admin@${ACME}`)
    for (const p of ['state', 'nonce', 'code_challenge']) expect(q.get(p)?.length).toBeGreaterThanOrEqual(43)
    expect(s.setCookie).toMatch(
      /^engram_sso_flow=v1\.[^;]+; Path=\/auth\/sso\/callback; Max-Age=600; HttpOnly; SameSite=Lax$/,
    )
  })

  test('a new address at the domain becomes a member just in time and lands in the console with a session', async () => {
    const users = await count('users')
    const workspaces = await count('workspaces')
    const l = await signIn('new1', `newcomer.one@${ACME}`)
    expect(l.status).toBe(302)
    expect(`${l.location.origin}${l.location.pathname}`).toBe(`${base}/console/auth/callback`)
    expect(l.location.search).toBe('')
    expect([...l.fragment.keys()]).toEqual(['access_token', 'token_type', 'expires_at'])
    expect(l.fragment.get('token_type')).toBe('bearer')
    expect(new Date(l.fragment.get('expires_at')!).getTime()).toBeGreaterThan(Date.now())
    expect(l.setCookie).toStartWith('engram_sso_flow=; Path=/auth/sso/callback; Max-Age=0')
    const me = await fetch(`${base}/v1/auth/me`, { headers: auth(l.fragment.get('access_token')!) })
    expect(me.status).toBe(200)
    expect(await me.json()).toMatchObject({
      email: `newcomer.one@${ACME}`,
      name: 'Newcomer One',
      role: 'member',
      workspace_id: acme.workspaceId,
    })
    expect(await count('users')).toBe(users + 1)
    // SSO never creates a workspace.
    expect(await count('workspaces')).toBe(workspaces)
    const joined = await lastAudit('sso.member_joined')
    expect(JSON.parse(joined.details)).toEqual({
      email: `newcomer.one@${ACME}`,
      role: 'member',
      issuer: op.issuer,
    })
    // Signing in again finds the member made the first time.
    const again = await signIn('new1', `newcomer.one@${ACME}`)
    expect(again.fragment.get('access_token')).toBeTruthy()
    expect(await count('users')).toBe(users + 1)
  })

  test('an existing member signs in as themselves, and the sign-in is recorded as sso', async () => {
    const users = await count('users')
    const l = await signIn('admin', `admin@${ACME}`)
    const me = (await (
      await fetch(`${base}/v1/auth/me`, { headers: auth(l.fragment.get('access_token')!) })
    ).json()) as {
      email: string
      role: string
    }
    expect(me).toMatchObject({ email: `admin@${ACME}`, role: 'admin' })
    expect(await count('users')).toBe(users)
    const row = await lastAudit('auth.sign_in')
    expect(JSON.parse(row.details)).toMatchObject({ method: 'sso' })
  })

  test('an address whose domain has no SSO is a 404 at the start', async () => {
    const res = await fetch(`${base}/v1/auth/sso/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'someone@no-sso.example.org' }),
    })
    expect(res.status).toBe(404)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('sso_not_configured')
    expect(res.headers.get('set-cookie')).toBeNull()
  })

  test("the provider's own refusal (access_denied) is passed on to the sign-in page", async () => {
    const s = await start(`admin@${ACME}`)
    const back = new URL(`${base}/auth/sso/callback`)
    back.searchParams.set('error', 'access_denied')
    back.searchParams.set('state', s.authorizationUrl.searchParams.get('state')!)
    expectRefused(await land(back, s.cookie), 'access_denied')
  })
})

describe('the provider check against the real provider', () => {
  const check = async (key: string) => {
    const res = await fetch(`${base}/v1/enterprise/sso/test`, { method: 'POST', headers: auth(key) })
    expect(res.status).toBe(200)
    return (await res.json()) as { ok: boolean; checks: { name: string; ok: boolean; detail: string }[] }
  }

  test('discovery, the key set and the client at the token endpoint all pass', async () => {
    const body = await check(acme.key)
    expect(body.ok).toBe(true)
    expect(body.checks.map((c) => [c.name, c.ok])).toEqual([
      ['discovery', true],
      ['jwks', true],
      ['token_endpoint', true],
    ])
    expect(body.checks[0]!.detail).toBe(`The provider ${op.issuer} published its configuration.`)
  })

  test('a wrong client secret fails at the token endpoint and says so, without the secret', async () => {
    const other = await register('dora@delta.example.com', 'Delta')
    const wrong = 'not-the-client-secret-9f8e7d'
    const res = await fetch(`${base}/v1/enterprise/sso`, {
      method: 'PUT',
      headers: { ...auth(other.token), 'content-type': 'application/json' },
      body: JSON.stringify({
        issuer: op.issuer,
        ...CLIENT,
        client_secret: wrong,
        domains: ['delta.example.com'],
      }),
    })
    expect(res.status).toBe(200)
    const body = await check(other.token)
    expect(body.ok).toBe(false)
    expect(body.checks.map((c) => [c.name, c.ok])).toEqual([
      ['discovery', true],
      ['jwks', true],
      ['token_endpoint', false],
    ])
    expect(body.checks[2]!.detail).toBe('The token endpoint refused the client id or secret.')
    expect(JSON.stringify(body)).not.toContain(wrong)
  })
})

describe('provider identities', () => {
  test('the first SSO sign-in links the identity; a later one finds the member by it even after the address changed at the provider', async () => {
    const l = await signIn('new2', `new2@${ACME}`)
    const me = (await (
      await fetch(`${base}/v1/auth/me`, { headers: auth(l.fragment.get('access_token')!) })
    ).json()) as {
      id: string
    }
    const links = await app.sql.all(
      'SELECT provider, issuer, subject, workspace_id FROM user_identities WHERE user_id = ?',
      me.id,
    )
    expect(links).toEqual([
      { provider: 'sso', issuer: op.issuer, subject: 'new2', workspace_id: acme.workspaceId },
    ])
    const account = op.accounts.get('new2')!
    op.accounts.set('new2', { ...account, email: `renamed@${ACME}` })
    try {
      const users = await count('users')
      const again = await signIn('new2', `new2@${ACME}`)
      const who = (await (
        await fetch(`${base}/v1/auth/me`, { headers: auth(again.fragment.get('access_token')!) })
      ).json()) as {
        id: string
      }
      expect(who.id).toBe(me.id)
      expect(await count('users')).toBe(users)
    } finally {
      op.accounts.set('new2', account)
    }
  })
})

describe('attacks, each refused', () => {
  test('a replayed callback (same code, state and cookie) is refused the second time', async () => {
    const s = await start(`new2@${ACME}`)
    const back = await op.signIn(s.authorizationUrl.href, 'new2')
    expect((await land(back, s.cookie)).fragment.get('access_token')).toBeTruthy()
    expectRefused(await land(back, s.cookie), 'invalid_state')
  })

  test('a forged state, or a forged flow cookie, is refused', async () => {
    const s = await start(`admin@${ACME}`)
    const back = await op.signIn(s.authorizationUrl.href, 'admin')
    const forged = new URL(back)
    forged.searchParams.set('state', 'A'.repeat(43))
    expectRefused(await land(forged, s.cookie), 'invalid_state')
    const [name, value] = s.cookie.split('=') as [string, string]
    const tampered = `${name}=${value.slice(0, -4)}${value.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`
    expectRefused(await land(back, tampered), 'invalid_state')
  })

  test("a state from another browser's session is refused, and so is a callback with no cookie", async () => {
    const victim = await start(`admin@${ACME}`)
    const attacker = await start(`admin@${ACME}`)
    // The attacker's own code and state, pushed into the victim's browser (login CSRF).
    const back = await op.signIn(attacker.authorizationUrl.href, 'admin')
    expectRefused(await land(back, victim.cookie), 'invalid_state')
    expectRefused(await land(back, null), 'invalid_state')
  })

  const tampered: [string, Parameters<typeof setTamper>[0]][] = [
    ['a wrong nonce', { kind: 'claims', set: { nonce: 'not-the-nonce-we-sent' } }],
    ['a wrong audience', { kind: 'claims', set: { aud: 'another-client' } }],
    ['a wrong issuer', { kind: 'claims', set: { iss: 'https://evil.example.net' } }],
    ['an expired token', { kind: 'claims', set: { iat: now() - 7200, exp: now() - 3600 } }],
    ['a token signed by another key', { kind: 'other_key' }],
    ['an unsigned token (alg none)', { kind: 'alg_none' }],
  ]
  function now(): number {
    return Math.floor(Date.now() / 1000)
  }
  function setTamper(t: NonNullable<TestProvider['tamper']>): void {
    op.tamper = t
  }
  for (const [name, tamper] of tampered) {
    test(`${name} in the ID token is refused and signs no one in`, async () => {
      const users = await count('users')
      const signIns = await count('audit_events', "action = 'auth.sign_in'")
      setTamper(tamper)
      try {
        expectRefused(await signIn('new2', `new2@${ACME}`), 'sso_token_invalid')
      } finally {
        op.tamper = null
      }
      expect(await count('users')).toBe(users)
      expect(await count('audit_events', "action = 'auth.sign_in'")).toBe(signIns)
    })
  }

  test('an address the provider has not verified is refused', async () => {
    const users = await count('users')
    expectRefused(await signIn('unverified', `unverified@${ACME}`), 'email_not_verified')
    expect(await count('users')).toBe(users)
  })

  test('an address of another workspace is refused and that account is left as it was', async () => {
    const bob = () => app.sql.get("SELECT * FROM users WHERE email = 'bob@beta.example.com'")
    const before = await bob()
    expectRefused(await signIn('taken', `admin@${ACME}`), 'email_taken')
    expect(await bob()).toEqual(before)
  })

  test('an address outside the claimed domains is not made a member', async () => {
    const users = await count('users')
    expectRefused(await signIn('outsider', `admin@${ACME}`), 'sso_domain_not_claimed')
    expect(await count('users')).toBe(users)
  })

  test('a deactivated member is refused, and nothing is linked for them', async () => {
    // No route deactivates a member yet; the row is set as an operator would.
    await app.sql.runElsewhere(`UPDATE users SET status = 'deactivated' WHERE email = 'unlinked@${ACME}'`)
    expect(await count('users', `email = 'unlinked@${ACME}'`)).toBe(1)
    const identities = await count('user_identities')
    expectRefused(await signIn('unlinked', `unlinked@${ACME}`), 'account_disabled')
    expect(await count('user_identities')).toBe(identities)
  })

  test('a member whose address was never confirmed is refused before anything is linked', async () => {
    await app.sql.runElsewhere(
      `UPDATE users SET status = 'active', email_verified_at = NULL WHERE email = 'unlinked@${ACME}'`,
    )
    const identities = await count('user_identities')
    const signIns = await count('audit_events', "action = 'auth.sign_in'")
    expectRefused(await signIn('unlinked', `unlinked@${ACME}`), 'email_not_verified')
    expect(await count('user_identities')).toBe(identities)
    expect(await count('audit_events', "action = 'auth.sign_in'")).toBe(signIns)
  })

  test('with the seat cap reached a new member is refused; existing members still sign in', async () => {
    const active = await count('users', `workspace_id = '${acme.workspaceId}' AND status = 'active'`)
    expect((await putSso(acme.key, { seat_cap: active })).status).toBe(200)
    try {
      expectRefused(await signIn('capped', `capped@${ACME}`), 'seat_cap_reached')
      expect(await count('users', `email = 'capped@${ACME}'`)).toBe(0)
      expect((await signIn('admin', `admin@${ACME}`)).fragment.get('access_token')).toBeTruthy()
    } finally {
      expect((await putSso(acme.key, { seat_cap: null })).status).toBe(200)
    }
  })

  test('a second workspace claiming the domain is refused with 409', async () => {
    const other = await register('carol@gamma.example.com', 'Gamma')
    const res = await fetch(`${base}/v1/enterprise/sso`, {
      method: 'PUT',
      headers: { ...auth(other.token), 'content-type': 'application/json' },
      body: JSON.stringify({ issuer: op.issuer, ...CLIENT, domains: [ACME] }),
    })
    expect(res.status).toBe(409)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('sso_domain_taken')
  })
})

describe('enforcement over the real server', () => {
  test('passwords are refused (also one just reset) while SSO and recovery-code sessions go on; a used code is refused', async () => {
    const password = await fetch(`${base}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: `admin@${ACME}`, password: 'correct horse 1' }),
    })
    const passwordToken = ((await password.json()) as { access_token: string }).access_token
    const sso = (await signIn('admin', `admin@${ACME}`)).fragment.get('access_token')!
    app.clock.advance(1000)
    const on = await putSso(acme.key, { enforce: true })
    const codes = ((await on.json()) as { recovery_codes: string[] }).recovery_codes
    const me = (t: string) => fetch(`${base}/v1/auth/me`, { headers: auth(t) })
    expect((await me(passwordToken)).status).toBe(401)
    expect((await me(sso)).status).toBe(200)
    const login = (fields: Record<string, string>) =>
      fetch(`${base}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields),
      })
    const forgot = await fetch(`${base}/v1/auth/forgot-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `admin@${ACME}` }),
    })
    expect(forgot.status).toBe(200)
    const link = ((await forgot.json()) as { reset_link: string }).reset_link
    const reset = await fetch(`${base}/v1/auth/reset-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: new URL(link).searchParams.get('token'), password: 'freshly reset 1' }),
    })
    expect(reset.status).toBe(200)
    const refused = await login({ username: `admin@${ACME}`, password: 'freshly reset 1' })
    expect(refused.status).toBe(403)
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('sso_required')
    const glass = await login({
      username: `admin@${ACME}`,
      password: 'freshly reset 1',
      recovery_code: codes[0]!,
    })
    expect(glass.status).toBe(200)
    expect((await me(((await glass.json()) as { access_token: string }).access_token)).status).toBe(200)
    const again = await login({
      username: `admin@${ACME}`,
      password: 'freshly reset 1',
      recovery_code: codes[0]!,
    })
    expect(again.status).toBe(403)
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('invalid_recovery_code')
    // SSO sign-in still works for the enforcing workspace.
    expect((await signIn('admin', `admin@${ACME}`)).fragment.get('access_token')).toBeTruthy()
    expect((await putSso(acme.key, { enforce: false })).status).toBe(200)
  })
})

describe('the log', () => {
  test('holds no client secret, session token, code, recovery code or flow cookie, and says why sign-ins were refused', () => {
    const text = JSON.stringify(app.log.lines)
    expect(text).not.toContain(CLIENT.client_secret)
    expect(text).not.toMatch(/eyJ[\w-]{10,}\.[\w-]{10,}/)
    expect(text).not.toContain('engram_sso_flow=v1.')
    const refusals = app.log.lines.filter((l) => l.msg === 'sso sign-in refused').map((l) => l.code)
    for (const code of [
      'invalid_state',
      'sso_token_invalid',
      'email_not_verified',
      'email_taken',
      'seat_cap_reached',
    ]) {
      expect(refusals).toContain(code)
    }
  })
})
