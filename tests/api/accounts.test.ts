import { afterAll, describe, expect, test } from 'bun:test'
import { SessionTokens } from '../../src/platform/crypto/token'
import type { TestApp } from '../helpers/app'
import {
  address,
  auditRows,
  authApp,
  bearer,
  expectError,
  form,
  issues,
  mounts,
  rows,
  signUp,
  snapshot,
  tokenOf,
} from './accounts.fixture'

const apps: TestApp[] = []
function app(env: Record<string, string> = {}): TestApp {
  const t = authApp({ env })
  apps.push(t)
  return t
}
afterAll(() => {
  for (const t of apps) t.close()
})

const register = (
  t: TestApp,
  path: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) => t.request(path, { method: 'POST', json: body, headers })

const valid = () => ({ email: address(), password: 'correct horse', workspace_name: 'Acme', name: 'Ada' })

describe('registration in invite mode', () => {
  const t = app()

  test('creates a beta workspace with a verified admin and signs them in, on both mounts', async () => {
    for (const path of mounts('/auth/register')) {
      const email = address('Mixed.Case')
      const res = await register(t, path, {
        email: `${email.toUpperCase()}`,
        password: 'correct horse',
        workspace_name: '  Acme Corp  ',
        name: ' Ada ',
      })
      expect(res.status).toBe(200)
      const body = await res.json()
      expect(body).toEqual({
        access_token: expect.any(String),
        token_type: 'bearer',
        expires_at: '2026-03-02T00:00:00.000Z',
        email_verified: true,
      })
      const me = await (await t.request('/v1/auth/me', { headers: bearer(body.access_token) })).json()
      expect(me).toEqual({
        id: expect.stringMatching(/^usr_/),
        email: email.toLowerCase(),
        name: 'Ada',
        workspace_id: expect.stringMatching(/^ws_/),
        workspace_name: 'Acme Corp',
        role: 'admin',
        email_verified: true,
      })
      const ws = await t.sql.get<{ plan: string; status: string }>(
        'SELECT plan, status FROM workspaces WHERE id = ?',
        me.workspace_id,
      )
      expect(ws).toEqual({ plan: 'beta', status: 'active' })
      const pw = await t.sql.get<{ password_hash: string }>(
        'SELECT password_hash FROM users WHERE id = ?',
        me.id,
      )
      expect(pw?.password_hash).toStartWith('$argon2id$')
    }
  })

  test('records a sign-in audit row for the new admin', async () => {
    const s = await signUp(t)
    const row = (await auditRows(t, 'auth.sign_in')).find((r) => r.actor_id === s.userId)
    expect(row).toMatchObject({ workspace_id: s.workspaceId, actor_type: 'user', target_id: s.userId })
    expect(JSON.parse(row!.details)).toEqual({ method: 'register', session_class: 'normal' })
  })

  test('a duplicate address, in any case, is a 409 email_taken and writes nothing', async () => {
    const s = await signUp(t)
    for (const path of mounts('/auth/register')) {
      const before = await snapshot(t)
      const res = await register(t, path, { ...valid(), email: ` ${s.email.toUpperCase()}` })
      // A leading space is not an address: the schema refuses it before the duplicate check.
      expect(res.status).toBe(422)
      const dup = await register(t, path, { ...valid(), email: s.email.toUpperCase() })
      await expectError(dup, path, 409, 'email_taken', 'An account with this email already exists.')
      expect(await snapshot(t)).toEqual(before)
    }
  })

  test('names are trimmed; blank, over-long or missing fields are 422s that write nothing', async () => {
    const cases: [Record<string, unknown>, (string | number)[], string][] = [
      [{ name: '   ' }, ['body', 'name'], 'string_too_short'],
      [{ workspace_name: '\t \n' }, ['body', 'workspace_name'], 'string_too_short'],
      [{ name: '' }, ['body', 'name'], 'string_too_short'],
      [{ name: 'x'.repeat(121) }, ['body', 'name'], 'string_too_long'],
      [{ workspace_name: 'x'.repeat(121) }, ['body', 'workspace_name'], 'string_too_long'],
      [{ password: 'short' }, ['body', 'password'], 'string_too_short'],
      [{ password: 'x'.repeat(129) }, ['body', 'password'], 'string_too_long'],
      [{ email: `${'a'.repeat(250)}@example.com` }, ['body', 'email'], 'string_too_long'],
      [{ email: undefined }, ['body', 'email'], 'missing'],
      [{ password: undefined }, ['body', 'password'], 'missing'],
      [{ name: 42 }, ['body', 'name'], 'string_type'],
    ]
    for (const path of mounts('/auth/register')) {
      for (const [over, loc, type] of cases) {
        const before = await snapshot(t)
        const found = await issues(await register(t, path, { ...valid(), ...over }), path)
        expect(found).toContainEqual(expect.objectContaining({ loc, type }))
        expect(await snapshot(t)).toEqual(before)
      }
    }
    const ok = await register(t, '/v1/auth/register', { ...valid(), name: 'x'.repeat(120) })
    expect(ok.status).toBe(200)
  })

  test('malformed email addresses are 422s on both mounts', async () => {
    const bad = [
      'plain',
      'a@',
      '@example.com',
      'a b@example.com',
      'a@example',
      'a@exa mple.com',
      'a@@example.com',
      '',
    ]
    for (const path of mounts('/auth/register')) {
      const before = await snapshot(t)
      for (const email of bad) {
        const found = await issues(await register(t, path, { ...valid(), email }), path)
        expect(found[0]?.loc).toEqual(['body', 'email'])
      }
      expect(await snapshot(t)).toEqual(before)
    }
  })

  test('a body that is not JSON or not an object is refused with the right status', async () => {
    const before = await snapshot(t)
    const garbled = await t.request('/v1/auth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"email":',
    })
    await expectError(garbled, '/v1/auth/register', 400, 'malformed_json')
    const list = await register(t, '/auth/register', [] as unknown as Record<string, unknown>)
    expect(list.status).toBe(422)
    const asForm = await t.request('/auth/register', form(valid() as Record<string, string>))
    await expectError(asForm, '/auth/register', 415, 'unsupported_media_type')
    expect(await snapshot(t)).toEqual(before)
  })

  test('addresses at disposable domains are refused with a 422 naming the field', async () => {
    for (const path of mounts('/auth/register')) {
      for (const email of ['someone@mailinator.com', 'someone@yopmail.com', 'x@10minutemail.com']) {
        const before = await snapshot(t)
        const found = await issues(await register(t, path, { ...valid(), email }), path)
        expect(found).toEqual([
          {
            loc: ['body', 'email'],
            msg: 'Disposable email addresses are not accepted',
            type: 'disposable_email',
          },
        ])
        expect(await snapshot(t)).toEqual(before)
      }
    }
  })

  test('with the registration switch off, sign-up is a 403 registration_closed that writes nothing', async () => {
    const closed = app({ ENGRAM_REGISTRATION: 'off' })
    for (const path of mounts('/auth/register')) {
      await expectError(
        await register(closed, path, valid()),
        path,
        403,
        'registration_closed',
        'Registration is closed on this server.',
      )
    }
    expect(await snapshot(closed)).toEqual(
      Object.fromEntries(Object.keys(await snapshot(closed)).map((k) => [k, 0])),
    )
  })

  test('registration is rate limited per client IP, and the window passes', async () => {
    const limited = app({
      ENGRAM_RATE_LIMITS: 'on',
      ENGRAM_TRUSTED_PROXIES: 'loopback',
      ENGRAM_REGISTER_PER_IP_HOUR: '2',
    })
    const from = (ip: string) => ({ 'x-forwarded-for': ip })
    expect((await register(limited, '/v1/auth/register', valid(), from('10.0.0.1'))).status).toBe(200)
    expect((await register(limited, '/auth/register', valid(), from('10.0.0.1'))).status).toBe(200)
    const before = await snapshot(limited)
    const third = await register(limited, '/v1/auth/register', valid(), from('10.0.0.1'))
    expect(third.headers.get('retry-after')).toBe('3600')
    await expectError(third, '/v1/auth/register', 429, 'rate_limited')
    await expectError(
      await register(limited, '/auth/register', valid(), from('10.0.0.1')),
      '/auth/register',
      429,
      'rate_limited',
    )
    expect(await snapshot(limited)).toEqual(before)
    expect((await register(limited, '/v1/auth/register', valid(), from('10.0.0.2'))).status).toBe(200)
    limited.clock.advance(3_600_000)
    expect((await register(limited, '/v1/auth/register', valid(), from('10.0.0.1'))).status).toBe(200)
  })
})

describe('open sign-up', () => {
  const open = (env: Record<string, string> = {}) => app({ ENGRAM_SIGNUP_MODE: 'open', ...env })

  test('lands on the default plan, unverified, with an empty token and the link when email is off', async () => {
    const t = open()
    for (const path of mounts('/auth/register')) {
      const email = address()
      const res = await register(t, path, { ...valid(), email })
      expect(res.status).toBe(200)
      const body = await res.json()
      expect(body).toEqual({
        access_token: '',
        token_type: 'bearer',
        expires_at: null,
        email_verified: false,
        link_delivery: 'response',
        verify_link: expect.stringMatching(
          /^http:\/\/localhost:8080\/console\/verify-email\?token=[0-9A-Za-z]{43}$/,
        ),
      })
      const u = await t.sql.get<{ plan: string; verified: number | null }>(
        'SELECT w.plan, u.email_verified_at AS verified FROM users u JOIN workspaces w ON w.id = u.workspace_id WHERE u.email = ?',
        email,
      )
      expect(u).toEqual({ plan: 'free', verified: null })
      // Only the SHA-256 of the link secret is stored.
      const stored = await t.sql.all<{ token_hash: string }>('SELECT token_hash FROM email_tokens')
      expect(stored.map((r) => r.token_hash)).not.toContain(tokenOf(body.verify_link))
    }
    expect(await auditRows(t, 'auth.sign_in')).toHaveLength(0)
  })

  test('the workspace plan follows ENGRAM_DEFAULT_PLAN', async () => {
    const t = open({ ENGRAM_DEFAULT_PLAN: 'team', ENGRAM_REGISTRATION: 'off' })
    expect((await register(t, '/v1/auth/register', valid())).status).toBe(200)
    expect((await t.sql.get<{ plan: string }>('SELECT plan FROM workspaces'))?.plan).toBe('team')
  })

  test('an unverified account is refused everywhere until the link is used, then works', async () => {
    const t = open()
    const email = address()
    const reg = await (await register(t, '/v1/auth/register', { ...valid(), email })).json()
    for (const path of mounts('/auth/login')) {
      const res = await t.request(path, form({ username: email, password: 'correct horse' }))
      await expectError(
        res,
        path,
        403,
        'email_not_verified',
        'Email address not verified. Use the link we sent you.',
      )
    }
    // Even a genuinely signed token for the account is refused while the address is unverified.
    const user = (await t.sql.get<{ id: string; workspace_id: string }>(
      'SELECT id, workspace_id FROM users WHERE email = ?',
      email,
    ))!
    const forged = new SessionTokens(t.deps.secret, { normal: 3600, remember: 3600, cap: 7200 }).issue(
      { userId: user.id, workspaceId: user.workspace_id, tokenVersion: 0 },
      'normal',
      Math.floor(t.clock.now().getTime() / 1000),
    ).token
    for (const path of [...mounts('/auth/me'), ...mounts('/status'), ...mounts('/admin/members')]) {
      await expectError(await t.request(path, { headers: bearer(forged) }), path, 403, 'email_not_verified')
    }
    const verified = await t.request(`/v1/auth/verify-email?token=${tokenOf(reg.verify_link)}`)
    expect(verified.status).toBe(200)
    expect(await verified.json()).toEqual({ status: 'verified' })
    expect((await t.request('/v1/auth/me', { headers: bearer(forged) })).status).toBe(200)
    const login = await t.request('/v1/auth/login', form({ username: email, password: 'correct horse' }))
    expect(login.status).toBe(200)
    expect((await login.json()).email_verified).toBe(true)
  })

  test('a verification link works once; a replay is a 400 on both mounts', async () => {
    const t = open()
    const reg = await (await register(t, '/v1/auth/register', valid())).json()
    const token = tokenOf(reg.verify_link)
    expect((await t.request(`/auth/verify-email?token=${token}`)).status).toBe(200)
    for (const path of mounts('/auth/verify-email')) {
      await expectError(
        await t.request(`${path}?token=${token}`),
        path,
        400,
        'invalid_token',
        'The link is invalid, already used or expired.',
      )
    }
  })

  test('garbage, missing and over-long verification tokens are 4xx and write nothing', async () => {
    const t = open()
    await register(t, '/v1/auth/register', valid())
    const before = await snapshot(t)
    for (const path of mounts('/auth/verify-email')) {
      for (const garbage of ['x', 'A'.repeat(43), '%00%01', "'; DROP TABLE users; --"]) {
        await expectError(await t.request(`${path}?token=${garbage}`), path, 400, 'invalid_token')
      }
      expect((await issues(await t.request(path), path))[0]?.loc).toEqual(['query', 'token'])
      expect((await issues(await t.request(`${path}?token=${'a'.repeat(257)}`), path))[0]?.type).toBe(
        'string_too_long',
      )
    }
    expect(await snapshot(t)).toEqual(before)
    expect(await rows(t, 'users', 'email_verified_at IS NOT NULL')).toBe(0)
  })

  test('a link expires counting from when it was sent; a resend gives a fresh one and kills the old', async () => {
    const t = open()
    const email = address()
    const first = tokenOf(
      (await (await register(t, '/v1/auth/register', { ...valid(), email })).json()).verify_link,
    )
    t.clock.advance(23 * 3_600_000)
    const resent = await (
      await t.request('/v1/auth/resend-verification', { method: 'POST', json: { email } })
    ).json()
    expect(resent).toEqual({ status: 'sent', link_delivery: 'response', verify_link: expect.any(String) })
    const second = tokenOf(resent.verify_link)
    expect(second).not.toBe(first)
    await expectError(await t.request(`/v1/auth/verify-email?token=${first}`), '/v1', 400, 'invalid_token')
    // 24 h after the first send but only 2 h after the resend: the new link still works.
    t.clock.advance(2 * 3_600_000)
    expect((await t.request(`/v1/auth/verify-email?token=${second}`)).status).toBe(200)

    const other = address()
    const link = tokenOf(
      (await (await register(t, '/v1/auth/register', { ...valid(), email: other })).json()).verify_link,
    )
    t.clock.advance(24 * 3_600_000)
    await expectError(await t.request(`/auth/verify-email?token=${link}`), '/auth', 400, 'invalid_token')
    expect(await rows(t, 'users', `email = '${other}' AND email_verified_at IS NULL`)).toBe(1)
  })

  test('resend always answers sent, and honours a per-address cooldown', async () => {
    const t = open({ ENGRAM_RESEND_COOLDOWN_SECONDS: '60' })
    const email = address()
    await register(t, '/v1/auth/register', { ...valid(), email })
    for (const path of mounts('/auth/resend-verification')) {
      const tokens = await rows(t, 'email_tokens')
      const res = await t.request(path, { method: 'POST', json: { email } })
      expect(await res.json()).toEqual({ status: 'sent', link_delivery: 'response' })
      expect(await rows(t, 'email_tokens')).toBe(tokens)
    }
    t.clock.advance(60_000)
    const again = await (
      await t.request('/auth/resend-verification', { method: 'POST', json: { email } })
    ).json()
    expect(again.verify_link).toBeString()
    const before = await snapshot(t)
    const unknown = await t.request('/v1/auth/resend-verification', {
      method: 'POST',
      json: { email: 'nobody@example.com' },
    })
    expect(await unknown.json()).toEqual({ status: 'sent', link_delivery: 'response' })
    expect(await snapshot(t)).toEqual(before)
    const bad = await t.request('/v1/auth/resend-verification', { method: 'POST', json: { email: 'nope' } })
    expect(bad.status).toBe(422)
  })

  test('the open sign-up limit per IP is separate from, and on top of, the registration limit', async () => {
    const t = open({
      ENGRAM_RATE_LIMITS: 'on',
      ENGRAM_TRUSTED_PROXIES: 'loopback',
      ENGRAM_REGISTER_PER_IP_HOUR: '100',
      ENGRAM_OPEN_SIGNUP_PER_IP_DAY: '1',
    })
    const from = (ip: string) => ({ 'x-forwarded-for': ip })
    expect((await register(t, '/v1/auth/register', valid(), from('10.1.1.1'))).status).toBe(200)
    const before = await snapshot(t)
    await expectError(
      await register(t, '/v1/auth/register', valid(), from('10.1.1.1')),
      '/v1',
      429,
      'rate_limited',
    )
    expect(await snapshot(t)).toEqual(before)
    expect((await register(t, '/v1/auth/register', valid(), from('10.1.1.2'))).status).toBe(200)
    t.clock.advance(86_400_000)
    expect((await register(t, '/v1/auth/register', valid(), from('10.1.1.1'))).status).toBe(200)
  })
})

describe('request access', () => {
  test('always answers pending, and repeats while pending do not stack', async () => {
    const t = app()
    for (const path of mounts('/auth/request-access')) {
      const res = await t.request(path, { method: 'POST', json: { email: 'Curious@Example.com' } })
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ status: 'pending' })
    }
    expect(await rows(t, 'access_requests')).toBe(1)
    expect(await rows(t, 'access_requests', "email = 'curious@example.com' AND status = 'pending'")).toBe(1)
    const bad = await t.request('/request-access', { method: 'POST', json: { email: 'nope' } })
    expect(bad.status).toBe(404)
    for (const path of mounts('/auth/request-access')) {
      expect((await issues(await t.request(path, { method: 'POST', json: {} }), path))[0]?.loc).toEqual([
        'body',
        'email',
      ])
    }
    expect(await rows(t, 'access_requests')).toBe(1)
  })
})
