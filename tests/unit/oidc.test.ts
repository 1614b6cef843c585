import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { migrations } from '../../migrations/index'
import { expectedAlgorithm, issuerAllowed, OidcError, OidcRelyingParty } from '../../src/platform/auth/oidc'
import { FlowRefused, OidcFlowState, readCookie } from '../../src/platform/auth/oidc-flow'
import { ManualClock } from '../../src/platform/clock/clock'
import { loadConfig } from '../../src/platform/config/config.load'
import { cryptoRandom } from '../../src/platform/crypto/random'
import { openDatabase } from '../../src/platform/db/db'
import { migrate } from '../../src/platform/db/migrate'
import { sqliteStore } from '../../src/platform/db/store'
import { startProvider, type Tamper, type TestProvider } from '../helpers/oidc-provider'

// The shared relying party and flow cookie, against a real OpenID provider on loopback.

const REDIRECT = 'http://127.0.0.1:9/cb'
let op: TestProvider
const clock = new ManualClock(new Date())

beforeAll(async () => {
  op = await startProvider({
    clients: [{ client_id: 'rp', client_secret: 'rp-secret-rp-secret-rp-secret', redirect_uris: [REDIRECT] }],
    accounts: { alice: { email: 'alice@example.com', email_verified: true, name: 'Alice' } },
  })
})
afterAll(() => op.stop())

const settings = () => ({ issuer: op.issuer, clientId: 'rp', clientSecret: 'rp-secret-rp-secret-rp-secret' })

describe('the issuer rule', () => {
  test('https is accepted, http only on loopback or when allowed', () => {
    expect(issuerAllowed('https://accounts.google.com')).toBe(true)
    expect(issuerAllowed('http://127.0.0.1:8080')).toBe(true)
    expect(issuerAllowed('http://localhost:8080')).toBe(true)
    expect(issuerAllowed('http://[::1]:8080')).toBe(true)
    expect(issuerAllowed('http://idp.lab.internal')).toBe(false)
    expect(issuerAllowed('http://idp.lab.internal', true)).toBe(true)
    expect(issuerAllowed('ftp://idp.example.com', true)).toBe(false)
    expect(issuerAllowed('not a url')).toBe(false)
  })

  test('start-up refuses a plain-http issuer off loopback, and a client id without its secret', () => {
    const load = (env: Record<string, string>) => () => loadConfig({ env, readFile: () => null })
    const client = { ENGRAM_GOOGLE_CLIENT_ID: 'id', ENGRAM_GOOGLE_CLIENT_SECRET: 'secret' }
    expect(load({ ...client, ENGRAM_GOOGLE_ISSUER: 'http://idp.lab.internal' })).toThrow(
      /google\.issuer http:\/\/idp\.lab\.internal is plain http off loopback/,
    )
    expect(
      load({
        ...client,
        ENGRAM_GOOGLE_ISSUER: 'http://idp.lab.internal',
        ENGRAM_GOOGLE_ALLOW_HTTP_ISSUER: 'true',
      }),
    ).not.toThrow()
    expect(load({ ...client, ENGRAM_GOOGLE_ISSUER: 'http://127.0.0.1:9000' })).not.toThrow()
    expect(load({ ENGRAM_GOOGLE_CLIENT_ID: 'id' })).toThrow(
      /google\.client_id and google\.client_secret are set together/,
    )
    expect(load({})).not.toThrow()
  })

  test('the expected algorithm is asymmetric, RS256 when listed, never none', () => {
    expect(expectedAlgorithm(['none', 'HS256', 'ES256', 'RS256'])).toBe('RS256')
    expect(expectedAlgorithm(['none', 'HS256', 'ES256'])).toBe('ES256')
    expect(expectedAlgorithm(['none', 'HS256'])).toBeNull()
    expect(expectedAlgorithm(undefined)).toBe('RS256')
  })

  test('a plain-http issuer off loopback is refused before any request', async () => {
    const rp = new OidcRelyingParty({ clock, random: cryptoRandom })
    const err = await rp
      .authorizationUrl({ ...settings(), issuer: 'http://idp.lab.invalid' }, REDIRECT)
      .catch((e) => e)
    expect(err).toBeInstanceOf(OidcError)
    expect((err as OidcError).reason).toBe('insecure_issuer')
  })
})

describe('the relying party', () => {
  test('signs in through the code flow with PKCE, state and nonce, and returns verified claims', async () => {
    const rp = new OidcRelyingParty({ clock, random: cryptoRandom })
    const req = await rp.authorizationUrl(settings(), REDIRECT)
    expect(req.url.searchParams.get('code_challenge_method')).toBe('S256')
    expect(req.url.searchParams.get('state')).toBe(req.state)
    expect(req.url.searchParams.get('nonce')).toBe(req.nonce)
    const back = await op.signIn(req.url.href, 'alice')
    const claims = await rp.finish(settings(), back.searchParams, { ...req, redirectUri: REDIRECT })
    expect(claims).toEqual({
      issuer: op.issuer,
      subject: 'alice',
      email: 'alice@example.com',
      emailVerified: true,
      name: 'Alice',
    })
  })

  const attacks: [string, Tamper, RegExp][] = [
    ['signed with another key', { kind: 'other_key' }, /signature verification failed/],
    ['signed with alg none', { kind: 'alg_none' }, /"alg" header/],
    [
      'signed with HS256 keyed by the client secret',
      { kind: 'hs256', secret: 'rp-secret-rp-secret-rp-secret' },
      /"alg" header/,
    ],
    ['for another audience', { kind: 'claims', set: { aud: 'someone-else' } }, /"aud"/],
    ['from another issuer', { kind: 'claims', set: { iss: 'https://accounts.google.com' } }, /"iss"/],
    ['expired', { kind: 'claims', set: { exp: Math.floor(Date.now() / 1000) - 3600 } }, /"exp"/],
    ['with another nonce', { kind: 'claims', set: { nonce: 'not-the-nonce' } }, /"nonce"/],
  ]
  for (const [name, tamper, why] of attacks) {
    test(`refuses an ID token ${name}`, async () => {
      const rp = new OidcRelyingParty({ clock, random: cryptoRandom })
      const req = await rp.authorizationUrl(settings(), REDIRECT)
      const back = await op.signIn(req.url.href, 'alice')
      op.tamper = tamper
      try {
        const err = await rp
          .finish(settings(), back.searchParams, { ...req, redirectUri: REDIRECT })
          .catch((e) => e)
        expect(err).toBeInstanceOf(OidcError)
        expect((err as OidcError).reason).toBe('invalid_response')
        expect((err as OidcError).detail).toMatch(why)
      } finally {
        op.tamper = null
      }
    })
  }

  test('discovery is cached for its TTL on the injected clock', async () => {
    const c = new ManualClock(new Date())
    const rp = new OidcRelyingParty({ clock: c, random: cryptoRandom, discoveryTtlMs: 60_000 })
    const count = () => op.seen.filter((s) => s.endsWith('/.well-known/openid-configuration')).length
    const before = count()
    await rp.authorizationUrl(settings(), REDIRECT)
    await rp.authorizationUrl(settings(), REDIRECT)
    expect(count()).toBe(before + 1)
    c.advance(60_000)
    await rp.authorizationUrl(settings(), REDIRECT)
    expect(count()).toBe(before + 2)
  })

  test('the provider check reports discovery, keys and accepted client credentials', async () => {
    const rp = new OidcRelyingParty({ clock, random: cryptoRandom })
    const good = await rp.check(settings(), REDIRECT)
    expect(good.map((c) => [c.name, c.ok])).toEqual([
      ['discovery', true],
      ['jwks', true],
      ['token_endpoint', true],
    ])
    const bad = await rp.check({ ...settings(), clientSecret: 'wrong' }, REDIRECT)
    expect(bad.map((c) => [c.name, c.ok])).toEqual([
      ['discovery', true],
      ['jwks', true],
      ['token_endpoint', false],
    ])
    const down = await rp.check({ ...settings(), issuer: 'http://127.0.0.1:9' }, REDIRECT)
    expect(down.map((c) => c.ok)).toEqual([false, false, false])
  })
})

describe('the flow cookie', () => {
  const values = { state: 's1', nonce: 'n1', codeVerifier: 'v1', payload: { workspace: 'ws_1' } }
  // Spent flows are rows: a migrated SQLite database in memory (both engines: oidc-flow-both.test.ts).
  const db = openDatabase(':memory:')
  migrate(db, migrations)
  const store = sqliteStore(db)
  const flowAt = (c: ManualClock) =>
    new OidcFlowState('flow-secret-flow-secret-flow-secret-00', c, store, {
      name: 'engram_test_flow',
      path: '/cb',
      secure: true,
    })
  const withCookie = (setCookie: string) =>
    new Request('https://x.test/cb', { headers: { cookie: `other=1; ${setCookie.split(';')[0]}` } })

  test('is HttpOnly, SameSite=Lax, Secure, path-scoped and short-lived', () => {
    const set = flowAt(new ManualClock(new Date())).issue(values)
    expect(set).toMatch(
      /^engram_test_flow=v1\.[A-Za-z0-9_-]+; Path=\/cb; Max-Age=600; HttpOnly; SameSite=Lax; Secure$/,
    )
    expect(set).not.toContain('ws_1')
  })

  test('gives its values back once, for the matching state only', async () => {
    const flow = flowAt(new ManualClock(new Date()))
    const set = flow.issue(values)
    await expect(flow.take(withCookie(set), 'other-state')).rejects.toThrow(new FlowRefused('state_mismatch'))
    expect(await flow.take(withCookie(set), 's1')).toEqual(values)
    await expect(flow.take(withCookie(set), 's1')).rejects.toThrow(new FlowRefused('replayed'))
  })

  test('refuses a missing, forged, foreign or expired cookie', async () => {
    const c = new ManualClock(new Date())
    const flow = flowAt(c)
    const set = flow.issue({ ...values, state: 's2' })
    await expect(flow.take(new Request('https://x.test/cb'), 's2')).rejects.toThrow(
      new FlowRefused('missing'),
    )
    const forged = set.replace(/=v1\.(.)/, (_m, ch) => `=v1.${ch === 'A' ? 'B' : 'A'}`)
    await expect(flow.take(withCookie(forged), 's2')).rejects.toThrow(new FlowRefused('forged'))
    const other = new OidcFlowState('another-secret-another-secret-another', c, store, {
      name: 'engram_test_flow',
      path: '/cb',
      secure: true,
    })
    await expect(other.take(withCookie(set), 's2')).rejects.toThrow(new FlowRefused('forged'))
    c.advance(600_000)
    await expect(flow.take(withCookie(set), 's2')).rejects.toThrow(new FlowRefused('expired'))
  })

  test('clearing sets an empty cookie that expires now', () => {
    expect(flowAt(new ManualClock(new Date())).clear()).toBe(
      'engram_test_flow=; Path=/cb; Max-Age=0; HttpOnly; SameSite=Lax; Secure',
    )
    expect(readCookie('a=1; b = 2 ', 'b')).toBe('2')
  })
})
