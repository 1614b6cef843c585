import { afterAll, describe, expect, test } from 'bun:test'
import { auditRows, authApp, bearer, form, issues, mintKey, rows, signUp, tokenOf } from './accounts.fixture'

// Issue 35 follow-up: an invitation accepted in a workspace that enforces single sign-on. Before,
// the invitee set a password and got a password session that enforcement ended at once. Now the
// invitation tells the page no password is asked (`sso_required` in invite-info), accepting makes
// the member without one and answers no session but `sso_required: true`, and the invitee signs in
// with SSO. Elsewhere the password stays required.

const t = authApp()
afterAll(() => t.close())

let n = 0
/** A workspace with SSO set up (enforced or not), its admin key, and an invitation to `role`. */
async function invited(enforce: boolean, role: 'admin' | 'member' = 'member') {
  n++
  const domain = `corp${n}.example.org`
  const s = await signUp(t, { email: `admin@${domain}` })
  const key = (await mintKey(t, s.token, ['admin'])).key
  const put = await t.request('/v1/enterprise/sso', {
    method: 'PUT',
    headers: bearer(key),
    json: {
      issuer: 'https://login.example.org',
      client_id: 'engram',
      client_secret: 's',
      domains: [domain],
      enforce,
    },
  })
  expect(put.status).toBe(200)
  const email = `invitee@${domain}`
  const inv = await t.request('/v1/admin/invites', {
    method: 'POST',
    headers: bearer(key),
    json: { email, role },
  })
  expect(inv.status).toBe(200)
  const token = tokenOf(((await inv.json()) as { invite_link: string }).invite_link)
  return { ...s, key, email, token }
}

const accept = (path: string, body: Record<string, unknown>) =>
  t.request(path, { method: 'POST', json: body })
const info = async (token: string) =>
  (await (await t.request('/v1/auth/invite-info', { method: 'POST', json: { token } })).json()) as {
    sso_required: boolean
  }
const userRow = async (email: string) =>
  (await t.sql.get<{
    id: string
    role: string
    password_hash: string | null
    email_verified_at: number | null
  }>('SELECT id, role, password_hash, email_verified_at FROM users WHERE email = ?', email)) ?? null

describe('an invitation to a workspace that enforces single sign-on', () => {
  test('invite-info says sso_required, so the page asks for no password', async () => {
    expect((await info((await invited(true)).token)).sso_required).toBe(true)
    expect((await info((await invited(false)).token)).sso_required).toBe(false)
  })

  test('accepting without a password makes the member, verified and with the invited role, and answers no session', async () => {
    const i = await invited(true, 'admin')
    const signIns = (await auditRows(t, 'auth.sign_in')).length
    for (const path of ['/v1/auth/accept-invite']) {
      const res = await accept(path, { token: i.token, name: 'Ivy' })
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({
        access_token: '',
        token_type: 'bearer',
        expires_at: null,
        email_verified: true,
        sso_required: true,
      })
    }
    const user = (await userRow(i.email))!
    expect(user).toMatchObject({ role: 'admin', password_hash: null })
    expect(user.email_verified_at).not.toBeNull()
    // No session was made, so no sign-in is recorded; the invitation is spent.
    expect((await auditRows(t, 'auth.sign_in')).length).toBe(signIns)
    expect(await rows(t, 'invites', `email = '${i.email}' AND accepted_at IS NOT NULL`)).toBe(1)
    const again = await accept('/v1/auth/accept-invite', { token: i.token, name: 'Ivy' })
    expect(again.status).toBe(400)
  })

  test('a password sent anyway (a page opened before enforcement) is not stored: it could never sign in', async () => {
    const i = await invited(true)
    const res = await accept('/auth/accept-invite', {
      token: i.token,
      password: 'invitee password',
      name: 'Ivy',
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ access_token: '', sso_required: true })
    expect((await userRow(i.email))!.password_hash).toBeNull()
    const login = await t.request('/v1/auth/login', form({ username: i.email, password: 'invitee password' }))
    expect(login.status).toBe(401)
  })
})

describe('an invitation to a workspace that does not enforce it', () => {
  test('still needs a password: without one it is a 422 on password, and the invitation stays open', async () => {
    const i = await invited(false)
    const res = await accept('/v1/auth/accept-invite', { token: i.token, name: 'Ivy' })
    expect((await issues(res, '/v1/auth/accept-invite')).map((x) => [x.loc, x.type])).toEqual([
      [['body', 'password'], 'missing'],
    ])
    expect(await userRow(i.email)).toBeNull()
    expect(await rows(t, 'invites', `email = '${i.email}' AND accepted_at IS NULL`)).toBe(1)
    const ok = await accept('/v1/auth/accept-invite', {
      token: i.token,
      name: 'Ivy',
      password: 'invitee password',
    })
    expect(ok.status).toBe(200)
    const body = (await ok.json()) as { access_token: string; sso_required?: boolean }
    expect(body.access_token).not.toBe('')
    expect(body).not.toHaveProperty('sso_required')
    expect((await t.request('/v1/auth/me', { headers: bearer(body.access_token) })).status).toBe(200)
  })
})

test('the OpenAPI document publishes sso_required and the optional password', async () => {
  const doc = (await (await t.request('/openapi.json')).json()) as {
    components: { schemas: Record<string, { properties: Record<string, unknown>; required?: string[] }> }
  }
  const s = doc.components.schemas
  expect(s.TokenResp!.properties).toHaveProperty('sso_required')
  expect(s.TokenResp!.required).not.toContain('sso_required')
  expect(s.InviteInfoResp!.required).toContain('sso_required')
  expect(s.AcceptInviteReq!.required).not.toContain('password')
})
