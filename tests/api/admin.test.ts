import { afterAll, describe, expect, test } from 'bun:test'
import { UsageService } from '../../src/features/usage/usage.service'
import {
  addMember,
  address,
  auditRows,
  authApp,
  bearer,
  expectError,
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
const START = t.clock.now()

const invite = (path: string, token: string, json: unknown) =>
  t.request(path, { method: 'POST', headers: bearer(token), json })
const patch = (path: string, token: string, role: string) =>
  t.request(path, { method: 'PATCH', headers: bearer(token), json: { role } })
const del = (path: string, token: string) => t.request(path, { method: 'DELETE', headers: bearer(token) })

describe('members and invitations', () => {
  test('members lists the people of the workspace plus invitations not yet accepted', async () => {
    const s = await signUp(t, { name: 'Owner' })
    const joined = t.clock.now().toISOString()
    // Members are listed by when they joined; the member joins a second after the owner.
    t.clock.advance(1000)
    const m = await addMember(t, s.token)
    const pending = address('pending')
    const inv = await (await invite('/v1/admin/invites', s.token, { email: pending.toUpperCase() })).json()
    expect(inv).toEqual({
      status: 'sent',
      link_delivery: 'response',
      invite_link: expect.stringMatching(
        /^http:\/\/localhost:8080\/console\/accept-invite\?token=[0-9A-Za-z]{43}$/,
      ),
    })
    for (const path of mounts('/admin/members')) {
      const body = await (await t.request(path, { headers: bearer(s.token) })).json()
      expect(body.members).toEqual([
        {
          id: s.userId,
          email: s.email,
          name: 'Owner',
          role: 'admin',
          status: 'active',
          email_verified: true,
          last_login_at: joined,
          created_at: joined,
        },
        expect.objectContaining({ id: m.userId, email: m.email, role: 'member', email_verified: true }),
      ])
      expect(body.invites).toEqual([
        {
          id: expect.stringMatching(/^inv_/),
          email: pending,
          role: 'member',
          invited_by: s.userId,
          expires_at: new Date(t.clock.now().getTime() + 7 * 86_400_000).toISOString(),
          created_at: t.clock.now().toISOString(),
        },
      ])
    }
    const member = await t.request('/admin/members', { headers: bearer(m.token) })
    await expectError(member, '/admin', 403, 'admin_required')
  })

  test('invite-info names the workspace and address; accept-invite signs the invitee in once', async () => {
    const s = await signUp(t, { workspace_name: 'Invite Co' })
    const email = address('invitee')
    const link = (await (await invite('/admin/invites', s.token, { email, role: 'admin' })).json())
      .invite_link
    for (const path of mounts('/auth/invite-info')) {
      const info = await t.request(path, { method: 'POST', json: { token: tokenOf(link) } })
      expect(await info.json()).toEqual({
        workspace_id: s.workspaceId,
        workspace_name: 'Invite Co',
        email,
        role: 'admin',
        expires_at: new Date(t.clock.now().getTime() + 7 * 86_400_000).toISOString(),
        sso_required: false,
      })
    }
    const accepted = await t.request('/auth/accept-invite', {
      method: 'POST',
      json: { token: tokenOf(link), password: 'invitee password', name: '  Ivy ' },
    })
    expect(accepted.status).toBe(200)
    const session = await accepted.json()
    expect(session).toMatchObject({ token_type: 'bearer', email_verified: true })
    const me = await (await t.request('/v1/auth/me', { headers: bearer(session.access_token) })).json()
    expect(me).toMatchObject({
      email,
      name: 'Ivy',
      workspace_id: s.workspaceId,
      role: 'admin',
      email_verified: true,
    })
    expect((await auditRows(t, 'auth.sign_in')).at(-1)?.details).toBe(
      '{"method":"invite","session_class":"normal"}',
    )
    const members = await (await t.request('/v1/admin/members', { headers: bearer(s.token) })).json()
    expect(members.invites).toEqual([])
    for (const path of mounts('/auth/accept-invite')) {
      const before = await snapshot(t)
      const replay = await t.request(path, {
        method: 'POST',
        json: { token: tokenOf(link), password: 'another password', name: 'Ivy' },
      })
      await expectError(replay, path, 400, 'invalid_token')
      await expectError(
        await t.request(mounts('/auth/invite-info')[path.startsWith('/v1') ? 0 : 1], {
          method: 'POST',
          json: { token: tokenOf(link) },
        }),
        path,
        400,
        'invalid_token',
      )
      expect(await snapshot(t)).toEqual(before)
    }
  })

  test('an invitation expires counting from when it was sent; re-inviting sends a fresh link', async () => {
    const s = await signUp(t)
    const email = address('late')
    const first = (await (await invite('/v1/admin/invites', s.token, { email })).json()).invite_link
    t.clock.advance(6 * 86_400_000)
    const admin = (await signIn(t, s.email, s.password, true)).access_token
    const second = (await (await invite('/v1/admin/invites', admin, { email, role: 'admin' })).json())
      .invite_link
    expect(await rows(t, 'invites', `email = '${email}'`)).toBe(1)
    const accept = (link: string) =>
      t.request('/v1/auth/accept-invite', {
        method: 'POST',
        json: { token: tokenOf(link), password: 'password 123', name: 'Late' },
      })
    await expectError(await accept(first), '/v1', 400, 'invalid_token')
    t.clock.advance(2 * 86_400_000)
    const res = await accept(second)
    expect(res.status).toBe(200)
    const me = await (
      await t.request('/v1/auth/me', { headers: bearer((await res.json()).access_token) })
    ).json()
    expect(me.role).toBe('admin')

    const stale = (await (await invite('/v1/admin/invites', admin, { email: address('stale') })).json())
      .invite_link
    t.clock.advance(7 * 86_400_000)
    await expectError(await accept(stale), '/v1', 400, 'invalid_token')
    t.clock.set(START)
  })

  test('bad invitation input is refused with the right status and writes nothing', async () => {
    const s = await signUp(t)
    const m = await addMember(t, s.token)
    const before = await snapshot(t)
    for (const path of mounts('/admin/invites')) {
      expect((await issues(await invite(path, s.token, { email: 'nope' }), path))[0]?.loc).toEqual([
        'body',
        'email',
      ])
      expect(
        (await issues(await invite(path, s.token, { email: address(), role: 'owner' }), path))[0]?.loc,
      ).toEqual(['body', 'role'])
      await expectError(
        await invite(path, s.token, { email: m.email }),
        path,
        409,
        'conflict',
        'This address is already a member.',
      )
      await expectError(await invite(path, m.token, { email: address() }), path, 403, 'admin_required')
    }
    for (const path of mounts('/auth/accept-invite')) {
      const garbage = await t.request(path, {
        method: 'POST',
        json: { token: 'garbage', password: 'password 1', name: 'X' },
      })
      await expectError(garbage, path, 400, 'invalid_token')
      const missing = await t.request(path, { method: 'POST', json: { token: 'garbage' } })
      // The password is asked only where the workspace does not enforce SSO (tests/api/invite-sso.test.ts).
      expect((await issues(missing, path)).map((i) => i.loc)).toEqual([['body', 'name']])
    }
    for (const path of mounts('/auth/invite-info')) {
      await expectError(
        await t.request(path, { method: 'POST', json: { token: 'x' } }),
        path,
        400,
        'invalid_token',
      )
      expect((await issues(await t.request(path, { method: 'POST', json: {} }), path))[0]?.loc).toEqual([
        'body',
        'token',
      ])
    }
    expect(await snapshot(t)).toEqual(before)
  })

  test('accepting for an address that already has an account elsewhere is a 409 and spends nothing', async () => {
    const a = await signUp(t)
    const other = await signUp(t)
    const link = (await (await invite('/v1/admin/invites', a.token, { email: other.email })).json())
      .invite_link
    const before = await snapshot(t)
    const res = await t.request('/v1/auth/accept-invite', {
      method: 'POST',
      json: { token: tokenOf(link), password: 'password 123', name: 'Dup' },
    })
    await expectError(res, '/v1', 409, 'email_taken')
    expect(await snapshot(t)).toEqual(before)
    expect(await rows(t, 'invites', `email = '${other.email}' AND accepted_at IS NULL`)).toBe(1)
  })

  test('an accepted invitation is told as member.joined once; a refused one tells nothing', async () => {
    const s = await signUp(t)
    const joined = async () =>
      (
        await t.sql.all<{ payload: string }>(
          "SELECT payload FROM domain_events WHERE type = 'member.joined' AND workspace_id = ? ORDER BY seq",
          s.workspaceId,
        )
      ).map((r) => JSON.parse(r.payload))
    const other = await signUp(t)
    const link = (await (await invite('/v1/admin/invites', s.token, { email: other.email })).json())
      .invite_link
    const refused = await t.request('/v1/auth/accept-invite', {
      method: 'POST',
      json: { token: tokenOf(link), password: 'password 123', name: 'Dup' },
    })
    expect(refused.status).toBe(409)
    expect(await joined()).toEqual([])
    const m = await addMember(t, s.token, 'admin')
    const inviteId = (await t.sql.get<{ id: string }>('SELECT id FROM invites WHERE email = ?', m.email))!.id
    expect(await joined()).toEqual([{ userId: m.userId, role: 'admin', inviteId }])
  })

  test('withdrawing an invitation is a 204; the link stops working; a second delete is a 404', async () => {
    const s = await signUp(t)
    for (const path of mounts('/admin/invites')) {
      const email = address()
      const link = (await (await invite(path, s.token, { email })).json()).invite_link
      const id = (await (await t.request('/v1/admin/members', { headers: bearer(s.token) })).json())
        .invites[0].id
      const res = await del(`${path}/${id}`, s.token)
      expect(res.status).toBe(204)
      expect(await res.text()).toBe('')
      await expectError(await del(`${path}/${id}`, s.token), path, 404, 'not_found', 'Invite not found.')
      await expectError(
        await t.request('/v1/auth/invite-info', { method: 'POST', json: { token: tokenOf(link) } }),
        '/v1',
        400,
        'invalid_token',
      )
    }
  })
})

describe('roles and removal', () => {
  test('an admin changes a role; the change is audited once; the same role again changes nothing', async () => {
    const s = await signUp(t)
    const m = await addMember(t, s.token)
    for (const [path, role] of [
      [`/v1/admin/members/${m.userId}`, 'admin'],
      [`/admin/members/${m.userId}`, 'member'],
    ] as const) {
      const res = await patch(path, s.token, role)
      expect(res.status).toBe(200)
      expect(await res.json()).toMatchObject({ id: m.userId, role })
    }
    const audits = (await auditRows(t, 'member.role_changed')).filter((r) => r.target_id === m.userId)
    expect(audits.map((r) => JSON.parse(r.details))).toEqual([
      { email: m.email, from: 'member', to: 'admin' },
      { email: m.email, from: 'admin', to: 'member' },
    ])
    expect((await patch(`/v1/admin/members/${m.userId}`, s.token, 'member')).status).toBe(200)
    expect((await auditRows(t, 'member.role_changed')).filter((r) => r.target_id === m.userId)).toHaveLength(
      2,
    )
    for (const path of mounts(`/admin/members/${m.userId}`)) {
      expect((await issues(await patch(path, s.token, 'owner'), path))[0]?.loc).toEqual(['body', 'role'])
    }
  })

  test('the last admin cannot be demoted, on both mounts; with a second admin it can', async () => {
    const s = await signUp(t)
    const m = await addMember(t, s.token)
    const before = await snapshot(t)
    for (const path of mounts(`/admin/members/${s.userId}`)) {
      await expectError(
        await patch(path, s.token, 'member'),
        path,
        409,
        'last_admin',
        'The last admin of a workspace cannot be demoted.',
      )
    }
    expect(await snapshot(t)).toEqual(before)
    await patch(`/v1/admin/members/${m.userId}`, s.token, 'admin')
    expect((await patch(`/v1/admin/members/${s.userId}`, s.token, 'member')).status).toBe(200)
    await expectError(
      await patch(`/v1/admin/members/${m.userId}`, m.token, 'member'),
      '/v1',
      409,
      'last_admin',
    )
  })

  test('a deactivated admin does not count: the last active admin stays protected', async () => {
    const s = await signUp(t)
    const other = await addMember(t, s.token, 'admin')
    await t.sql.run("UPDATE users SET status = 'deactivated' WHERE id = ?", other.userId)
    await expectError(
      await patch(`/v1/admin/members/${s.userId}`, s.token, 'member'),
      '/v1',
      409,
      'last_admin',
    )
  })

  test('an admin cannot remove themselves; the last admin cannot be removed; others can', async () => {
    const s = await signUp(t)
    const m = await addMember(t, s.token)
    const adminKey = await mintKey(t, s.token, ['admin'])
    const before = await snapshot(t)
    for (const path of mounts(`/admin/members/${s.userId}`)) {
      await expectError(
        await del(path, s.token),
        path,
        409,
        'cannot_remove_self',
        'You cannot remove yourself from the workspace.',
      )
      await expectError(
        await del(path, adminKey.key),
        path,
        409,
        'last_admin',
        'The last admin of a workspace cannot be removed.',
      )
      await expectError(await del(path, m.token), path, 403, 'admin_required')
    }
    expect(await snapshot(t)).toEqual(before)
    const res = await del(`/admin/members/${m.userId}`, s.token)
    expect(res.status).toBe(204)
    expect(await rows(t, 'users', `id = '${m.userId}'`)).toBe(0)
    const audit = (await auditRows(t, 'member.removed')).find((r) => r.target_id === m.userId)
    expect(JSON.parse(audit!.details)).toEqual({ email: m.email, role: 'member' })
    await expectError(
      await del(`/v1/admin/members/${m.userId}`, s.token),
      '/v1',
      404,
      'not_found',
      'Member not found.',
    )
    // The address is free again and can be invited back.
    expect((await invite('/v1/admin/invites', s.token, { email: m.email })).status).toBe(200)
  })
})

describe('usage and billing', () => {
  test('usage answers zeros and empties for a new workspace, never an error', async () => {
    const s = await signUp(t)
    for (const path of mounts('/admin/usage')) {
      const res = await t.request(path, { headers: bearer(s.token) })
      expect(res.status).toBe(200)
      const body = await res.json()
      expect(body.period).toEqual({ start: '2026-01-31', end: '2026-03-01', days: 30 })
      expect(body.totals).toEqual({
        queries: 0,
        load_test_queries: 0,
        compare_queries: 0,
        feedback_up: 0,
        feedback_down: 0,
        bases: 0,
        documents: 0,
        storage_bytes: 0,
        members: 1,
        api_keys: 0,
      })
      expect(body.bases).toEqual([])
      expect(body.daily).toHaveLength(30)
      const none = { queries: 0, load_test_queries: 0, compare_queries: 0, feedback_up: 0, feedback_down: 0 }
      expect(body.daily[0]).toEqual({ date: '2026-01-31', ...none })
      expect(body.daily.at(-1)).toEqual({ date: '2026-03-01', ...none })
      expect(body.daily.every((d: { queries: number }) => d.queries === 0)).toBe(true)
    }
  })

  test('a new base shows in the per-base breakdown with zero queries', async () => {
    const s = await signUp(t)
    const created = await t.request('/v1/corpora', {
      method: 'POST',
      headers: bearer(s.token),
      json: { name: 'Handbook' },
    })
    expect(created.status).toBe(200)
    const id = (await created.json()).id
    const body = await (await t.request('/v1/admin/usage', { headers: bearer(s.token) })).json()
    expect(body.bases).toEqual([
      {
        corpus_id: id,
        name: 'Handbook',
        queries: 0,
        load_test_queries: 0,
        compare_queries: 0,
        feedback_up: 0,
        feedback_down: 0,
        documents: 0,
        storage_bytes: 0,
      },
    ])
    expect(body.totals).toMatchObject({ bases: 1, documents: 0, queries: 0 })
  })

  test('recorded queries show in the daily series, the per-base breakdown and the totals', async () => {
    const s = await signUp(t)
    const other = await signUp(t)
    // Counts written only when the report asks for them, as questions told `later` are (Outbox.settled).
    const uncounted: (() => Promise<void>)[] = []
    const usage = new UsageService(t.store, t.clock, {
      members: () => 1,
      activeKeys: () => 0,
      bases: () => [{ id: 'cor_a', name: 'Handbook', documents: 3, storageBytes: 1200, documentBytes: 1000 }],
      feedback: () => [],
      plan: () => undefined,
      queriesUsed: () => 0,
      counted: async () => {
        for (const write of uncounted.splice(0)) await write()
      },
    })
    t.clock.set(START)
    await t.store.unit(() => usage.recordQueries(s.workspaceId, 'cor_a', 2))
    await t.store.unit(() => usage.recordQueries(other.workspaceId, 'cor_x', 9))
    t.clock.advance(86_400_000)
    await t.store.unit(() => usage.recordQueries(s.workspaceId, 'cor_a'))
    uncounted.push(() => t.store.unit(() => usage.recordQueries(s.workspaceId, 'cor_gone', 4)))
    // Load the scale test and compare sent is counted apart from people's questions.
    await t.store.unit(() => usage.recordQueries(s.workspaceId, 'cor_a', 30, undefined, 'scale_test'))
    await t.store.unit(() => usage.recordQueries(s.workspaceId, 'cor_a', 6, undefined, 'compare'))
    const report = await usage.usage(s.workspaceId)
    expect(report.totals).toMatchObject({
      queries: 7,
      load_test_queries: 30,
      compare_queries: 6,
      bases: 1,
      documents: 3,
      storage_bytes: 1200,
    })
    const unrated = { feedback_up: 0, feedback_down: 0 }
    const none = { load_test_queries: 0, compare_queries: 0, ...unrated }
    expect(report.daily.slice(-2)).toEqual([
      { date: '2026-03-01', queries: 2, ...none },
      { date: '2026-03-02', queries: 5, load_test_queries: 30, compare_queries: 6, ...unrated },
    ])
    expect(report.bases).toEqual([
      {
        corpus_id: 'cor_a',
        name: 'Handbook',
        queries: 3,
        load_test_queries: 30,
        compare_queries: 6,
        ...unrated,
        documents: 3,
        storage_bytes: 1200,
      },
      { corpus_id: 'cor_gone', name: null, queries: 4, ...none, documents: 0, storage_bytes: 0 },
    ])
    t.clock.advance(-86_400_000)
  })

  test('billing answers the beta plan of an invite-mode workspace, with no caps; members are refused', async () => {
    const s = await signUp(t)
    const m = await addMember(t, s.token)
    await mintKey(t, s.token, ['query'])
    for (const path of mounts('/admin/billing')) {
      const body = await (await t.request(path, { headers: bearer(s.token) })).json()
      expect(body).toMatchObject({
        plan: 'beta',
        billing_enabled: false,
        limits: { bases: null, documents: null, queries_per_month: null, seats: null, storage_bytes: null },
        usage: { members: 2, api_keys: 1, queries: 0 },
        estimated_cost: { amount: 0, currency: 'usd' },
      })
      await expectError(await t.request(path, { headers: bearer(m.token) }), path, 403, 'admin_required')
      await expectError(await t.request(path), path, 401, 'unauthorized')
    }
  })
})
