import { afterAll, describe, expect, test } from 'bun:test'
import {
  addMember,
  address,
  authApp,
  bearer,
  expectError,
  form,
  issues,
  mintKey,
  mounts,
  rows,
  signIn,
  signUp,
  snapshot,
  tokenOf,
} from './accounts.fixture'

const t = authApp()
afterAll(() => t.close())

const forgot = (path: string, email: string) => t.request(path, { method: 'POST', json: { email } })
const reset = (path: string, token: string, password: string) =>
  t.request(path, { method: 'POST', json: { token, password } })

describe('forgot and reset password', () => {
  test('forgot-password always answers sent; the reset link is included only for a real account', async () => {
    const s = await signUp(t)
    for (const path of mounts('/auth/forgot-password')) {
      t.clock.advance(120_000)
      const res = await forgot(path, s.email.toUpperCase())
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({
        status: 'sent',
        link_delivery: 'response',
        reset_link: expect.stringMatching(
          /^http:\/\/localhost:8080\/console\/reset-password\?token=[0-9A-Za-z]{43}$/,
        ),
      })
      const before = await snapshot(t)
      expect(await (await forgot(path, 'nobody-here@example.com')).json()).toEqual({
        status: 'sent',
        link_delivery: 'response',
      })
      expect(await snapshot(t)).toEqual(before)
    }
  })

  test('a reset sets the new password, is single-use and ends every older session', async () => {
    const s = await signUp(t)
    const older = await signIn(t, s.email, s.password, true)
    const link = (await (await forgot('/v1/auth/forgot-password', s.email)).json()).reset_link
    const res = await reset('/auth/reset-password', tokenOf(link), 'a brand new secret')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'reset' })
    for (const token of [s.token, older.access_token]) {
      for (const path of mounts('/auth/me')) {
        await expectError(
          await t.request(path, { headers: bearer(token) }),
          path,
          401,
          'unauthorized',
          'This session has ended. Sign in again.',
        )
      }
    }
    const oldPw = await t.request('/v1/auth/login', form({ username: s.email, password: s.password }))
    await expectError(oldPw, '/v1', 401, 'invalid_credentials', 'Incorrect email or password.')
    const fresh = await signIn(t, s.email, 'a brand new secret')
    expect((await t.request('/v1/auth/me', { headers: bearer(fresh.access_token) })).status).toBe(200)
    for (const path of mounts('/auth/reset-password')) {
      const before = await snapshot(t)
      await expectError(await reset(path, tokenOf(link), 'yet another one'), path, 400, 'invalid_token')
      expect(await snapshot(t)).toEqual(before)
    }
    expect((await t.request('/v1/auth/me', { headers: bearer(fresh.access_token) })).status).toBe(200)
  })

  test('a reset grant expires counting from when it was sent', async () => {
    const s = await signUp(t)
    t.clock.advance(120_000)
    const link = (await (await forgot('/v1/auth/forgot-password', s.email)).json()).reset_link
    t.clock.advance(60 * 60_000)
    await expectError(
      await reset('/v1/auth/reset-password', tokenOf(link), 'new password 1'),
      '/v1',
      400,
      'invalid_token',
    )
    expect((await t.request('/v1/auth/me', { headers: bearer(s.token) })).status).toBe(200)
  })

  test('a newer reset link supersedes an older one, and requests are held to a per-address cooldown', async () => {
    const s = await signUp(t)
    t.clock.advance(120_000)
    const first = (await (await forgot('/v1/auth/forgot-password', s.email)).json()).reset_link
    const tokens = await rows(t, 'email_tokens')
    expect(await (await forgot('/v1/auth/forgot-password', s.email)).json()).toEqual({
      status: 'sent',
      link_delivery: 'response',
    })
    expect(await rows(t, 'email_tokens')).toBe(tokens)
    t.clock.advance(60_000)
    const second = (await (await forgot('/v1/auth/forgot-password', s.email)).json()).reset_link
    await expectError(
      await reset('/v1/auth/reset-password', tokenOf(first), 'new password 1'),
      '/v1',
      400,
      'invalid_token',
    )
    expect((await reset('/v1/auth/reset-password', tokenOf(second), 'new password 2')).status).toBe(200)
  })

  test('works for an account with no local password', async () => {
    const s = await signUp(t)
    await t.sql.run('UPDATE users SET password_hash = NULL WHERE id = ?', s.userId)
    const noPw = await t.request('/v1/auth/login', form({ username: s.email, password: s.password }))
    await expectError(noPw, '/v1', 401, 'invalid_credentials')
    t.clock.advance(120_000)
    const link = (await (await forgot('/v1/auth/forgot-password', s.email)).json()).reset_link
    expect(link).toBeString()
    expect((await reset('/v1/auth/reset-password', tokenOf(link), 'first local password')).status).toBe(200)
    await signIn(t, s.email, 'first local password')
  })

  test('garbage grants, short passwords and missing fields are 4xx that write nothing', async () => {
    await signUp(t)
    const before = await snapshot(t)
    for (const path of mounts('/auth/reset-password')) {
      await expectError(await reset(path, 'not-a-real-token', 'long enough pw'), path, 400, 'invalid_token')
      expect((await issues(await reset(path, 'x', 'short'), path))[0]?.loc).toEqual(['body', 'password'])
      expect((await issues(await reset(path, '', 'long enough pw'), path))[0]?.loc).toEqual(['body', 'token'])
      expect((await issues(await reset(path, 'x'.repeat(257), 'long enough pw'), path))[0]?.type).toBe(
        'string_too_long',
      )
      const missing = await t.request(path, { method: 'POST', json: { token: 'abc' } })
      expect(await issues(missing, path)).toContainEqual(
        expect.objectContaining({ loc: ['body', 'password'], type: 'missing' }),
      )
    }
    for (const path of mounts('/auth/forgot-password')) {
      expect((await issues(await forgot(path, 'not an address'), path))[0]?.loc).toEqual(['body', 'email'])
    }
    expect(await snapshot(t)).toEqual(before)
  })
})

describe('me, setup and config', () => {
  test('/auth/me answers the UserResp of the session on both mounts; no credential is a 401', async () => {
    const s = await signUp(t, { workspace_name: 'Blue Team', name: 'Bea' })
    for (const path of mounts('/auth/me')) {
      const res = await t.request(path, { headers: bearer(s.token) })
      expect(await res.json()).toEqual({
        id: s.userId,
        email: s.email,
        name: 'Bea',
        workspace_id: s.workspaceId,
        workspace_name: 'Blue Team',
        role: 'admin',
        email_verified: true,
      })
      const anon = await t.request(path)
      expect(anon.headers.get('www-authenticate')).toBe('Bearer')
      await expectError(anon, path, 401, 'unauthorized', 'Not authenticated.')
    }
  })

  test('/auth/me describes an API key and its workspace; /auth/refresh needs a user session', async () => {
    const s = await signUp(t, { workspace_name: 'Keyed' })
    const key = await mintKey(t, s.token, ['admin', 'query'])
    const member = await mintKey(t, s.token, ['query'])
    const now = t.clock.now().toISOString()
    for (const path of mounts('/auth/me')) {
      const res = await t.request(path, { headers: bearer(key.key) })
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({
        kind: 'api_key',
        key: {
          id: key.id,
          name: 'key admin+query',
          prefix: key.prefix,
          scopes: ['query', 'admin'],
          corpus_ids: null,
          last_used_at: now,
          expires_at: null,
          revoked_at: null,
          created_at: now,
        },
        workspace_id: s.workspaceId,
        workspace_name: 'Keyed',
        role: 'admin',
      })
      const m = await (await t.request(path, { headers: bearer(member.key) })).json()
      expect(m).toMatchObject({ kind: 'api_key', key: { id: member.id, scopes: ['query'] }, role: 'member' })
      expect(JSON.stringify(m)).not.toContain(member.key)
    }
    for (const path of mounts('/auth/refresh')) {
      await expectError(
        await t.request(path, { method: 'POST', headers: bearer(key.key) }),
        path,
        403,
        'session_required',
      )
    }
  })

  test('/auth/setup renames the workspace and display name with the sign-up trimming rules', async () => {
    const s = await signUp(t)
    for (const path of mounts('/auth/setup')) {
      const res = await t.request(path, {
        method: 'POST',
        headers: bearer(s.token),
        json: { workspace_name: `  Renamed ${path.length} `, name: ' New Name ' },
      })
      expect(res.status).toBe(200)
      expect(await res.json()).toMatchObject({ workspace_name: `Renamed ${path.length}`, name: 'New Name' })
    }
    const member = await addMember(t, s.token)
    const before = await snapshot(t)
    for (const path of mounts('/auth/setup')) {
      const blank = await t.request(path, {
        method: 'POST',
        headers: bearer(s.token),
        json: { workspace_name: '   ', name: 'Ok' },
      })
      expect((await issues(blank, path))[0]).toMatchObject({
        loc: ['body', 'workspace_name'],
        type: 'string_too_short',
      })
      const long = await t.request(path, {
        method: 'POST',
        headers: bearer(s.token),
        json: { workspace_name: 'Ok', name: 'n'.repeat(121) },
      })
      expect((await issues(long, path))[0]).toMatchObject({ loc: ['body', 'name'], type: 'string_too_long' })
      const asMember = await t.request(path, {
        method: 'POST',
        headers: bearer(member.token),
        json: { workspace_name: 'Hijack', name: 'Mallory' },
      })
      await expectError(asMember, path, 403, 'admin_required', 'Workspace admin role required.')
    }
    const ws = await t.sql.get<{ name: string }>('SELECT name FROM workspaces WHERE id = ?', s.workspaceId)
    expect(ws?.name).toBe('Renamed 11')
    expect(await snapshot(t)).toEqual(before)
  })

  test('/auth/config tells the sign-up mode and sign-in options, with no credential', async () => {
    for (const path of mounts('/auth/config')) {
      expect(await (await t.request(path)).json()).toEqual({
        signup_mode: 'invite',
        registration_enabled: true,
        first_run: false,
        resend_cooldown_seconds: 60,
        billing_enabled: false,
        default_plan: 'free',
        email_enabled: false,
        link_delivery: 'response',
        // No ENGRAM_BASE_URL: links start with the default, and the console says how to set it.
        base_url_configured: false,
        link_base_url: 'http://localhost:8080',
        google_enabled: false,
        sso_enabled: false,
      })
    }
    const open = authApp({
      env: { ENGRAM_SIGNUP_MODE: 'open', ENGRAM_DEFAULT_PLAN: 'team', ENGRAM_EMAIL: 'smtp://127.0.0.1:9' },
    })
    try {
      expect(await (await open.request('/v1/auth/config')).json()).toMatchObject({
        signup_mode: 'open',
        default_plan: 'team',
        email_enabled: true,
        link_delivery: 'email',
        first_run: true,
      })
    } finally {
      open.close()
    }
  })

  test('an address already in use cannot be taken by a second sign-up even after a rename', async () => {
    const email = address()
    await signUp(t, { email })
    const res = await t.request('/auth/register', {
      method: 'POST',
      json: { email, password: 'another pw', workspace_name: 'Other', name: 'Eve' },
    })
    await expectError(res, '/auth', 409, 'email_taken')
  })
})
