import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  auditRows,
  CLIENT_ID,
  type Engram,
  rowCounts,
  type Stage,
  signInWithGoogle,
  stage,
  startLogin,
} from './identity.fixture'

// "Sign in with Google" end to end against a real OpenID provider on loopback (issue 35): a new
// workspace in open mode, the registration switch in invite mode, a linked identity signing in
// again, and linking an identity to an existing password account.

let s: Stage
let open: Engram
let closed: Engram

beforeAll(async () => {
  s = await stage(
    {
      newbie: { email: 'New.Person@example.com', email_verified: true, name: 'New Person' },
      again: { email: 'again@example.com', email_verified: true, name: 'Again' },
      owner: { email: 'owner@example.com', email_verified: true, name: 'Owner' },
      blocked: { email: 'blocked@example.com', email_verified: true, name: 'Blocked' },
      enforced: { email: 'enforced@example.com', email_verified: true, name: 'Enforced' },
      stranger: { email: 'stranger@example.com', email_verified: true, name: 'Stranger' },
    },
    [
      { ENGRAM_SIGNUP_MODE: 'open', ENGRAM_DEFAULT_PLAN: 'team' },
      { ENGRAM_SIGNUP_MODE: 'invite', ENGRAM_REGISTRATION: 'off' },
    ],
  )
  ;[open, closed] = s.engrams as [Engram, Engram]
})
afterAll(() => s.stop())

async function me(e: Engram, token: string) {
  const res = await fetch(`${e.base}/auth/me`, { headers: { authorization: `Bearer ${token}` } })
  expect(res.status).toBe(200)
  return (await res.json()) as { id: string; email: string; name: string; workspace_id: string }
}

/** A verified password account in open mode (signed up, then the verification link followed). */
async function passwordAccount(e: Engram, email: string, password: string) {
  const res = await fetch(`${e.base}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ workspace_name: 'Owned', name: 'Owner', email, password }),
  })
  expect(res.status).toBe(200)
  const { verify_link } = (await res.json()) as { verify_link: string }
  const token = new URL(verify_link).searchParams.get('token')!
  expect((await fetch(`${e.base}/auth/verify-email?token=${token}`)).status).toBe(200)
}

/** A JSON answer: a TokenResp, a LinkAccountInfoResp or the `/v1` error envelope. */
interface Answer {
  access_token?: string
  error?: { code: string; message: string }
  [k: string]: unknown
}

async function post(e: Engram, path: string, body: unknown) {
  const res = await fetch(`${e.base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as Answer }
}

describe('Google sign-in', () => {
  test('/auth/config says google_enabled once a client id and secret are set', async () => {
    const res = await fetch(`${open.base}/auth/config`)
    expect(((await res.json()) as { google_enabled: boolean }).google_enabled).toBe(true)
  })

  test('the login redirects to the provider with the code flow, PKCE S256, state and nonce, and binds the flow to the browser', async () => {
    for (const mount of ['', '/v1']) {
      const started = await startLogin(open, mount)
      const url = new URL(started.authorizationUrl)
      expect(url.origin).toBe(s.op.issuer)
      expect(url.searchParams.get('client_id')).toBe(CLIENT_ID)
      expect(url.searchParams.get('response_type')).toBe('code')
      expect(url.searchParams.get('redirect_uri')).toBe(`${open.base}/v1/auth/google/callback`)
      expect(url.searchParams.get('code_challenge_method')).toBe('S256')
      expect(url.searchParams.get('state')).toMatch(/^[\w-]{43}$/)
      expect(url.searchParams.get('nonce')).toMatch(/^[\w-]{43}$/)
      expect(url.searchParams.get('scope')).toBe('openid email profile')
      expect(started.setCookie).toMatch(
        /^engram_google_flow=v1\.[\w-]+; Path=\/v1\/auth\/google\/callback; Max-Age=600; HttpOnly; SameSite=Lax$/,
      )
    }
  })

  test('a new address in open mode gets a new workspace on the default plan, verified, and a session in the fragment', async () => {
    const before = await rowCounts(open.app)
    const landed = await signInWithGoogle(s, open, 'newbie')
    expect(landed.status).toBe(302)
    expect(`${landed.location.origin}${landed.location.pathname}`).toBe(`${open.base}/console/auth/callback`)
    expect([...landed.fragment.keys()]).toEqual(['access_token', 'token_type', 'expires_at'])
    expect(landed.fragment.get('token_type')).toBe('bearer')
    expect(landed.setCookie).toContain('engram_google_flow=; Path=/v1/auth/google/callback; Max-Age=0')
    // The console serves the landing page (its catch-all), which reads the fragment.
    const page = await fetch(`${open.base}/console/auth/callback`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toContain('text/html')
    const user = await me(open, landed.fragment.get('access_token')!)
    expect(user.email).toBe('new.person@example.com')
    expect(user.name).toBe('New Person')
    expect(await rowCounts(open.app)).toEqual({
      workspaces: before.workspaces + 1,
      users: before.users + 1,
      identities: before.identities + 1,
    })
    const ws = await open.app.sql.get<{ name: string; plan: string }>(
      'SELECT name, plan FROM workspaces WHERE id = ?',
      user.workspace_id,
    )
    expect(ws).toEqual({ name: "New Person's workspace", plan: 'team' })
    const actions = (await auditRows(open.app)).slice(-2)
    expect(actions.map((a) => a.action)).toEqual(['identity.linked', 'auth.sign_in'])
    expect(JSON.parse(actions[1]!.details!)).toMatchObject({ method: 'google' })
  })

  test('a linked identity signs in again as the same user, writing no new workspace', async () => {
    const first = await signInWithGoogle(s, open, 'again')
    const counts = await rowCounts(open.app)
    const second = await signInWithGoogle(s, open, 'again')
    expect(second.error).toBeNull()
    const a = await me(open, first.fragment.get('access_token')!)
    const b = await me(open, second.fragment.get('access_token')!)
    expect(b.id).toBe(a.id)
    expect(await rowCounts(open.app)).toEqual(counts)
  })

  test('invite mode with registration off refuses a new address and writes nothing', async () => {
    const before = await rowCounts(closed.app)
    const landed = await signInWithGoogle(s, closed, 'stranger')
    expect(`${landed.location.origin}${landed.location.pathname}`).toBe(`${closed.base}/console/sign-in`)
    expect(landed.error).toBe('registration_closed')
    expect(landed.location.hash).toBe('')
    expect(await rowCounts(closed.app)).toEqual(before)
  })
})

describe('linking to a password account', () => {
  test('an address with a password account gets a link ticket; the password links the identity', async () => {
    await passwordAccount(open, 'owner@example.com', 'owner-password-1')
    const before = await rowCounts(open.app)
    const landed = await signInWithGoogle(s, open, 'owner')
    expect(`${landed.location.origin}${landed.location.pathname}`).toBe(`${open.base}/console/auth/callback`)
    expect([...landed.fragment.keys()]).toEqual(['link_ticket'])
    const ticket = landed.fragment.get('link_ticket')!
    expect(await rowCounts(open.app)).toEqual(before)

    for (const mount of ['', '/v1']) {
      expect(await post(open, `${mount}/auth/link-info`, { ticket })).toEqual({
        status: 200,
        body: { email: 'owner@example.com', provider: 'google' },
      })
    }
    const wrong = await post(open, '/v1/auth/link', { ticket, password: 'not-the-password' })
    expect(wrong.status).toBe(401)
    expect(wrong.body.error?.code).toBe('invalid_credentials')
    expect(await rowCounts(open.app)).toEqual(before)

    const linked = await post(open, '/auth/link', { ticket, password: 'owner-password-1' })
    expect(linked.status).toBe(200)
    expect(linked.body).toMatchObject({ token_type: 'bearer', email_verified: true })
    const user = await me(open, linked.body.access_token!)
    expect(user.email).toBe('owner@example.com')
    expect(await rowCounts(open.app)).toEqual({ ...before, identities: before.identities + 1 })
    expect((await auditRows(open.app)).some((a) => a.action === 'identity.linked')).toBe(true)

    // From now on Google signs the owner in directly.
    const again = await signInWithGoogle(s, open, 'owner')
    expect((await me(open, again.fragment.get('access_token')!)).id).toBe(user.id)
  })

  test('an expired or forged ticket gets one answer', async () => {
    await passwordAccount(open, 'stranger@example.com', 'stranger-password')
    const landed = await signInWithGoogle(s, open, 'stranger')
    const ticket = landed.fragment.get('link_ticket')!
    const forged = `${ticket.slice(0, -2)}${ticket.endsWith('AA') ? 'BB' : 'AA'}`
    const bad = await post(open, '/v1/auth/link-info', { ticket: forged })
    open.app.clock.advance(11 * 60_000)
    const expired = await post(open, '/v1/auth/link-info', { ticket })
    const expiredLink = await post(open, '/v1/auth/link', { ticket, password: 'stranger-password' })
    open.app.clock.set(new Date())
    for (const r of [bad, expired, expiredLink]) {
      expect(r.status).toBe(400)
      expect(r.body.error).toMatchObject({
        code: 'link_ticket_invalid',
        message: 'The link ticket is invalid or has expired. Sign in with the provider again.',
      })
    }
  })

  test('a deactivated account is refused a ticket and the link', async () => {
    await passwordAccount(open, 'blocked@example.com', 'blocked-password')
    const landed = await signInWithGoogle(s, open, 'blocked')
    const ticket = landed.fragment.get('link_ticket')!
    await open.app.sql.runElsewhere(
      "UPDATE users SET status = 'deactivated' WHERE email = 'blocked@example.com'",
    )
    const before = await rowCounts(open.app)
    const r = await post(open, '/v1/auth/link', { ticket, password: 'blocked-password' })
    expect(r.status).toBe(403)
    expect(r.body.error?.code).toBe('account_disabled')
    expect((await signInWithGoogle(s, open, 'blocked')).error).toBe('account_disabled')
    expect(await rowCounts(open.app)).toEqual(before)
  })

  test('a workspace that enforces single sign-on refuses the ticket and the link', async () => {
    await passwordAccount(open, 'enforced@example.com', 'enforced-password')
    const landed = await signInWithGoogle(s, open, 'enforced')
    const ticket = landed.fragment.get('link_ticket')!
    const { workspace_id } = (await open.app.sql.get<{ workspace_id: string }>(
      "SELECT workspace_id FROM users WHERE email = 'enforced@example.com'",
    ))!
    await open.app.sql.runElsewhere(
      `INSERT INTO sso_configs (workspace_id, issuer, client_id, client_secret, enforce, default_role, seat_cap, created_at, updated_at)
       VALUES (?, 'https://idp.example.com', 'x', 'sealed', ?, 'member', NULL, 0, 0)`,
      workspace_id,
      true,
    )
    const before = await rowCounts(open.app)
    const r = await post(open, '/v1/auth/link', { ticket, password: 'enforced-password' })
    expect(r.status).toBe(403)
    expect(r.body.error?.code).toBe('sso_required')
    expect((await signInWithGoogle(s, open, 'enforced')).error).toBe('sso_required')
    expect(await rowCounts(open.app)).toEqual(before)
  })
})
