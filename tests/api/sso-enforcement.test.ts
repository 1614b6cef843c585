import { afterAll, describe, expect, test } from 'bun:test'
import {
  addMember,
  auditRows,
  authApp,
  bearer,
  expectError,
  form,
  mintKey,
  rows,
  signIn,
  signUp,
  tokenOf,
} from './accounts.fixture'

// Single sign-on enforcement: password sign-in refused with `sso_required` (also with a password
// just reset), password sessions ended, and the break-glass recovery codes that let an admin in
// with the password once each.

const t = authApp()
afterAll(() => t.close())

let n = 0
/** A workspace enforcing SSO (optionally), with an admin key that outlives the password sessions. */
async function enforcing(enforce = true) {
  n++
  const s = await signUp(t, { email: `admin${n}@enforce${n}.example.org` })
  const key = (await mintKey(t, s.token, ['admin'])).key
  const res = await t.request('/v1/enterprise/sso', {
    method: 'PUT',
    headers: bearer(key),
    json: {
      issuer: 'https://login.example.org',
      client_id: 'engram',
      client_secret: 'sso-secret',
      domains: [`enforce${n}.example.org`],
      enforce,
    },
  })
  expect(res.status).toBe(200)
  const codes = ((await res.json()) as { recovery_codes?: string[] }).recovery_codes ?? []
  return { ...s, key, codes }
}

const login = (fields: Record<string, string>) => t.request('/v1/auth/login', form(fields))
const me = (token: string) => t.request('/v1/auth/me', { headers: bearer(token) })

describe('password sign-in on an enforcing workspace', () => {
  test('the right password is refused with 403 sso_required; a wrong one still says invalid_credentials', async () => {
    const s = await enforcing()
    await expectError(
      await login({ username: s.email, password: s.password }),
      '/v1/auth/login',
      403,
      'sso_required',
      'This workspace signs in through single sign-on: use "Sign in with SSO" and your work address.',
    )
    await expectError(
      await login({ username: s.email, password: 'wrong password' }),
      '/v1/auth/login',
      401,
      'invalid_credentials',
    )
    // The frozen mount refuses it too.
    const frozen = await t.request('/auth/login', form({ username: s.email, password: s.password }))
    expect(frozen.status).toBe(403)
  })

  test('no sign-in is recorded for a refused password', async () => {
    const s = await enforcing()
    const before = await rows(
      t,
      'audit_events',
      `action = 'auth.sign_in' AND workspace_id = '${s.workspaceId}'`,
    )
    expect((await login({ username: s.email, password: s.password })).status).toBe(403)
    expect(
      await rows(t, 'audit_events', `action = 'auth.sign_in' AND workspace_id = '${s.workspaceId}'`),
    ).toBe(before)
  })

  test('forgot-password still answers sent, but the password set through it cannot sign in', async () => {
    const s = await enforcing()
    const forgot = await t.request('/v1/auth/forgot-password', { method: 'POST', json: { email: s.email } })
    expect(forgot.status).toBe(200)
    const link = ((await forgot.json()) as { status: string; reset_link: string }).reset_link
    const reset = await t.request('/v1/auth/reset-password', {
      method: 'POST',
      json: { token: tokenOf(link), password: 'a brand new password' },
    })
    expect(reset.status).toBe(200)
    await expectError(
      await login({ username: s.email, password: 'a brand new password' }),
      '/v1/auth/login',
      403,
      'sso_required',
    )
  })

  test('a workspace that set SSO up without enforcing it still takes passwords', async () => {
    const s = await enforcing(false)
    const token = (await signIn(t, s.email, s.password)).access_token
    expect((await me(token)).status).toBe(200)
  })

  test("another workspace's enforcement changes nothing for this one", async () => {
    await enforcing()
    const other = await signUp(t)
    expect((await me((await signIn(t, other.email, other.password)).access_token)).status).toBe(200)
  })
})

describe('password sessions end', () => {
  test('sessions signed in with a password end when enforcement is turned on (API keys go on)', async () => {
    const s = await enforcing(false)
    const member = await addMember(t, s.token)
    expect((await me(s.token)).status).toBe(200)
    expect((await me(member.token)).status).toBe(200)
    t.clock.advance(1000)
    const on = await t.request('/v1/enterprise/sso', {
      method: 'PUT',
      headers: bearer(s.key),
      json: {
        issuer: 'https://login.example.org',
        client_id: 'engram',
        domains: [s.email.split('@')[1]],
        enforce: true,
      },
    })
    expect(on.status).toBe(200)
    for (const token of [s.token, member.token]) {
      await expectError(
        await me(token),
        '/v1/auth/me',
        401,
        'unauthorized',
        'This session has ended: the workspace now signs in through single sign-on.',
      )
    }
    expect((await me(s.key)).status).toBe(200)
  })

  test('an ended session stays ended once enforcement is off again, or the set-up deleted', async () => {
    const s = await enforcing(false)
    const d = s.email.split('@')[1]
    const body = { issuer: 'https://login.example.org', client_id: 'engram', domains: [d] }
    const put = (enforce: boolean) =>
      t.request('/v1/enterprise/sso', { method: 'PUT', headers: bearer(s.key), json: { ...body, enforce } })
    t.clock.advance(1000)
    expect((await put(true)).status).toBe(200)
    expect((await put(false)).status).toBe(200)
    expect((await me(s.token)).status).toBe(401)
    expect((await t.request('/v1/enterprise/sso', { method: 'DELETE', headers: bearer(s.key) })).status).toBe(
      204,
    )
    expect((await me(s.token)).status).toBe(401)
    // A password sign-in after enforcement was lifted is a fresh session that works.
    t.clock.advance(1000)
    expect((await me((await signIn(t, s.email, s.password)).access_token)).status).toBe(200)
  })

  test('a refreshed password session carries how it was made and ends too', async () => {
    const s = await enforcing(false)
    t.clock.advance(7 * 3600 * 1000)
    const refreshed = await t.request('/v1/auth/refresh', { method: 'POST', headers: bearer(s.token) })
    const fresh = ((await refreshed.json()) as { access_token: string; refreshed: boolean }).access_token
    const d = s.email.split('@')[1]
    await t.request('/v1/enterprise/sso', {
      method: 'PUT',
      headers: bearer(s.key),
      json: { issuer: 'https://login.example.org', client_id: 'engram', domains: [d], enforce: true },
    })
    expect((await me(fresh)).status).toBe(401)
  })
})

describe('break-glass recovery codes', () => {
  test('an admin signs in once with the password and a code; the same code again is refused', async () => {
    const s = await enforcing()
    const code = s.codes[0]!
    const res = await login({ username: s.email, password: s.password, recovery_code: code.toUpperCase() })
    expect(res.status).toBe(200)
    const token = ((await res.json()) as { access_token: string }).access_token
    // The break-glass session is not ended by enforcement.
    expect((await me(token)).status).toBe(200)
    await expectError(
      await login({ username: s.email, password: s.password, recovery_code: code }),
      '/v1/auth/login',
      403,
      'invalid_recovery_code',
      'The recovery code is not valid or was already used.',
    )
    // Another code still works.
    expect(
      (await login({ username: s.email, password: s.password, recovery_code: s.codes[1]! })).status,
    ).toBe(200)
  })

  test('the use is audited: who, which code (by id), how many are left; the sign-in says recovery_code', async () => {
    const s = await enforcing()
    expect(
      (await login({ username: s.email, password: s.password, recovery_code: s.codes[2]! })).status,
    ).toBe(200)
    const used = (await auditRows(t, 'auth.recovery_code_used')).filter(
      (r) => r.workspace_id === s.workspaceId,
    )
    expect(used).toHaveLength(1)
    expect(used[0]).toMatchObject({ actor_type: 'user', actor_id: s.userId, target_id: s.userId })
    const details = JSON.parse(used[0]!.details) as Record<string, unknown>
    expect(details).toEqual({ recovery_code_id: expect.stringMatching(/^rc_/), codes_left: 9 })
    expect(used[0]!.details).not.toContain(s.codes[2]!)
    // The workspace's last sign-in by its chain's order (a row's place on disk moves when it is chained).
    const last = await t.sql.get<{ details: string }>(
      "SELECT details FROM audit_events WHERE action = 'auth.sign_in' AND workspace_id = ? ORDER BY seq DESC LIMIT 1",
      s.workspaceId,
    )
    expect(JSON.parse(last!.details)).toMatchObject({ method: 'recovery_code' })
    const view = await (await t.request('/v1/enterprise/sso', { headers: bearer(s.key) })).json()
    expect(view.recovery_codes_left).toBe(9)
  })

  test('a code with a wrong password, a made-up code, or a code of another workspace is refused and spends nothing', async () => {
    const a = await enforcing()
    const b = await enforcing()
    await expectError(
      await login({ username: a.email, password: 'wrong password', recovery_code: a.codes[0]! }),
      '/v1/auth/login',
      401,
      'invalid_credentials',
    )
    for (const code of ['aaaaa-bbbbb-ccccc-ddddd', b.codes[0]!]) {
      await expectError(
        await login({ username: a.email, password: a.password, recovery_code: code }),
        '/v1/auth/login',
        403,
        'invalid_recovery_code',
      )
    }
    expect(
      await rows(
        t,
        'sso_recovery_codes',
        `used_at IS NOT NULL AND workspace_id IN ('${a.workspaceId}', '${b.workspaceId}')`,
      ),
    ).toBe(0)
  })

  test('a member with a code is refused: break-glass is for admins', async () => {
    const s = await enforcing(false)
    const member = await addMember(t, s.token)
    const d = s.email.split('@')[1]
    const on = await t.request('/v1/enterprise/sso', {
      method: 'PUT',
      headers: bearer(s.key),
      json: { issuer: 'https://login.example.org', client_id: 'engram', domains: [d], enforce: true },
    })
    const codes = ((await on.json()) as { recovery_codes: string[] }).recovery_codes
    await expectError(
      await login({ username: member.email, password: member.password, recovery_code: codes[0]! }),
      '/v1/auth/login',
      403,
      'sso_required',
    )
    expect(
      await rows(t, 'sso_recovery_codes', `used_at IS NOT NULL AND workspace_id = '${s.workspaceId}'`),
    ).toBe(0)
  })

  test('a break-glass session that changes the password keeps how it was made, so it is not ended', async () => {
    const s = await enforcing()
    const res = await login({ username: s.email, password: s.password, recovery_code: s.codes[3]! })
    const token = ((await res.json()) as { access_token: string }).access_token
    const changed = await t.request('/v1/auth/change-password', {
      method: 'POST',
      headers: bearer(token),
      json: { current_password: s.password, new_password: 'another new password' },
    })
    expect(changed.status).toBe(200)
    const fresh = ((await changed.json()) as { access_token: string }).access_token
    expect((await me(fresh)).status).toBe(200)
    // The new password alone is still refused.
    await expectError(
      await login({ username: s.email, password: 'another new password' }),
      '/v1/auth/login',
      403,
      'sso_required',
    )
  })

  test('new codes make the earlier ones stop working', async () => {
    const s = await enforcing()
    const res = await t.request('/v1/enterprise/sso/recovery-codes', {
      method: 'POST',
      headers: bearer(s.key),
    })
    const fresh = ((await res.json()) as { recovery_codes: string[] }).recovery_codes
    await expectError(
      await login({ username: s.email, password: s.password, recovery_code: s.codes[0]! }),
      '/v1/auth/login',
      403,
      'invalid_recovery_code',
    )
    expect((await login({ username: s.email, password: s.password, recovery_code: fresh[0]! })).status).toBe(
      200,
    )
  })
})

describe('/auth/config', () => {
  test('sso_enabled says whether any workspace signs in through SSO', async () => {
    const fresh = authApp()
    try {
      const read = async () =>
        ((await (await fresh.request('/v1/auth/config')).json()) as { sso_enabled: boolean }).sso_enabled
      expect(await read()).toBe(false)
      const s = await signUp(fresh)
      await fresh.request('/v1/enterprise/sso', {
        method: 'PUT',
        headers: bearer(s.token),
        json: {
          issuer: 'https://login.example.org',
          client_id: 'c',
          client_secret: 's',
          domains: ['acme-sso.example.org'],
        },
      })
      expect(await read()).toBe(true)
    } finally {
      fresh.close()
    }
  })
})
