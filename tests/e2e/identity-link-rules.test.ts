import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { auditRows, type Engram, rowCounts, type Stage, signInWithGoogle, stage } from './identity.fixture'

// Issue 35 follow-ups on linking a Google identity to a password account: the session `/auth/link`
// answers is recorded as made through Google (the token's `via` and the audit row), while the
// password is still checked as `/auth/login` checks it, rate limits included; and an account links
// one identity per issuer, so a new Google account given the same address replaces the old one
// once the password proves it, instead of both signing the account in.

let s: Stage
let e: Engram

beforeAll(async () => {
  s = await stage(
    {
      owner: { email: 'owner@example.com', email_verified: true, name: 'Owner' },
      guessed: { email: 'guessed@example.com', email_verified: true, name: 'Guessed' },
      first: { email: 'moved@example.com', email_verified: true, name: 'First Holder' },
    },
    [{ ENGRAM_RATE_LIMITS: 'on', ENGRAM_LOGIN_PER_ACCOUNT_MINUTE: '3' }],
  )
  e = s.engrams[0]!
})
afterAll(() => s.stop())

/** A password account of invite mode (registration on in tests): verified, signed in at once. */
async function passwordAccount(email: string, password: string) {
  const res = await post('/v1/auth/register', { workspace_name: 'Owned', name: 'Owner', email, password })
  expect(res.status).toBe(200)
}

async function post(path: string, body: unknown) {
  const res = await fetch(`${e.base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return {
    status: res.status,
    body: (await res.json()) as { access_token?: string; error?: { code: string; details?: unknown } },
  }
}

/** The claims of a session token (a JWT: the middle part, base64url JSON). */
function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'))
}

/** A link ticket for `account`, whose address has a password account here. */
async function ticketFor(account: string): Promise<string> {
  const landed = await signInWithGoogle(s, e, account)
  const ticket = landed.fragment.get('link_ticket')
  expect(ticket).toBeTruthy()
  return ticket!
}

/** The identities linked to the user of an address: (issuer, subject) pairs. */
function identitiesOf(email: string): Promise<{ subject: string; provider: string }[]> {
  return e.app.sql.all<{ subject: string; provider: string }>(
    'SELECT i.subject, i.provider FROM user_identities i JOIN users u ON u.id = i.user_id WHERE u.email = ? ORDER BY i.created_at, i.subject',
    email,
  )
}

describe('the session /auth/link answers', () => {
  test('is recorded as a Google sign-in: the token says via google, and so does the audit row', async () => {
    await passwordAccount('owner@example.com', 'owner-password-1')
    const ticket = await ticketFor('owner')
    const before = (await auditRows(e.app)).length
    const linked = await post('/v1/auth/link', { ticket, password: 'owner-password-1' })
    expect(linked.status).toBe(200)
    expect(claimsOf(linked.body.access_token!).via).toBe('google')
    const signIns = (await auditRows(e.app)).slice(before).filter((a) => a.action === 'auth.sign_in')
    expect(signIns.map((a) => JSON.parse(a.details!).method)).toEqual(['google'])
    // It is a working session.
    const me = await fetch(`${e.base}/v1/auth/me`, {
      headers: { authorization: `Bearer ${linked.body.access_token}` },
    })
    expect(me.status).toBe(200)
  })

  test('still needs the right password, and the guesses count against the account as sign-ins do', async () => {
    await passwordAccount('guessed@example.com', 'guessed-password-1')
    const ticket = await ticketFor('guessed')
    const before = await rowCounts(e.app)
    for (let i = 0; i < 3; i++) {
      const wrong = await post('/v1/auth/link', { ticket, password: `wrong guess ${i}` })
      expect(wrong.status).toBe(401)
      expect(wrong.body.error?.code).toBe('invalid_credentials')
    }
    // The fourth within the minute is the per-account limit of sign-in, even with the right password.
    const limited = await post('/v1/auth/link', { ticket, password: 'guessed-password-1' })
    expect(limited.status).toBe(429)
    expect(limited.body.error?.details).toMatchObject({ limit: 'login_account' })
    expect(await rowCounts(e.app)).toEqual(before)
    const login = await fetch(`${e.base}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'guessed@example.com', password: 'guessed-password-1' }),
    })
    expect(login.status).toBe(429)
  })
})

describe('one identity per issuer', () => {
  test('a new Google account with the address replaces the old one once the password proves it', async () => {
    await passwordAccount('moved@example.com', 'moved-password-1')
    const first = await post('/v1/auth/link', {
      ticket: await ticketFor('first'),
      password: 'moved-password-1',
    })
    expect(first.status).toBe(200)
    expect(await identitiesOf('moved@example.com')).toEqual([{ subject: 'first', provider: 'google' }])

    // The address now belongs to another account at Google (another subject): not signed in by address.
    s.op.accounts.set('second', { email: 'moved@example.com', email_verified: true, name: 'Second Holder' })
    const landed = await signInWithGoogle(s, e, 'second')
    expect([...landed.fragment.keys()]).toEqual(['link_ticket'])
    const ticket = landed.fragment.get('link_ticket')!
    const second = await post('/v1/auth/link', { ticket, password: 'moved-password-1' })
    expect(second.status).toBe(200)
    expect(await identitiesOf('moved@example.com')).toEqual([{ subject: 'second', provider: 'google' }])
    // The audit trail says which identity went.
    const links = (await auditRows(e.app)).filter((a) => a.action === 'identity.linked')
    expect(JSON.parse(links.at(-1)!.details!)).toEqual({
      provider: 'google',
      issuer: s.op.issuer,
      replaced_subject: 'first',
    })

    // The old Google account no longer signs the account in; it is offered a link like a stranger.
    const old = await signInWithGoogle(s, e, 'first')
    expect([...old.fragment.keys()]).toEqual(['link_ticket'])
    const again = await signInWithGoogle(s, e, 'second')
    expect([...again.fragment.keys()]).toEqual(['access_token', 'token_type', 'expires_at'])
  })
})
