import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Tamper } from '../helpers/oidc-provider'
import {
  CLIENT_SECRET,
  type Engram,
  land,
  rowCounts,
  type Stage,
  stage,
  startLogin,
} from './identity.fixture'

// Attacks on Google sign-in, each refused with nothing written (issue 35): a replayed, forged or
// cross-browser state; ID tokens signed with `none`, HS256 or another key, for another audience or
// issuer, expired, or with another nonce; an address the provider did not verify. The provider is a
// real OpenID provider on loopback whose token answers the test can tamper with. None of it puts a
// secret, code, state or token in the log.

let s: Stage
let e: Engram

beforeAll(async () => {
  s = await stage(
    {
      alice: { email: 'alice@example.com', email_verified: true, name: 'Alice' },
      mallory: { email: 'mallory@example.com', email_verified: true, name: 'Mallory' },
      unverified: { email: 'unverified@example.com', email_verified: false, name: 'Unverified' },
    },
    [{ ENGRAM_SIGNUP_MODE: 'open' }],
  )
  e = s.engrams[0]!
})
afterAll(() => s.stop())

/** Expects the landing to be the sign-in page with `code`, and no session or ticket anywhere. */
function refused(landed: Awaited<ReturnType<typeof land>>, code: string) {
  expect(landed.status).toBe(302)
  expect(`${landed.location.origin}${landed.location.pathname}`).toBe(`${e.base}/console/sign-in`)
  expect(landed.error).toBe(code)
  expect(landed.location.hash).toBe('')
  // The flow cookie is cleared whatever happened.
  expect(landed.setCookie).toContain('engram_google_flow=; Path=/v1/auth/google/callback; Max-Age=0')
}

describe('the flow is bound to the browser and used once', () => {
  test('a replayed callback (same URL, same cookie) is refused after the first sign-in', async () => {
    const started = await startLogin(e)
    const back = await s.op.signIn(started.authorizationUrl, 'alice')
    const first = await land(back, started.cookie)
    expect(first.fragment.get('access_token')).toBeTruthy()
    const before = await rowCounts(e.app)
    refused(await land(back, started.cookie), 'invalid_state')
    expect(await rowCounts(e.app)).toEqual(before)
  })

  test('a forged state is refused', async () => {
    const before = await rowCounts(e.app)
    const started = await startLogin(e)
    const back = await s.op.signIn(started.authorizationUrl, 'mallory')
    back.searchParams.set('state', 'forged-state-forged-state-forged-state-0000')
    refused(await land(back, started.cookie), 'invalid_state')
    expect(await rowCounts(e.app)).toEqual(before)
  })

  test("a callback from another browser's sign-in is refused (login CSRF)", async () => {
    const before = await rowCounts(e.app)
    // Mallory signs in at the provider in her browser, then lures the victim to her callback URL.
    const mallorys = await startLogin(e)
    const lure = await s.op.signIn(mallorys.authorizationUrl, 'mallory')
    const victims = await startLogin(e)
    refused(await land(lure, victims.cookie), 'invalid_state')
    // A victim who never started a sign-in has no flow cookie at all.
    refused(await land(lure, null), 'invalid_state')
    expect(await rowCounts(e.app)).toEqual(before)
  })

  test('an altered flow cookie, or one past its ten minutes, is refused', async () => {
    const before = await rowCounts(e.app)
    const started = await startLogin(e)
    const back = await s.op.signIn(started.authorizationUrl, 'mallory')
    const [name, value] = started.cookie.split('=') as [string, string]
    refused(await land(back, `${name}=${value.slice(0, -4)}AAAA`), 'invalid_state')
    e.app.clock.advance(10 * 60_000)
    refused(await land(back, started.cookie), 'invalid_state')
    e.app.clock.set(new Date())
    expect(await rowCounts(e.app)).toEqual(before)
  })
})

describe('the ID token must check out', () => {
  const attacks: [string, () => Tamper, RegExp][] = [
    ['signed with alg none', () => ({ kind: 'alg_none' }), /"alg" header/],
    [
      'signed with HS256 keyed by the client secret',
      () => ({ kind: 'hs256', secret: CLIENT_SECRET }),
      /"alg" header/,
    ],
    [
      'signed with another key under the same key id',
      () => ({ kind: 'other_key' }),
      /signature verification failed/,
    ],
    ['for another audience', () => ({ kind: 'claims', set: { aud: 'another-client' } }), /"aud"/],
    ['from another issuer', () => ({ kind: 'claims', set: { iss: 'https://accounts.google.com' } }), /"iss"/],
    ['expired', () => ({ kind: 'claims', set: { exp: Math.floor(Date.now() / 1000) - 3600 } }), /"exp"/],
    [
      'with another nonce',
      () => ({ kind: 'claims', set: { nonce: 'a-nonce-from-another-flow' } }),
      /"nonce"/,
    ],
  ]
  for (const [name, tamper, why] of attacks) {
    test(`an ID token ${name} is refused and nothing is written`, async () => {
      const before = await rowCounts(e.app)
      const started = await startLogin(e)
      const back = await s.op.signIn(started.authorizationUrl, 'mallory')
      s.op.tamper = tamper()
      try {
        refused(await land(back, started.cookie), 'provider_sign_in_failed')
      } finally {
        s.op.tamper = null
      }
      expect(await rowCounts(e.app)).toEqual(before)
      const line = e.app.log.lines.findLast((l) => l.msg === 'google sign-in refused')
      expect(line).toMatchObject({ reason: 'invalid_response' })
      expect(String(line?.detail)).toMatch(why)
    })
  }

  test('an address the provider has not verified is refused', async () => {
    const before = await rowCounts(e.app)
    const started = await startLogin(e)
    const back = await s.op.signIn(started.authorizationUrl, 'unverified')
    refused(await land(back, started.cookie), 'email_not_verified')
    expect(await rowCounts(e.app)).toEqual(before)
  })

  test("the provider's own refusal (the person cancelled) is passed on", async () => {
    const started = await startLogin(e)
    const state = new URL(started.authorizationUrl).searchParams.get('state')!
    const back = new URL(`${e.base}/v1/auth/google/callback?error=access_denied&state=${state}`)
    refused(await land(back, started.cookie), 'access_denied')
  })
})

describe('secrets', () => {
  test('no client secret, code, state, nonce, token or ticket reaches the log or a public answer', async () => {
    const started = await startLogin(e)
    const back = await s.op.signIn(started.authorizationUrl, 'alice')
    const landed = await land(back, started.cookie)
    const auth = new URL(started.authorizationUrl)
    // A link ticket too: mallory's address gets a password account, then signs in with Google.
    await e.app.sql.runElsewhere("DELETE FROM users WHERE email = 'mallory@example.com'")
    const reg = await fetch(`${e.base}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        workspace_name: 'M',
        name: 'M',
        email: 'mallory@example.com',
        password: 'mallory-pass',
      }),
    })
    expect(reg.status).toBe(200)
    const linkStart = await startLogin(e)
    const linkBack = await s.op.signIn(linkStart.authorizationUrl, 'mallory')
    const ticket = (await land(linkBack, linkStart.cookie)).fragment.get('link_ticket')!
    const info = await fetch(`${e.base}/v1/auth/link-info`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ticket }),
    })
    expect(info.status).toBe(200)
    const secrets = [
      CLIENT_SECRET,
      back.searchParams.get('code')!,
      auth.searchParams.get('state')!,
      auth.searchParams.get('nonce')!,
      started.cookie.split('=')[1]!,
      landed.fragment.get('access_token')!,
      ticket,
    ]
    // The attacks above logged their refusals in the same log.
    const log = JSON.stringify(e.app.log.lines)
    expect(log).toContain('google sign-in refused')
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(10)
      expect(log).not.toContain(secret)
    }
    const pub = (
      await Promise.all(
        ['/auth/config', '/openapi.json'].map((p) => fetch(`${e.base}${p}`).then((r) => r.text())),
      )
    ).join()
    expect(pub).not.toContain(CLIENT_SECRET)
    expect(auth.href).not.toContain(CLIENT_SECRET)
  })
})
