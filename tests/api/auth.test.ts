import { afterAll, describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { SessionTokens } from '../../src/platform/crypto/token'
import {
  addMember,
  auditRows,
  authApp,
  bearer,
  expectError,
  form,
  issues,
  mintKey,
  mounts,
  signIn,
  signUp,
  snapshot,
} from './accounts.fixture'

const t = authApp()
afterAll(() => t.close())

const HOUR = 3_600_000
const DAY = 24 * HOUR
const login = (path: string, fields: Record<string, string>) => t.request(path, form(fields))
const me = (token: string, path = '/v1/auth/me') => t.request(path, { headers: bearer(token) })
const refresh = (token: string, path = '/v1/auth/refresh') =>
  t.request(path, { method: 'POST', headers: bearer(token) })

describe('login', () => {
  test('the password form signs in on both mounts; a normal session lasts 12 hours', async () => {
    const s = await signUp(t)
    for (const path of mounts('/auth/login')) {
      const res = await login(path, { username: ` ${s.email.toUpperCase()} `, password: s.password })
      expect(res.status).toBe(200)
      const body = await res.json()
      expect(body).toEqual({
        access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
        token_type: 'bearer',
        expires_at: new Date(t.clock.now().getTime() + 12 * HOUR).toISOString(),
        email_verified: true,
      })
      expect((await me(body.access_token)).status).toBe(200)
    }
  })

  test('remember_me mints the long-lived class; the OAuth2 extras are accepted', async () => {
    const s = await signUp(t)
    for (const remember of ['true', 'on', '1']) {
      const res = await login('/v1/auth/login', {
        username: s.email,
        password: s.password,
        remember_me: remember,
        grant_type: 'password',
        scope: '',
      })
      expect((await res.json()).expires_at).toBe(new Date(t.clock.now().getTime() + 14 * DAY).toISOString())
    }
    const normal = await login('/v1/auth/login', {
      username: s.email,
      password: s.password,
      remember_me: 'false',
    })
    expect((await normal.json()).expires_at).toBe(new Date(t.clock.now().getTime() + 12 * HOUR).toISOString())
  })

  test('each sign-in writes an audit row; a refused one writes only its auth.sign_in_failed row', async () => {
    const s = await signUp(t)
    const before = (await auditRows(t, 'auth.sign_in')).length
    await signIn(t, s.email, s.password, true)
    const rows = await auditRows(t, 'auth.sign_in')
    expect(rows).toHaveLength(before + 1)
    expect(rows.at(-1)).toMatchObject({
      workspace_id: s.workspaceId,
      actor_id: s.userId,
      target_id: s.userId,
    })
    expect(JSON.parse(rows.at(-1)!.details)).toEqual({ method: 'password', session_class: 'remember' })
    const snap = await snapshot(t)
    await login('/v1/auth/login', { username: s.email, password: 'wrong password' })
    // Issue 36: a security reviewer sees refused sign-ins of the workspace's accounts; the password tried is never kept.
    expect(await snapshot(t)).toEqual({ ...snap, audit_events: snap.audit_events! + 1 })
    const failed = (await auditRows(t, 'auth.sign_in_failed')).at(-1)!
    expect(failed).toMatchObject({ workspace_id: s.workspaceId, actor_id: s.userId, target_id: s.userId })
    expect(JSON.parse(failed.details)).toEqual({ method: 'password', reason: 'invalid_credentials' })
    // An address nobody holds belongs to no workspace: nothing is written.
    const again = await snapshot(t)
    await login('/v1/auth/login', { username: 'nobody-at-all@example.com', password: 'wrong password' })
    expect(await snapshot(t)).toEqual(again)
  })

  test('a wrong password and an unknown address get the same 401 on both mounts', async () => {
    const s = await signUp(t)
    for (const path of mounts('/auth/login')) {
      for (const fields of [
        { username: s.email, password: 'not the password' },
        { username: 'nobody@example.com', password: s.password },
        { username: 'not-even-an-address', password: 'x' },
      ]) {
        await expectError(
          await login(path, fields),
          path,
          401,
          'invalid_credentials',
          'Incorrect email or password.',
        )
      }
    }
  })

  test('missing or malformed form fields are 422s; JSON instead of a form is a 415', async () => {
    const s = await signUp(t)
    const before = await snapshot(t)
    for (const path of mounts('/auth/login')) {
      expect(await issues(await login(path, { username: s.email }), path)).toEqual([
        { loc: ['body', 'password'], msg: 'Field required', type: 'missing' },
      ])
      expect((await issues(await login(path, { password: 'x' }), path))[0]?.loc).toEqual(['body', 'username'])
      const remember = await login(path, { username: s.email, password: s.password, remember_me: 'forever' })
      expect((await issues(remember, path))[0]?.loc).toEqual(['body', 'remember_me'])
      const long = await login(path, { username: s.email, password: 'p'.repeat(129) })
      expect((await issues(long, path))[0]?.type).toBe('string_too_long')
      const json = await t.request(path, {
        method: 'POST',
        json: { username: s.email, password: s.password },
      })
      await expectError(json, path, 415, 'unsupported_media_type')
    }
    expect(await snapshot(t)).toEqual(before)
  })

  test('a deactivated account cannot sign in and its sessions stop working', async () => {
    const s = await signUp(t)
    const m = await addMember(t, s.token)
    await t.sql.run("UPDATE users SET status = 'deactivated' WHERE id = ?", m.userId)
    for (const path of mounts('/auth/login')) {
      const res = await login(path, { username: m.email, password: m.password })
      await expectError(res, path, 403, 'account_disabled', 'This account is deactivated.')
    }
    for (const path of mounts('/auth/me')) {
      await expectError(await me(m.token, path), path, 403, 'account_disabled')
    }
    expect((await me(s.token)).status).toBe(200)
  })

  test('a suspended workspace refuses sign-in, its sessions and its API keys', async () => {
    const s = await signUp(t)
    const key = await mintKey(t, s.token, ['query'])
    // As an operator's tool would, from another process: the app learns of it as of any commit.
    await t.sql.runElsewhere("UPDATE workspaces SET status = 'suspended' WHERE id = ?", s.workspaceId)
    try {
      await expectError(
        await login('/v1/auth/login', { username: s.email, password: s.password }),
        '/v1',
        403,
        'workspace_suspended',
      )
      for (const path of mounts('/status')) {
        await expectError(
          await t.request(path, { headers: bearer(s.token) }),
          path,
          403,
          'workspace_suspended',
        )
        await expectError(
          await t.request(path, { headers: bearer(key.key) }),
          path,
          403,
          'workspace_suspended',
        )
      }
    } finally {
      await t.sql.runElsewhere("UPDATE workspaces SET status = 'active' WHERE id = ?", s.workspaceId)
    }
    expect((await t.request('/v1/status', { headers: bearer(key.key) })).status).toBe(200)
  })

  test('sign-in is rate limited per client IP when limits are on', async () => {
    const limited = authApp({
      env: { ENGRAM_RATE_LIMITS: 'on', ENGRAM_TRUSTED_PROXIES: 'loopback', ENGRAM_LOGIN_PER_IP_MINUTE: '2' },
    })
    try {
      const s = await signUp(limited)
      const attempt = (ip: string) =>
        limited.request('/v1/auth/login', {
          ...form({ username: s.email, password: 'wrong guess' }),
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip },
        })
      expect((await attempt('10.9.9.9')).status).toBe(401)
      expect((await attempt('10.9.9.9')).status).toBe(401)
      const third = await attempt('10.9.9.9')
      expect(third.headers.get('retry-after')).toBe('60')
      await expectError(third, '/v1', 429, 'rate_limited')
      expect((await attempt('10.9.9.10')).status).toBe(401)
      limited.clock.advance(60_000)
      expect((await attempt('10.9.9.9')).status).toBe(401)
    } finally {
      limited.close()
    }
  })
})

describe('session tokens', () => {
  test('a session expires after its lifetime', async () => {
    const s = await signUp(t)
    const { access_token } = await signIn(t, s.email, s.password)
    t.clock.advance(12 * HOUR - 1000)
    expect((await me(access_token)).status).toBe(200)
    t.clock.advance(1000)
    for (const path of mounts('/auth/me')) {
      await expectError(
        await me(access_token, path),
        path,
        401,
        'unauthorized',
        'Session expired. Sign in again.',
      )
    }
  })

  test('garbage, tampered, unsigned and foreign-signed tokens are 401s on both mounts', async () => {
    const s = await signUp(t)
    const [h, p, sig] = s.token.split('.') as [string, string, string]
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString())
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')
    const elevated = b64({ ...claims, sub: 'usr_someoneelse000000', ver: claims.ver })
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${p}.`
    const hs = (key: string, body: string) => createHmac('sha256', key).update(body).digest('base64url')
    const foreign = `${h}.${p}.${hs('some-other-secret', `${h}.${p}`)}`
    const other = new SessionTokens('another-server-secret-another-server-secret', {
      normal: 3600,
      remember: 3600,
      cap: 7200,
    }).issue({ userId: s.userId, workspaceId: s.workspaceId, tokenVersion: 0 }, 'normal', claims.iat).token
    const bad = [
      'garbage',
      'a.b.c',
      `${h}.${elevated}.${sig}`,
      none,
      foreign,
      other,
      `${s.token}x`,
      `${h}.${p}`,
      'x'.repeat(5000),
      'ek_short',
    ]
    for (const path of mounts('/auth/me')) {
      for (const token of bad) {
        const res = await me(token, path)
        expect(res.headers.get('www-authenticate')).toBe('Bearer')
        await expectError(res, path, 401, 'unauthorized')
      }
      for (const header of ['Basic dXNlcjpwdw==', 'Bearer', `Token ${s.token}`, `Bearer ${s.token} extra`]) {
        const res = await t.request(path, { headers: { authorization: header } })
        await expectError(res, path, 401, 'unauthorized')
      }
    }
    expect(
      (await t.request('/v1/auth/me', { headers: { authorization: `bearer  ${s.token}` } })).status,
    ).toBe(200)
  })

  test('a removed member is signed out on the next request', async () => {
    const s = await signUp(t)
    const m = await addMember(t, s.token)
    expect((await me(m.token)).status).toBe(200)
    expect(
      (await t.request(`/v1/admin/members/${m.userId}`, { method: 'DELETE', headers: bearer(s.token) }))
        .status,
    ).toBe(204)
    await expectError(await me(m.token), '/v1', 401, 'unauthorized', 'This session has ended. Sign in again.')
  })

  test('a deactivation or password reset committed by another process applies on the next request', async () => {
    const s = await signUp(t)
    const m = await addMember(t, s.token)
    for (let i = 0; i < 2; i++) {
      expect((await me(m.token)).status).toBe(200)
      expect((await me(s.token)).status).toBe(200)
    }
    await t.sql.runElsewhere("UPDATE users SET status = 'deactivated' WHERE id = ?", m.userId)
    await expectError(await me(m.token), '/v1', 403, 'account_disabled')
    expect((await me(s.token)).status).toBe(200)
    await t.sql.runElsewhere('UPDATE users SET token_version = token_version + 1 WHERE id = ?', s.userId)
    await expectError(await me(s.token), '/v1', 401, 'unauthorized', 'This session has ended. Sign in again.')
  })

  test('a role change applies on the next request of an existing session', async () => {
    const s = await signUp(t)
    const m = await addMember(t, s.token)
    await expectError(
      await t.request('/v1/admin/members', { headers: bearer(m.token) }),
      '/v1',
      403,
      'admin_required',
    )
    await t.request(`/v1/admin/members/${m.userId}`, {
      method: 'PATCH',
      headers: bearer(s.token),
      json: { role: 'admin' },
    })
    expect((await t.request('/v1/admin/members', { headers: bearer(m.token) })).status).toBe(200)
  })
})

describe('refresh', () => {
  test('before half its life a token is kept unchanged; past it, a fresh one of the same class', async () => {
    const s = await signUp(t)
    const { access_token } = await signIn(t, s.email, s.password)
    t.clock.advance(6 * HOUR - 1000)
    for (const path of mounts('/auth/refresh')) {
      const kept = await refresh(access_token, path)
      expect(kept.status).toBe(200)
      expect(await kept.json()).toEqual({
        access_token,
        token_type: 'bearer',
        expires_at: new Date(t.clock.now().getTime() + 6 * HOUR + 1000).toISOString(),
        email_verified: true,
        refreshed: false,
        session_class: 'normal',
      })
    }
    t.clock.advance(1000)
    const swapped = await (await refresh(access_token)).json()
    expect(swapped.refreshed).toBe(true)
    expect(swapped.access_token).not.toBe(access_token)
    expect(swapped.session_class).toBe('normal')
    expect(swapped.expires_at).toBe(new Date(t.clock.now().getTime() + 12 * HOUR).toISOString())
    expect((await me(swapped.access_token)).status).toBe(200)
  })

  test('a remember-me session refreshes as remember-me and never past the absolute cap', async () => {
    const s = await signUp(t)
    const start = t.clock.now().getTime()
    let token = (await signIn(t, s.email, s.password, true)).access_token
    t.clock.advance(8 * DAY)
    let r = await (await refresh(token)).json()
    expect(r).toMatchObject({ refreshed: true, session_class: 'remember' })
    expect(r.expires_at).toBe(new Date(start + 22 * DAY).toISOString())
    token = r.access_token
    t.clock.advance(8 * DAY)
    r = await (await refresh(token)).json()
    // 16 + 14 = 30 days: exactly the cap.
    expect(r).toMatchObject({ refreshed: true, expires_at: new Date(start + 30 * DAY).toISOString() })
    token = r.access_token
    t.clock.advance(7 * DAY)
    r = await (await refresh(token)).json()
    expect(r).toMatchObject({
      refreshed: false,
      access_token: token,
      expires_at: new Date(start + 30 * DAY).toISOString(),
    })
    t.clock.advance(7 * DAY - 1000)
    expect((await me(token)).status).toBe(200)
    t.clock.advance(1000)
    for (const path of mounts('/auth/refresh')) {
      await expectError(
        await refresh(token, path),
        path,
        401,
        'unauthorized',
        'Session expired. Sign in again.',
      )
    }
  })

  test('the cap is configurable and applies to normal sessions too', async () => {
    const short = authApp({ env: { ENGRAM_SESSION_HOURS: '10', ENGRAM_SESSION_CAP_DAYS: '1' } })
    try {
      const s = await signUp(short)
      const start = short.clock.now().getTime()
      expect((await (await short.request('/v1/auth/me', { headers: bearer(s.token) })).json()).id).toBe(
        s.userId,
      )
      short.clock.advance(20 * HOUR)
      const dead = await short.request('/v1/auth/refresh', { method: 'POST', headers: bearer(s.token) })
      expect(dead.status).toBe(401)
      const fresh = (await signIn(short, s.email, s.password)).access_token
      short.clock.advance(6 * HOUR)
      const r = await (
        await short.request('/v1/auth/refresh', { method: 'POST', headers: bearer(fresh) })
      ).json()
      expect(r.expires_at).toBe(new Date(start + 20 * HOUR + 16 * HOUR).toISOString())
      short.clock.advance(9 * HOUR)
      const r2 = await (
        await short.request('/v1/auth/refresh', { method: 'POST', headers: bearer(r.access_token) })
      ).json()
      expect(r2.expires_at).toBe(new Date(start + 20 * HOUR + 24 * HOUR).toISOString())
    } finally {
      short.close()
    }
  })

  test('refresh with no or a bad token is a 401', async () => {
    for (const path of mounts('/auth/refresh')) {
      await expectError(await t.request(path, { method: 'POST' }), path, 401, 'unauthorized')
      await expectError(await refresh('nope', path), path, 401, 'unauthorized')
    }
  })
})
