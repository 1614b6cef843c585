import { afterAll, describe, expect, test } from 'bun:test'
import {
  addMember,
  authApp,
  bearer,
  expectError,
  mintKey,
  mounts,
  signUp,
  snapshot,
} from './accounts.fixture'

const t = authApp()
afterAll(() => t.close())

/** Two workspaces, each with an admin, a member, an admin key and an open invitation. */
async function tenants() {
  const make = async () => {
    const s = await signUp(t)
    const member = await addMember(t, s.token)
    const key = await mintKey(t, s.token, ['admin'])
    await t.request('/v1/admin/invites', {
      method: 'POST',
      headers: bearer(s.token),
      json: { email: `pending-${s.userId.toLowerCase()}@example.com` },
    })
    const inviteId = (await (await t.request('/v1/admin/members', { headers: bearer(s.token) })).json())
      .invites[0].id
    return { ...s, member, key, inviteId }
  }
  return { a: await make(), b: await make() }
}

describe('tenant isolation', () => {
  test("every route taking an id answers 404 for another workspace's resource and changes nothing", async () => {
    const { a, b } = await tenants()
    const routes: [string, string, unknown?][] = [
      ['DELETE', `/api-keys/${b.key.id}`],
      ['DELETE', `/admin/invites/${b.inviteId}`],
      ['PATCH', `/admin/members/${b.member.userId}`, { role: 'admin' }],
      ['PATCH', `/admin/members/${b.userId}`, { role: 'member' }],
      ['DELETE', `/admin/members/${b.member.userId}`],
      ['DELETE', `/admin/members/${b.userId}`],
    ]
    const before = await snapshot(t)
    for (const credential of [a.token, a.key.key]) {
      for (const [method, path, json] of routes) {
        for (const mounted of mounts(path)) {
          const res = await t.request(mounted, { method, headers: bearer(credential), json })
          await expectError(res, mounted, 404, 'not_found')
        }
      }
    }
    expect(await snapshot(t)).toEqual(before)
    // The same resources still answer their owner.
    expect(
      (await t.request(`/v1/api-keys/${b.key.id}`, { method: 'DELETE', headers: bearer(b.token) })).status,
    ).toBe(200)
    expect(
      (await t.request(`/v1/admin/invites/${b.inviteId}`, { method: 'DELETE', headers: bearer(b.token) }))
        .status,
    ).toBe(204)
  })

  test('another workspace answers exactly like an id that never existed', async () => {
    const { a, b } = await tenants()
    const foreign = await t.request(`/v1/admin/members/${b.member.userId}`, {
      method: 'PATCH',
      headers: bearer(a.token),
      json: { role: 'admin' },
    })
    const missing = await t.request('/v1/admin/members/usr_00000000000000000000', {
      method: 'PATCH',
      headers: bearer(a.token),
      json: { role: 'admin' },
    })
    expect(foreign.status).toBe(missing.status)
    expect((await foreign.json()).error.message).toBe((await missing.json()).error.message)
  })

  test('listings show only the caller workspace', async () => {
    const { a, b } = await tenants()
    for (const path of mounts('/api-keys')) {
      const body = await (await t.request(path, { headers: bearer(a.token) })).json()
      const items = Array.isArray(body) ? body : body.items
      expect(items.map((k: { id: string }) => k.id)).toEqual([a.key.id])
    }
    const members = await (await t.request('/admin/members', { headers: bearer(a.key.key) })).json()
    expect(members.members.map((m: { id: string }) => m.id).sort()).toEqual(
      [a.userId, a.member.userId].sort(),
    )
    expect(members.invites.map((i: { id: string }) => i.id)).toEqual([a.inviteId])
    expect(JSON.stringify(members)).not.toContain(b.email)
    const usage = await (await t.request('/v1/admin/usage', { headers: bearer(a.token) })).json()
    expect(usage.totals).toMatchObject({ members: 2, api_keys: 1 })
  })

  test('a session and a key each reach only their own workspace', async () => {
    const { a, b } = await tenants()
    const meA = await (await t.request('/v1/auth/me', { headers: bearer(a.token) })).json()
    expect(meA.workspace_id).toBe(a.workspaceId)
    const setup = await t.request('/v1/auth/setup', {
      method: 'POST',
      headers: bearer(a.token),
      json: { workspace_name: 'Renamed A', name: 'A' },
    })
    expect(setup.status).toBe(200)
    const meB = await (await t.request('/v1/auth/me', { headers: bearer(b.token) })).json()
    expect(meB.workspace_name).toBe('Acme')
  })
})
