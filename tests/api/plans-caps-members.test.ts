import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type TestApp, testApp } from '../helpers/app'
import { startProvider, type TestProvider } from '../helpers/oidc-provider'
import { addMember, authApp, bearer, expectError, mounts, signUp, tokenOf } from './accounts.fixture'

// Issue 37, caps enforced where a workspace grows in bases, API keys and members: at the cap a
// creation passes, one more is refused with 403 plan_limit_reached {cap, limit, used} and writes
// nothing; what is revoked, deleted or removed frees its unit. Billing stays off (the default).

const GB = 1024 ** 3
const caps = (over: Record<string, number | null>) => ({
  bases: null,
  documents: null,
  storage_bytes: GB,
  queries_per_month: null,
  seats: null,
  api_keys: null,
  ...over,
})
const plan = (id: string, over: Record<string, number | null>) => ({
  id,
  name: id,
  prices: { currency: 'usd', month: 0, year: 0 },
  caps: caps(over),
  public: false,
})
const dir = mkdtempSync(join(tmpdir(), 'engram-caps-'))
const plansFile = join(dir, 'plans.json')
writeFileSync(
  plansFile,
  JSON.stringify({
    plans: [
      plan('open', {}),
      plan('small', { bases: 2, api_keys: 3, seats: 3 }),
      plan('one_seat', { seats: 1 }),
      plan('two_seats', { seats: 2 }),
    ],
  }),
)
const PLANS_ENV = { ENGRAM_PLANS_FILE: plansFile, ENGRAM_DEFAULT_PLAN: 'open' }

const t = authApp({ env: PLANS_ENV })
afterAll(() => t.close())

/** Moves a workspace to a plan, as `engram plan set` does (the running app reads it on the next request). */
async function setPlan(app: TestApp, workspaceId: string, planId: string): Promise<void> {
  await app.sql.runElsewhere('UPDATE workspaces SET plan = ? WHERE id = ?', planId, workspaceId)
}

/** A new workspace (its admin is its one member) on a plan. */
async function workspaceOn(planId: string) {
  const a = await signUp(t)
  await setPlan(t, a.workspaceId, planId)
  return a
}

/** Asserts a 403 plan_limit_reached in the mount's shape, with its details on /v1. */
async function expectCap(res: Response, path: string, cap: string, limit: number, used: number) {
  if (!path.startsWith('/v1')) return expectError(res, path, 403, 'plan_limit_reached')
  expect(res.status).toBe(403)
  const body = (await res.json()) as { error: { code: string; details: unknown; message: string } }
  expect(body.error.code).toBe('plan_limit_reached')
  expect(body.error.details).toEqual({ cap, limit, used })
  return body.error.message
}

const billing = async (token: string) =>
  (await (await t.request('/v1/admin/billing', { headers: bearer(token) })).json()) as {
    billing_enabled: boolean
    limits: Record<string, number | null>
    used: Record<string, number>
  }

describe('bases', () => {
  const create = (token: string, path: string, name = 'Base') =>
    t.request(path, { method: 'POST', headers: bearer(token), json: { name } })
  const listed = async (token: string) =>
    ((await (await t.request('/v1/corpora', { headers: bearer(token) })).json()) as { items: unknown[] })
      .items.length

  test('the second base of a two-base plan is created; a third is refused on both mounts, nothing written', async () => {
    const a = await workspaceOn('small')
    expect((await create(a.token, '/v1/corpora')).status).toBe(200)
    expect((await create(a.token, '/corpora')).status).toBe(200)
    for (const path of mounts('/corpora')) {
      const message = await expectCap(await create(a.token, path, 'One too many'), path, 'bases', 2, 2)
      expect(message).toContain('allows 2 bases')
    }
    expect(await listed(a.token)).toBe(2)
    const b = await billing(a.token)
    expect(b.billing_enabled).toBe(false)
    expect(b.used.bases).toBe(2)
  })

  test('deleting a base frees its place', async () => {
    const a = await workspaceOn('small')
    const first = ((await (await create(a.token, '/v1/corpora')).json()) as { id: string }).id
    expect((await create(a.token, '/v1/corpora')).status).toBe(200)
    expect((await create(a.token, '/v1/corpora')).status).toBe(403)
    const del = await t.request(`/v1/corpora/${first}`, { method: 'DELETE', headers: bearer(a.token) })
    expect(del.status).toBeLessThan(300)
    expect((await create(a.token, '/v1/corpora')).status).toBe(200)
    expect(await listed(a.token)).toBe(2)
  })

  test('an unlimited plan never refuses, and a refused name is still a 422 first', async () => {
    const a = await workspaceOn('open')
    for (let i = 0; i < 3; i++) expect((await create(a.token, '/v1/corpora')).status).toBe(200)
    const b = await workspaceOn('small')
    expect((await create(b.token, '/v1/corpora', '   ')).status).toBe(422)
  })
})

describe('API keys', () => {
  const mint = (token: string, path = '/v1/api-keys', name = 'k') =>
    t.request(path, { method: 'POST', headers: bearer(token), json: { name, scopes: ['query'] } })
  const listed = async (token: string) =>
    (
      (await (await t.request('/v1/api-keys', { headers: bearer(token) })).json()) as {
        items: { revoked_at: string | null }[]
      }
    ).items

  test('the third key of a three-key plan is minted; a fourth is refused on both mounts, nothing written', async () => {
    const a = await workspaceOn('small')
    expect((await mint(a.token)).status).toBe(200)
    expect((await mint(a.token, '/api-keys')).status).toBe(200)
    expect((await mint(a.token)).status).toBe(200)
    for (const path of mounts('/api-keys')) {
      const message = await expectCap(await mint(a.token, path, 'fourth'), path, 'api_keys', 3, 3)
      expect(message).toContain('allows 3 api keys')
    }
    expect(await listed(a.token)).toHaveLength(3)
    expect((await billing(a.token)).used.api_keys).toBe(3)
  })

  test('a revoked key frees its slot (it stays listed, but no longer counts)', async () => {
    const a = await workspaceOn('small')
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push(((await (await mint(a.token)).json()) as { id: string }).id)
    expect((await mint(a.token)).status).toBe(403)
    const revoked = await t.request(`/v1/api-keys/${ids[0]}`, { method: 'DELETE', headers: bearer(a.token) })
    expect(revoked.status).toBe(200)
    expect((await mint(a.token)).status).toBe(200)
    await expectCap(await mint(a.token), '/v1/api-keys', 'api_keys', 3, 3)
    const keys = await listed(a.token)
    expect(keys).toHaveLength(4)
    expect(keys.filter((k) => k.revoked_at === null)).toHaveLength(3)
  })

  test('ten parallel creations against a cap of three make exactly three keys', async () => {
    const a = await workspaceOn('small')
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => mint(a.token, '/v1/api-keys', `p${i}`)),
    )
    const statuses = answers.map((r) => r.status).sort()
    expect(statuses).toEqual([200, 200, 200, 403, 403, 403, 403, 403, 403, 403])
    expect(await listed(a.token)).toHaveLength(3)
  })
})

describe('seats', () => {
  const invite = (token: string, email: string, path = '/v1/admin/invites') =>
    t.request(path, { method: 'POST', headers: bearer(token), json: { email, role: 'member' } })
  const members = async (token: string) =>
    (await (await t.request('/v1/admin/members', { headers: bearer(token) })).json()) as {
      members: { id: string; email: string }[]
      invites: { id: string; email: string }[]
    }
  const accept = (token: string) =>
    t.request('/v1/auth/accept-invite', {
      method: 'POST',
      json: { token, password: 'member password', name: 'Member' },
    })
  const linkOf = async (res: Response) => {
    expect(res.status).toBe(200)
    return tokenOf(((await res.json()) as { invite_link: string }).invite_link)
  }

  test('members and pending invitations fill the seats; one more invitation is refused on both mounts, nothing written', async () => {
    const a = await workspaceOn('small')
    await addMember(t, a.token)
    await linkOf(await invite(a.token, 'pending@example.com'))
    // 2 members + 1 pending = 3 seats: another address is refused, without a row or a link.
    for (const path of mounts('/admin/invites')) {
      const res = await invite(a.token, `over${path.length}@example.com`, path)
      const message = await expectCap(res, path, 'seats', 3, 3)
      if (path.startsWith('/v1')) expect(message).not.toContain('token=')
    }
    expect(t.log.lines.filter((l) => JSON.stringify(l).includes('over'))).toEqual([])
    const m = await members(a.token)
    expect(m.members).toHaveLength(2)
    expect(m.invites.map((i) => i.email)).toEqual(['pending@example.com'])
    // Inviting the pending address again takes no further seat.
    expect((await invite(a.token, 'pending@example.com')).status).toBe(200)
    expect((await billing(a.token)).used.seats).toBe(2)
  })

  test('ten parallel invitations against three seats (the admin holding one) make exactly two', async () => {
    const a = await workspaceOn('small')
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => invite(a.token, `rush${i}@example.com`)),
    )
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 403, 403, 403, 403, 403, 403, 403, 403])
    expect((await members(a.token)).invites).toHaveLength(2)
  })

  test('a revoked invitation and a removed member each free a seat', async () => {
    const a = await workspaceOn('small')
    const member = await addMember(t, a.token)
    await linkOf(await invite(a.token, 'held@example.com'))
    expect((await invite(a.token, 'waiting@example.com')).status).toBe(403)
    const held = (await members(a.token)).invites[0]!
    const revoked = await t.request(`/v1/admin/invites/${held.id}`, {
      method: 'DELETE',
      headers: bearer(a.token),
    })
    expect(revoked.status).toBeLessThan(300)
    const waiting = await linkOf(await invite(a.token, 'waiting@example.com'))
    expect((await invite(a.token, 'later@example.com')).status).toBe(403)
    const removed = await t.request(`/v1/admin/members/${member.userId}`, {
      method: 'DELETE',
      headers: bearer(a.token),
    })
    expect(removed.status).toBeLessThan(300)
    expect((await invite(a.token, 'later@example.com')).status).toBe(200)
    expect((await accept(waiting)).status).toBe(200)
    const m = await members(a.token)
    expect(m.members.map((u) => u.email).sort()).toEqual([a.email, 'waiting@example.com'].sort())
    expect(m.invites.map((i) => i.email)).toEqual(['later@example.com'])
  })

  test('an expired invitation holds no seat', async () => {
    const a = await workspaceOn('two_seats')
    // An admin key outlives the session across the days the clock moves on.
    const key = await t.request('/v1/api-keys', {
      method: 'POST',
      headers: bearer(a.token),
      json: { name: 'admin', scopes: ['admin'] },
    })
    const admin = ((await key.json()) as { key: string }).key
    await linkOf(await invite(admin, 'soon-gone@example.com'))
    await expectCap(await invite(admin, 'next@example.com'), '/v1/admin/invites', 'seats', 2, 2)
    t.clock.advance(7 * 86_400_000 + 1)
    expect((await invite(admin, 'next@example.com')).status).toBe(200)
  })

  test('accepting is refused when the cap shrank below the members since; the link works again once there is room', async () => {
    const a = await workspaceOn('small')
    const link = await linkOf(await invite(a.token, 'shrunk@example.com'))
    await setPlan(t, a.workspaceId, 'one_seat')
    await expectCap(await accept(link), '/v1/auth/accept-invite', 'seats', 1, 1)
    // Refused again while there is no room: the refusal spent nothing.
    await expectCap(await accept(link), '/v1/auth/accept-invite', 'seats', 1, 1)
    const m = await members(a.token)
    expect(m.members).toHaveLength(1)
    expect(m.invites.map((i) => i.email)).toEqual(['shrunk@example.com'])
    const info = await t.request('/v1/auth/invite-info', { method: 'POST', json: { token: link } })
    expect(info.status).toBe(200)
    await setPlan(t, a.workspaceId, 'two_seats')
    expect((await accept(link)).status).toBe(200)
    expect((await members(a.token)).members).toHaveLength(2)
  })

  test('an invitation accepted in a workspace that enforces single sign-on is held to the seats too', async () => {
    const a = await signUp(t, { email: 'admin@capped-sso.example.org' })
    const put = await t.request('/v1/enterprise/sso', {
      method: 'PUT',
      headers: bearer(a.token),
      json: {
        issuer: 'https://login.example.org',
        client_id: 'engram',
        client_secret: 's',
        domains: ['capped-sso.example.org'],
        enforce: false,
      },
    })
    expect(put.status).toBe(200)
    const key = await t.request('/v1/api-keys', {
      method: 'POST',
      headers: bearer(a.token),
      json: { name: 'admin', scopes: ['admin'] },
    })
    const admin = ((await key.json()) as { key: string }).key
    const link = await linkOf(await invite(admin, 'invitee@capped-sso.example.org'))
    const on = await t.request('/v1/enterprise/sso', {
      method: 'PUT',
      headers: bearer(admin),
      json: {
        issuer: 'https://login.example.org',
        client_id: 'engram',
        client_secret: 's',
        domains: ['capped-sso.example.org'],
        enforce: true,
      },
    })
    expect(on.status).toBe(200)
    await setPlan(t, a.workspaceId, 'one_seat')
    const res = await t.request('/v1/auth/accept-invite', {
      method: 'POST',
      json: { token: link, name: 'Invitee' },
    })
    await expectCap(res, '/v1/auth/accept-invite', 'seats', 1, 1)
    expect((await members(admin)).members).toHaveLength(1)
    await setPlan(t, a.workspaceId, 'two_seats')
    const ok = await t.request('/v1/auth/accept-invite', {
      method: 'POST',
      json: { token: link, name: 'Invitee' },
    })
    expect(ok.status).toBe(200)
    expect(((await ok.json()) as { sso_required: boolean }).sso_required).toBe(true)
  })
})

describe('a single sign-on member joining just in time', () => {
  const CLIENT = { client_id: 'engram-sso', client_secret: 'sso-client-secret-caps-0123456789' }
  const DOMAIN = 'seats.example.com'
  let op: TestProvider
  let app: TestApp
  let http: ReturnType<typeof Bun.serve>
  let base: string
  let admin: { token: string; workspaceId: string }

  beforeAll(async () => {
    let handler: (r: Request) => Promise<Response> = async () => new Response('starting', { status: 503 })
    http = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (r) => handler(r) })
    base = `http://127.0.0.1:${http.port}`
    op = await startProvider({
      clients: [{ ...CLIENT, redirect_uris: [`${base}/auth/sso/callback`] }],
      accounts: {
        first: { email: `first@${DOMAIN}`, email_verified: true, name: 'First' },
        second: { email: `second@${DOMAIN}`, email_verified: true, name: 'Second' },
      },
    })
    app = testApp({
      env: {
        ...PLANS_ENV,
        ENGRAM_BASE_URL: base,
        ENGRAM_PASSWORD_MEMORY_KIB: '1024',
        ENGRAM_SOURCES_ALLOW_LOOPBACK: 'true',
      },
    })
    // ID tokens carry the provider's real time; Engram's clock starts there too.
    app.clock.set(new Date())
    handler = (r) => app.handle(r, http)
    const reg = await app.request('/v1/auth/register', {
      method: 'POST',
      json: { email: `admin@${DOMAIN}`, password: 'correct horse', workspace_name: 'Seats', name: 'Admin' },
    })
    const token = ((await reg.json()) as { access_token: string }).access_token
    const me = (await (await app.request('/v1/auth/me', { headers: bearer(token) })).json()) as {
      workspace_id: string
    }
    admin = { token, workspaceId: me.workspace_id }
    const put = await app.request('/v1/enterprise/sso', {
      method: 'PUT',
      headers: bearer(token),
      json: { issuer: op.issuer, ...CLIENT, domains: [DOMAIN] },
    })
    expect(put.status).toBe(200)
    await setPlan(app, admin.workspaceId, 'two_seats')
  }, 60_000)

  afterAll(async () => {
    http.stop(true)
    app.close()
    await op.stop()
  })

  /** One browser's whole sign-in as `account`; answers the page it lands on. */
  async function signIn(account: string, email: string): Promise<URL> {
    app.clock.set(new Date())
    const res = await fetch(`${base}/auth/sso/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email }),
    })
    expect(res.status).toBe(200)
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!
    const url = ((await res.json()) as { authorization_url: string }).authorization_url
    const back = await op.signIn(url, account)
    app.clock.set(new Date())
    const landed = await fetch(back, { redirect: 'manual', headers: { cookie } })
    return new URL(landed.headers.get('location') ?? 'http://missing/')
  }
  const count = async (sql: string) => (await app.sql.get<{ n: number }>(sql))!.n

  test('the last seat is taken; the next new member is refused with plan_limit_reached and nothing is written', async () => {
    const first = await signIn('first', `first@${DOMAIN}`)
    expect(first.pathname).toBe('/console/auth/callback')
    const before = {
      users: await count('SELECT count(*) AS n FROM users'),
      identities: await count('SELECT count(*) AS n FROM user_identities'),
      joined: await count("SELECT count(*) AS n FROM domain_events WHERE type = 'sso.member_joined'"),
    }
    const second = await signIn('second', `second@${DOMAIN}`)
    expect(second.pathname).toBe('/console/sign-in')
    expect(second.searchParams.get('error')).toBe('plan_limit_reached')
    expect(second.hash).toBe('')
    expect({
      users: await count('SELECT count(*) AS n FROM users'),
      identities: await count('SELECT count(*) AS n FROM user_identities'),
      joined: await count("SELECT count(*) AS n FROM domain_events WHERE type = 'sso.member_joined'"),
    }).toEqual(before)
    const listed = (await (
      await app.request('/v1/admin/members', { headers: bearer(admin.token) })
    ).json()) as {
      members: { email: string }[]
    }
    expect(listed.members.map((m) => m.email).sort()).toEqual([`admin@${DOMAIN}`, `first@${DOMAIN}`])
    // A member already in signs in as before.
    expect((await signIn('first', `first@${DOMAIN}`)).pathname).toBe('/console/auth/callback')
  })
})
