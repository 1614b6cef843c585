import { afterAll, describe, expect, test } from 'bun:test'
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
  rows,
  signIn,
  signUp,
  snapshot,
  tokenOf,
} from './accounts.fixture'

// The signed-in user's own account: `PATCH /auth/me` (display name) and `POST /auth/change-password`.

const t = authApp()
afterAll(() => t.close())

const HOUR = 3_600_000

const change = (path: string, token: string, body: object) =>
  t.request(path, { method: 'POST', headers: bearer(token), json: body })
const rename = (path: string, token: string, body: object) =>
  t.request(path, { method: 'PATCH', headers: bearer(token), json: body })
const me = (token: string) => t.request('/v1/auth/me', { headers: bearer(token) })
const passwordHash = (userId: string) =>
  t.sql.get<{ password_hash: string; token_version: number }>(
    'SELECT password_hash, token_version FROM users WHERE id = ?',
    userId,
  )

describe('change password', () => {
  test('sets the new password, ends every other session and answers a fresh one for the caller', async () => {
    const s = await signUp(t)
    const other = await signIn(t, s.email, s.password)
    const res = await change('/v1/auth/change-password', s.token, {
      current_password: s.password,
      new_password: 'a brand new secret',
    })
    expect(res.status).toBe(200)
    const body = (await res.json()) as Record<string, unknown>
    expect(body).toEqual({
      access_token: expect.any(String),
      token_type: 'bearer',
      expires_at: new Date(t.clock.now().getTime() + 12 * HOUR).toISOString(),
      email_verified: true,
    })
    // The fresh token works; the caller's old one and the other session do not.
    expect((await me(String(body.access_token))).status).toBe(200)
    await expectError(await me(s.token), '/v1', 401, 'unauthorized', 'This session has ended. Sign in again.')
    await expectError(await me(other.access_token), '/v1', 401, 'unauthorized')
    // Only the new password signs in.
    await expectError(
      await t.request('/v1/auth/login', form({ username: s.email, password: s.password })),
      '/v1',
      401,
      'invalid_credentials',
    )
    await signIn(t, s.email, 'a brand new secret')
    const audit = (await auditRows(t, 'auth.password_changed')).filter((r) => r.target_id === s.userId)
    expect(audit).toHaveLength(1)
    expect(audit[0]).toMatchObject({ workspace_id: s.workspaceId, actor_type: 'user', actor_id: s.userId })
    expect(audit[0]!.details).not.toContain('secret')
  })

  test('works on the frozen mount and keeps a remember-me session remember-me', async () => {
    const s = await signUp(t)
    const long = await signIn(t, s.email, s.password, true)
    const res = await change('/auth/change-password', long.access_token, {
      current_password: s.password,
      new_password: 'remembered secret',
    })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { expires_at: string }
    expect(Date.parse(body.expires_at)).toBe(t.clock.now().getTime() + 14 * 24 * HOUR)
  })

  test('a wrong current password is a 403 wrong_password that changes nothing', async () => {
    const s = await signUp(t)
    const before = await snapshot(t)
    const stored = await passwordHash(s.userId)
    for (const path of mounts('/auth/change-password')) {
      const res = await change(path, s.token, {
        current_password: 'not my password',
        new_password: 'whatever 123',
      })
      await expectError(res, path, 403, 'wrong_password', 'The current password is incorrect.')
    }
    expect(await passwordHash(s.userId)).toEqual(stored!)
    expect(await snapshot(t)).toEqual(before)
    // The session that asked is still signed in; the old password still works.
    expect((await me(s.token)).status).toBe(200)
    await signIn(t, s.email, s.password)
  })

  test('an account with no local password cannot change one (it uses forgot-password)', async () => {
    const s = await signUp(t)
    await t.sql.run('UPDATE users SET password_hash = NULL WHERE id = ?', s.userId)
    const res = await change('/v1/auth/change-password', s.token, {
      current_password: s.password,
      new_password: 'whatever 123',
    })
    await expectError(res, '/v1', 403, 'wrong_password')
    expect((await passwordHash(s.userId))?.password_hash).toBeNull()
  })

  test('no credential is a 401; an API key is a 403 session_required; neither writes', async () => {
    const s = await signUp(t)
    const key = await mintKey(t, s.token, ['admin'])
    const before = await snapshot(t)
    const stored = await passwordHash(s.userId)
    const body = { current_password: s.password, new_password: 'taken over 123' }
    for (const path of mounts('/auth/change-password')) {
      await expectError(await t.request(path, { method: 'POST', json: body }), path, 401, 'unauthorized')
      await expectError(await change(path, key.key, body), path, 403, 'session_required')
    }
    expect(await passwordHash(s.userId)).toEqual(stored!)
    expect(await snapshot(t)).toEqual(before)
  })

  test('a short new password, a missing field and an oversized one are 422s that write nothing', async () => {
    const s = await signUp(t)
    const before = await snapshot(t)
    const stored = await passwordHash(s.userId)
    for (const path of mounts('/auth/change-password')) {
      const short = await change(path, s.token, { current_password: s.password, new_password: 'short' })
      expect((await issues(short, path))[0]).toMatchObject({
        loc: ['body', 'new_password'],
        type: 'string_too_short',
      })
      const missing = await change(path, s.token, { new_password: 'long enough pw' })
      expect(await issues(missing, path)).toContainEqual(
        expect.objectContaining({ loc: ['body', 'current_password'], type: 'missing' }),
      )
      const long = await change(path, s.token, {
        current_password: 'x'.repeat(129),
        new_password: 'long enough',
      })
      expect((await issues(long, path))[0]).toMatchObject({ loc: ['body', 'current_password'] })
    }
    expect(await passwordHash(s.userId)).toEqual(stored!)
    expect(await snapshot(t)).toEqual(before)
  })

  test('a changed password spends outstanding reset links', async () => {
    const s = await signUp(t)
    t.clock.advance(120_000)
    const forgot = await t.request('/v1/auth/forgot-password', { method: 'POST', json: { email: s.email } })
    const link = ((await forgot.json()) as { reset_link: string }).reset_link
    const ok = await change('/v1/auth/change-password', s.token, {
      current_password: s.password,
      new_password: 'changed before reset',
    })
    expect(ok.status).toBe(200)
    const reset = await t.request('/v1/auth/reset-password', {
      method: 'POST',
      json: { token: tokenOf(link), password: 'attacker choice 1' },
    })
    await expectError(reset, '/v1', 400, 'invalid_token')
    await signIn(t, s.email, 'changed before reset')
  })

  test('wrong guesses count against the sign-in rate limit', async () => {
    const limited = authApp({
      env: { ENGRAM_RATE_LIMITS: 'on', ENGRAM_TRUSTED_PROXIES: 'loopback', ENGRAM_LOGIN_PER_IP_MINUTE: '2' },
    })
    try {
      const s = await signUp(limited)
      const guess = () =>
        limited.request('/v1/auth/change-password', {
          method: 'POST',
          headers: { ...bearer(s.token), 'x-forwarded-for': '10.8.8.8' },
          json: { current_password: 'guess guess', new_password: 'whatever 123' },
        })
      expect((await guess()).status).toBe(403)
      expect((await guess()).status).toBe(403)
      await expectError(await guess(), '/v1', 429, 'rate_limited')
    } finally {
      limited.close()
    }
  })
})

describe('change display name', () => {
  test('any member renames themself; the workspace name is untouched', async () => {
    const s = await signUp(t, { workspace_name: 'Kept Name' })
    const member = await addMember(t, s.token)
    for (const path of mounts('/auth/me')) {
      const res = await rename(path, member.token, { name: `  Mo ${path.length}  ` })
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({
        id: member.userId,
        email: member.email,
        name: `Mo ${path.length}`,
        workspace_id: s.workspaceId,
        workspace_name: 'Kept Name',
        role: 'member',
        email_verified: true,
      })
    }
    expect(await (await me(member.token)).json()).toMatchObject({ name: 'Mo 8' })
    // The admin's own name is theirs alone.
    expect(await (await me(s.token)).json()).toMatchObject({ name: 'Ada' })
  })

  test('blank, long and missing names are 422s; no credential 401; an API key 403; none writes', async () => {
    const s = await signUp(t)
    const key = await mintKey(t, s.token, ['admin'])
    const before = await snapshot(t)
    const name = async () =>
      (await t.sql.get<{ name: string }>('SELECT name FROM users WHERE id = ?', s.userId))?.name
    for (const path of mounts('/auth/me')) {
      const blank = await rename(path, s.token, { name: '   ' })
      expect((await issues(blank, path))[0]).toMatchObject({
        loc: ['body', 'name'],
        type: 'string_too_short',
      })
      const long = await rename(path, s.token, { name: 'n'.repeat(121) })
      expect((await issues(long, path))[0]).toMatchObject({ loc: ['body', 'name'], type: 'string_too_long' })
      expect(await issues(await rename(path, s.token, {}), path)).toContainEqual(
        expect.objectContaining({ loc: ['body', 'name'], type: 'missing' }),
      )
      const anon = await t.request(path, { method: 'PATCH', json: { name: 'Nobody' } })
      await expectError(anon, path, 401, 'unauthorized')
      await expectError(await rename(path, key.key, { name: 'Key' }), path, 403, 'session_required')
    }
    expect(await name()).toBe('Ada')
    expect(await snapshot(t)).toEqual(before)
    expect(await rows(t, 'users', `id = '${s.userId}' AND name = 'Ada'`)).toBe(1)
  })
})
