import { afterAll, describe, expect, test } from 'bun:test'
import type { TestApp } from '../helpers/app'
import {
  addMember,
  auditRows,
  authApp,
  bearer,
  expectError,
  issues,
  mintKey,
  rows,
  signUp,
} from './accounts.fixture'

// A workspace admin's single sign-on set-up: /v1/enterprise/sso (GET, PUT, DELETE), its test and
// its recovery codes. The sign-in itself runs against a real provider in tests/e2e/sso-flow.test.ts.

const t = authApp({ env: { ENGRAM_BASE_URL: 'https://engram.example.org/' } })
/** The one callback the workspaces' providers send browsers back to. */
const REDIRECT_URI = 'https://engram.example.org/auth/sso/callback'
afterAll(() => t.close())

const SECRET = 'client-secret-7f3a9c1e5b'
const PATH = '/v1/enterprise/sso'

let domainCounter = 0
/** A fresh company domain (domains are claimed server-wide). */
function domain(): string {
  domainCounter++
  return `corp${domainCounter}.example.org`
}

function settings(over: Record<string, unknown> = {}) {
  return {
    issuer: 'https://login.example.org/realms/corp',
    client_id: 'engram',
    client_secret: SECRET,
    domains: [domain()],
    ...over,
  }
}

const put = (token: string, json: unknown) => t.request(PATH, { method: 'PUT', headers: bearer(token), json })
const get = (token: string) => t.request(PATH, { headers: bearer(token) })

/** Row counts of the sso tables and the audit log (to show a refused request wrote nothing). */
async function ssoRows(app: TestApp) {
  return {
    configs: await rows(app, 'sso_configs'),
    domains: await rows(app, 'sso_domains'),
    codes: await rows(app, 'sso_recovery_codes'),
    audit: await rows(app, 'audit_events'),
  }
}

describe('reading and saving the set-up', () => {
  test('a workspace without SSO answers {configured: false}', async () => {
    const s = await signUp(t)
    const res = await get(s.token)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ configured: false, redirect_uri: REDIRECT_URI })
  })

  test('PUT saves it and answers it whole, with the redirect URI and never the secret', async () => {
    const s = await signUp(t)
    const body = settings({
      domains: [' @Corp-A.example.org. ', 'corp-a.example.org', 'EU.Corp-A.example.org'],
    })
    const res = await put(s.token, body)
    expect(res.status).toBe(200)
    const saved = await res.json()
    expect(saved).toEqual({
      configured: true,
      issuer: 'https://login.example.org/realms/corp',
      client_id: 'engram',
      client_secret_set: true,
      domains: ['corp-a.example.org', 'eu.corp-a.example.org'],
      enforce: false,
      default_role: 'member',
      seat_cap: null,
      redirect_uri: REDIRECT_URI,
      recovery_codes_left: 0,
      updated_at: t.clock.now().toISOString(),
    })
    expect(await (await get(s.token)).json()).toEqual(saved)
    expect(JSON.stringify(saved)).not.toContain(SECRET)
  })

  test('the client secret is stored sealed, bound to its workspace, and never in the audit row', async () => {
    const s = await signUp(t)
    expect((await put(s.token, settings())).status).toBe(200)
    const row = (await t.sql.get<{ client_secret: string }>(
      'SELECT client_secret FROM sso_configs WHERE workspace_id = ?',
      s.workspaceId,
    ))!
    expect(row.client_secret).toStartWith('v1.')
    expect(row.client_secret).not.toContain(SECRET)
    const audit = (await auditRows(t, 'sso.configured')).find((r) => r.workspace_id === s.workspaceId)!
    expect(audit).toMatchObject({ actor_type: 'user', actor_id: s.userId, target_id: s.workspaceId })
    expect(JSON.parse(audit.details)).toMatchObject({ client_id: 'engram', client_secret_changed: true })
    expect(audit.details).not.toContain(SECRET)
  })

  test('a PUT without client_secret keeps the stored one; the first PUT needs it', async () => {
    const s = await signUp(t)
    const { client_secret: _, ...noSecret } = settings()
    const before = await ssoRows(t)
    const first = await put(s.token, noSecret)
    expect((await issues(first, PATH)).map((i) => i.loc)).toEqual([['body', 'client_secret']])
    expect(await ssoRows(t)).toEqual(before)
    expect((await put(s.token, settings({ domains: noSecret.domains }))).status).toBe(200)
    const sealed = async () =>
      (await t.sql.get<{ client_secret: string }>(
        'SELECT client_secret FROM sso_configs WHERE workspace_id = ?',
        s.workspaceId,
      ))!.client_secret
    const kept = await sealed()
    const again = await put(s.token, { ...noSecret, client_id: 'engram-2' })
    expect(again.status).toBe(200)
    expect(await again.json()).toMatchObject({ client_id: 'engram-2', client_secret_set: true })
    expect(await sealed()).toBe(kept)
  })

  test('settings are replaced whole: role, seat cap and domains', async () => {
    const s = await signUp(t)
    const d1 = domain()
    const d2 = domain()
    expect((await put(s.token, settings({ domains: [d1] }))).status).toBe(200)
    const res = await put(s.token, settings({ domains: [d2], default_role: 'admin', seat_cap: 5 }))
    expect(await res.json()).toMatchObject({ domains: [d2], default_role: 'admin', seat_cap: 5 })
    // The domain let go is free for another workspace.
    const other = await signUp(t)
    expect((await put(other.token, settings({ domains: [d1] }))).status).toBe(200)
  })
})

describe('validation: refused whole, nothing written', () => {
  const cases: [string, Record<string, unknown>, (string | number)[]][] = [
    ['an http issuer off loopback', { issuer: 'http://login.example.org' }, ['body', 'issuer']],
    ['an issuer that is not a URL', { issuer: 'login.example.org' }, ['body', 'issuer']],
    ['a public mail domain', { domains: ['gmail.com'] }, ['body', 'domains', 0]],
    [
      'a public mail domain after others',
      { domains: ['corp-z.example.org', 'Outlook.com'] },
      ['body', 'domains', 1],
    ],
    ['a throwaway mail domain', { domains: ['mailinator.com'] }, ['body', 'domains', 0]],
    ['a name that is not a domain', { domains: ['not a domain'] }, ['body', 'domains', 0]],
    ['a single label', { domains: ['localhost'] }, ['body', 'domains', 0]],
    ['no domain', { domains: [] }, ['body', 'domains']],
    ['a seat cap of 0', { seat_cap: 0 }, ['body', 'seat_cap']],
    ['an unknown role', { default_role: 'owner' }, ['body', 'default_role']],
    ['an empty client id', { client_id: '' }, ['body', 'client_id']],
  ]
  for (const [name, over, loc] of cases) {
    test(`${name}: 422 at ${loc.join('.')}`, async () => {
      const s = await signUp(t)
      const before = await ssoRows(t)
      const res = await put(s.token, settings(over))
      expect((await issues(res, PATH)).map((i) => i.loc)).toContainEqual(loc)
      expect(await ssoRows(t)).toEqual(before)
      expect(await (await get(s.token)).json()).toEqual({ configured: false, redirect_uri: REDIRECT_URI })
    })
  }

  test('an http issuer on loopback is accepted (a provider on this machine)', async () => {
    const s = await signUp(t)
    expect((await put(s.token, settings({ issuer: 'http://127.0.0.1:9/realms/x' }))).status).toBe(200)
  })

  test('a seat cap below the active members is a 422 that says how many there are', async () => {
    const s = await signUp(t)
    await addMember(t, s.token)
    await addMember(t, s.token)
    const before = await ssoRows(t)
    const res = await put(s.token, settings({ seat_cap: 2 }))
    const [issue] = await issues(res, PATH)
    expect(issue).toEqual({
      loc: ['body', 'seat_cap'],
      msg: 'The seat cap must be at least the 3 active members the workspace has.',
      type: 'value_error',
    })
    expect(await ssoRows(t)).toEqual(before)
    expect((await put(s.token, settings({ seat_cap: 3 }))).status).toBe(200)
  })
})

describe('a domain belongs to one workspace', () => {
  test('a second workspace claiming a taken domain is refused with 409 naming it, and nothing is written', async () => {
    const a = await signUp(t)
    const b = await signUp(t)
    const taken = domain()
    expect((await put(a.token, settings({ domains: [taken] }))).status).toBe(200)
    const before = await ssoRows(t)
    const res = await put(b.token, settings({ domains: [domain(), taken.toUpperCase()] }))
    expect(res.status).toBe(409)
    expect((await res.json()).error).toMatchObject({
      code: 'sso_domain_taken',
      message: 'Another workspace already signs in this domain through single sign-on.',
      details: { domains: [taken] },
    })
    expect(await ssoRows(t)).toEqual(before)
    expect(await (await get(b.token)).json()).toEqual({ configured: false, redirect_uri: REDIRECT_URI })
    // The owner saving its own domain again is no conflict.
    expect((await put(a.token, settings({ domains: [taken] }))).status).toBe(200)
  })
})

describe('deleting', () => {
  test('DELETE answers 204, drops domains and codes, and a second DELETE is 404', async () => {
    const s = await signUp(t)
    // Enforcement ends the admin's password session: an admin key carries on.
    const key = (await mintKey(t, s.token, ['admin'])).key
    const d = domain()
    expect((await put(s.token, settings({ domains: [d], enforce: true }))).status).toBe(200)
    expect((await get(s.token)).status).toBe(401)
    const del = await t.request(PATH, { method: 'DELETE', headers: bearer(key) })
    expect(del.status).toBe(204)
    expect(await (await get(key)).json()).toEqual({ configured: false, redirect_uri: REDIRECT_URI })
    expect(await rows(t, 'sso_domains', `domain = '${d}'`)).toBe(0)
    expect(await rows(t, 'sso_recovery_codes', `workspace_id = '${s.workspaceId}'`)).toBe(0)
    const audit = (await auditRows(t, 'sso.deleted')).filter((r) => r.workspace_id === s.workspaceId)
    expect(audit).toHaveLength(1)
    await expectError(
      await t.request(PATH, { method: 'DELETE', headers: bearer(key) }),
      PATH,
      404,
      'not_found',
      'SSO set-up not found.',
    )
  })
})

describe('recovery codes', () => {
  test('turning enforcement on answers ten codes once, stored only as hashes; a later PUT answers none', async () => {
    const s = await signUp(t)
    const key = (await mintKey(t, s.token, ['admin'])).key
    const d = domain()
    const res = await put(key, settings({ domains: [d], enforce: true }))
    const body = (await res.json()) as { recovery_codes: string[]; recovery_codes_left: number }
    expect(body.recovery_codes).toHaveLength(10)
    for (const c of body.recovery_codes) expect(c).toMatch(/^[a-z2-9]{5}(-[a-z2-9]{5}){3}$/)
    expect(new Set(body.recovery_codes).size).toBe(10)
    expect(body.recovery_codes_left).toBe(10)
    const stored = JSON.stringify(
      await t.sql.all('SELECT * FROM sso_recovery_codes WHERE workspace_id = ?', s.workspaceId),
    )
    for (const c of body.recovery_codes) expect(stored).not.toContain(c)
    const again = await (await put(key, settings({ enforce: true, domains: [d] }))).json()
    expect(again.recovery_codes).toBeUndefined()
    expect(again.recovery_codes_left).toBe(10)
    expect(await (await get(key)).json()).not.toHaveProperty('recovery_codes')
  })

  test('POST recovery-codes replaces them (audited); refused with 409 while enforcement is off', async () => {
    const s = await signUp(t)
    const key = (await mintKey(t, s.token, ['admin'])).key
    const path = `${PATH}/recovery-codes`
    const d = domain()
    expect((await put(key, settings({ domains: [d] }))).status).toBe(200)
    await expectError(
      await t.request(path, { method: 'POST', headers: bearer(key) }),
      path,
      409,
      'sso_not_enforced',
    )
    const first = (await (await put(key, settings({ domains: [d], enforce: true }))).json()).recovery_codes
    const res = await t.request(path, { method: 'POST', headers: bearer(key) })
    expect(res.status).toBe(200)
    const fresh = ((await res.json()) as { recovery_codes: string[] }).recovery_codes
    expect(fresh).toHaveLength(10)
    expect(fresh.some((c: string) => first.includes(c))).toBe(false)
    expect(await rows(t, 'sso_recovery_codes', `workspace_id = '${s.workspaceId}'`)).toBe(10)
    const audit = (await auditRows(t, 'sso.recovery_codes_issued')).filter(
      (r) => r.workspace_id === s.workspaceId,
    )
    expect(audit.map((r) => JSON.parse(r.details))).toEqual([{ count: 10 }])
  })

  test('turning enforcement off drops the unused codes', async () => {
    const s = await signUp(t)
    const key = (await mintKey(t, s.token, ['admin'])).key
    const d = domain()
    expect((await put(key, settings({ domains: [d], enforce: true }))).status).toBe(200)
    const off = await (await put(key, settings({ domains: [d], enforce: false }))).json()
    expect(off.recovery_codes_left).toBe(0)
  })
})

describe('who may', () => {
  test('a member is refused every enterprise route with 403 admin_required, and nothing is written', async () => {
    const s = await signUp(t)
    const m = await addMember(t, s.token)
    const before = await ssoRows(t)
    for (const [method, path] of [
      ['GET', PATH],
      ['PUT', PATH],
      ['DELETE', PATH],
      ['POST', `${PATH}/test`],
      ['POST', `${PATH}/recovery-codes`],
    ] as const) {
      const res = await t.request(path, {
        method,
        headers: bearer(m.token),
        json: method === 'PUT' ? settings() : undefined,
      })
      await expectError(res, path, 403, 'admin_required')
    }
    expect(await ssoRows(t)).toEqual(before)
  })

  test('an API key needs the admin scope; with it, it reads and writes its own workspace only', async () => {
    const s = await signUp(t)
    const query = await mintKey(t, s.token, ['query'])
    await expectError(await get(query.key), PATH, 403, 'missing_scope')
    const admin = await mintKey(t, s.token, ['admin'])
    expect((await put(admin.key, settings())).status).toBe(200)
    expect((await (await get(s.token)).json()).configured).toBe(true)
  })

  test("another workspace's admin sees and changes only their own set-up", async () => {
    const a = await signUp(t)
    const b = await signUp(t)
    expect((await put(a.token, settings())).status).toBe(200)
    expect(await (await get(b.token)).json()).toEqual({ configured: false, redirect_uri: REDIRECT_URI })
    const del = await t.request(PATH, { method: 'DELETE', headers: bearer(b.token) })
    expect(del.status).toBe(404)
    expect((await (await get(a.token)).json()).configured).toBe(true)
  })

  test('no credential: 401', async () => {
    await expectError(await t.request(PATH), PATH, 401, 'unauthorized')
  })
})

describe('the provider check', () => {
  test('an unreachable issuer fails at discovery and says the later checks did not run', async () => {
    const s = await signUp(t)
    expect((await put(s.token, settings({ issuer: 'http://127.0.0.1:9/realms/none' }))).status).toBe(200)
    const res = await t.request(`${PATH}/test`, { method: 'POST', headers: bearer(s.token) })
    expect(res.status).toBe(200)
    const body = (await res.json()) as {
      ok: boolean
      checks: { name: string; ok: boolean; detail: string }[]
    }
    expect(body.ok).toBe(false)
    expect(body.checks.map((c) => [c.name, c.ok])).toEqual([
      ['discovery', false],
      ['jwks', false],
      ['token_endpoint', false],
    ])
    expect(body.checks[0]!.detail).toContain('http://127.0.0.1:9/realms/none')
    expect(body.checks[1]!.detail).toBe('Not checked: discovery failed.')
  })

  test('without a set-up the check is a 404', async () => {
    const s = await signUp(t)
    const path = `${PATH}/test`
    await expectError(
      await t.request(path, { method: 'POST', headers: bearer(s.token) }),
      path,
      404,
      'not_found',
    )
  })
})

describe('published and secret-free', () => {
  test('the routes are in the OpenAPI document', async () => {
    const doc = (await (await t.request('/openapi.json')).json()) as { paths: Record<string, object> }
    for (const p of [
      '/v1/enterprise/sso',
      '/v1/enterprise/sso/test',
      '/v1/enterprise/sso/recovery-codes',
      '/v1/auth/sso/start',
      '/v1/auth/sso/callback',
    ]) {
      expect(doc.paths).toHaveProperty([p])
    }
    expect(Object.keys(doc.paths['/v1/enterprise/sso']!).sort()).toEqual(['delete', 'get', 'put'])
  })

  test('the client secret is in no log line', () => {
    expect(t.log.lines.length).toBeGreaterThan(0)
    expect(JSON.stringify(t.log.lines)).not.toContain(SECRET)
  })
})
