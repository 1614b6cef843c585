import { afterAll, describe, expect, test } from 'bun:test'
import { startupWarnings } from '../../src/cli/serve'
import { loadConfig } from '../../src/platform/config/config.load'
import type { TestApp } from '../helpers/app'
import { address, authApp, bearer, expectError, form, insertionOrder, signUp } from './accounts.fixture'

// Issue 32, item 2: behind a reverse proxy every socket is the proxy's. Sign-in is limited per
// account and per client address as the trusted proxy reports it, so one guesser cannot lock
// everyone out, and a guesser cannot spread one account's guesses over many addresses.

const PROXY = '127.0.0.1'
const apps: TestApp[] = []
const app = (env: Record<string, string> = {}) => {
  const t = authApp({ env: { ENGRAM_RATE_LIMITS: 'on', ...env } })
  apps.push(t)
  return t
}
afterAll(() => {
  for (const t of apps) t.close()
})

/** A sign-in as nginx on the same host forwards it: from loopback, `xff` as the proxy wrote it. */
const login = (t: TestApp, username: string, password: string, xff?: string, peer = PROXY) =>
  t.request('/v1/auth/login', {
    ...form({ username, password }),
    peer,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(xff === undefined ? {} : { 'x-forwarded-for': xff }),
    },
  })

/** The `limit` a 429 names. */
const limitOf = async (res: Response) => {
  expect(res.status).toBe(429)
  return ((await res.json()) as { error: { details: { limit: string } } }).error.details.limit
}

describe('sign-in behind a trusted proxy on the same host', () => {
  test('25 bad attempts at other accounts from many clients do not lock anyone else out', async () => {
    const t = app({ ENGRAM_TRUSTED_PROXIES: 'loopback' })
    const victim = await signUp(t)
    for (let i = 0; i < 25; i++) {
      const res = await login(t, address('target'), 'wrong guess', `198.51.100.${i + 1}`)
      expect(res.status).toBe(401)
    }
    const ok = await login(t, victim.email, victim.password, '203.0.113.50')
    expect(ok.status).toBe(200)
  })

  test('the same 25 without the proxy trusted would all share the proxy address (the old lock-out)', async () => {
    const t = app()
    const victim = await signUp(t)
    const statuses: number[] = []
    for (let i = 0; i < 25; i++) {
      statuses.push((await login(t, address('target'), 'wrong guess', `198.51.100.${i + 1}`)).status)
    }
    expect(statuses.filter((s) => s === 429).length).toBe(5)
    expect(await limitOf(await login(t, victim.email, victim.password, '203.0.113.50'))).toBe('login')
    // ...and the operator is told once which setting fixes it.
    const told = t.log.lines.filter((l) => String(l.msg).includes('ENGRAM_TRUSTED_PROXIES'))
    expect(told).toMatchObject([{ level: 'warn', peer: PROXY, header: 'x-forwarded-for' }])
  })

  test('one client is still limited per address', async () => {
    const t = app({ ENGRAM_TRUSTED_PROXIES: 'loopback', ENGRAM_LOGIN_PER_IP_MINUTE: '3' })
    for (let i = 0; i < 3; i++) expect((await login(t, address(), 'x', '198.51.100.1')).status).toBe(401)
    expect(await limitOf(await login(t, address(), 'x', '198.51.100.1'))).toBe('login')
    expect((await login(t, address(), 'x', '198.51.100.2')).status).toBe(401)
  })

  test('a spoofed left-most X-Forwarded-For entry neither escapes the limit nor reaches the audit trail', async () => {
    const settings: Record<string, string>[] = [
      { ENGRAM_TRUSTED_PROXIES: 'loopback' },
      { ENGRAM_TRUST_PROXY: 'true' },
    ]
    for (const env of settings) {
      const t = app({ ...env, ENGRAM_LOGIN_PER_IP_MINUTE: '3' })
      const s = await signUp(t)
      // The client writes a fresh address each time; nginx appends the one it saw.
      for (let i = 0; i < 3; i++) {
        expect((await login(t, address(), 'x', `10.0.0.${i + 1}, 203.0.113.9`)).status).toBe(401)
      }
      expect(await limitOf(await login(t, address(), 'x', '10.0.0.99, 203.0.113.9'))).toBe('login')
      const other = await login(t, s.email, s.password, '10.0.0.1, 198.51.100.77')
      expect(other.status).toBe(200)
      const ips = (
        await t.sql.all<{ ip: string }>(
          `SELECT ip FROM audit_events WHERE action = 'auth.sign_in' ORDER BY ${insertionOrder(t)}`,
        )
      ).map((r) => r.ip)
      expect(ips.at(-1)).toBe('198.51.100.77')
    }
  })

  test('forwarded headers from a peer that is not a trusted proxy are ignored', async () => {
    const t = app({ ENGRAM_TRUSTED_PROXIES: '10.0.0.0/8', ENGRAM_LOGIN_PER_IP_MINUTE: '2' })
    // A client connecting directly cannot pick a fresh address per guess.
    for (let i = 0; i < 2; i++) {
      expect((await login(t, address(), 'x', `198.51.100.${i}`, '203.0.113.66')).status).toBe(401)
    }
    expect(await limitOf(await login(t, address(), 'x', '198.51.100.9', '203.0.113.66'))).toBe('login')
    const warned = t.log.lines.filter((l) => String(l.msg).includes('ENGRAM_TRUSTED_PROXIES'))
    expect(warned).toMatchObject([{ level: 'warn', peer: '203.0.113.66' }])
  })
})

describe('the per-account limit', () => {
  test('caps guesses at one account whatever client addresses they come from, then the window passes', async () => {
    const t = app({ ENGRAM_TRUSTED_PROXIES: 'loopback' })
    const victim = await signUp(t)
    const bystander = await signUp(t)
    for (let i = 0; i < 10; i++) {
      expect((await login(t, victim.email, 'wrong guess', `198.51.100.${i + 1}`)).status).toBe(401)
    }
    // The 11th guess, from a fresh address and in another spelling of the address, is refused before
    // the password is checked: the right password is refused too, until the minute is over.
    const refused = await login(t, ` ${victim.email.toUpperCase()} `, victim.password, '198.51.100.200')
    expect(refused.headers.get('retry-after')).toBe('60')
    expect(await limitOf(refused)).toBe('login_account')
    // Other accounts are not touched, from the same addresses.
    expect((await login(t, bystander.email, bystander.password, '198.51.100.1')).status).toBe(200)
    // An unknown address is limited the same way, so a 429 tells nothing about accounts.
    const nobody = address('nobody')
    for (let i = 0; i < 10; i++) await login(t, nobody, 'x', `192.0.2.${i + 1}`)
    expect(await limitOf(await login(t, nobody, 'x', '192.0.2.200'))).toBe('login_account')
    t.clock.advance(60_000)
    expect((await login(t, victim.email, victim.password, '198.51.100.200')).status).toBe(200)
  })

  test('password changes count against the account too', async () => {
    const t = app({ ENGRAM_TRUSTED_PROXIES: 'loopback', ENGRAM_LOGIN_PER_ACCOUNT_MINUTE: '2' })
    const s = await signUp(t)
    const guess = (ip: string) =>
      t.request('/v1/auth/change-password', {
        method: 'POST',
        peer: PROXY,
        headers: { ...bearer(s.token), 'x-forwarded-for': ip },
        json: { current_password: 'guess guess', new_password: 'whatever 123' },
      })
    expect((await guess('198.51.100.1')).status).toBe(403)
    expect((await guess('198.51.100.2')).status).toBe(403)
    await expectError(await guess('198.51.100.3'), '/v1', 429, 'rate_limited')
  })

  test('reset and verification requests are limited per address asked for, apart from sign-in', async () => {
    const t = app({ ENGRAM_TRUSTED_PROXIES: 'loopback', ENGRAM_LOGIN_PER_ACCOUNT_MINUTE: '3' })
    const s = await signUp(t)
    const forgot = (ip: string, path = '/v1/auth/forgot-password') =>
      t.request(path, {
        method: 'POST',
        json: { email: s.email },
        peer: PROXY,
        headers: { 'x-forwarded-for': ip },
      })
    for (let i = 0; i < 3; i++) expect((await forgot(`198.51.100.${i + 1}`)).status).toBe(200)
    expect(await limitOf(await forgot('198.51.100.9'))).toBe('link_account')
    expect(await limitOf(await forgot('198.51.100.9', '/v1/auth/resend-verification'))).toBe('link_account')
    // Asking for links does not keep the owner from signing in.
    expect((await login(t, s.email, s.password, '203.0.113.5')).status).toBe(200)
  })
})

describe('configuration', () => {
  test('a bad trusted proxy entry stops the server from starting, naming it', () => {
    expect(() =>
      loadConfig({ env: { ENGRAM_TRUSTED_PROXIES: 'loopback, nginx' }, readFile: () => null }),
    ).toThrow('server.trusted_proxies: "nginx" is not an address')
    expect(loadConfig({ env: {}, readFile: () => null }).accounts.login_per_account_minute).toBe(10)
  })

  test('the older ENGRAM_TRUST_PROXY=true is warned about at start-up, naming the setting to prefer', () => {
    const notices = (env: Record<string, string>) =>
      startupWarnings(
        loadConfig({ env: { ENGRAM_EMAIL: 'smtp://mail.example.com', ...env }, readFile: () => null }),
      )
    expect(notices({ ENGRAM_TRUST_PROXY: 'true' })).toEqual([
      { level: 'warn', msg: expect.stringContaining('Set ENGRAM_TRUSTED_PROXIES') },
    ])
    expect(notices({ ENGRAM_TRUSTED_PROXIES: 'loopback' })).toEqual([])
  })
})
