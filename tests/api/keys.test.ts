import { afterAll, describe, expect, test } from 'bun:test'
import { sha256Hex } from '../../src/platform/crypto/hash'
import {
  addMember,
  auditRows,
  authApp,
  bearer,
  expectError,
  issues,
  mintKey,
  mounts,
  rows,
  signUp,
  snapshot,
} from './accounts.fixture'

const t = authApp()
afterAll(() => t.close())

const create = (path: string, token: string, json: unknown) =>
  t.request(path, { method: 'POST', headers: bearer(token), json })
const revoke = (path: string, token: string) => t.request(path, { method: 'DELETE', headers: bearer(token) })

describe('creating keys', () => {
  test('the secret is ek_ + base62, shown once; only its SHA-256 and a 12-character prefix are kept', async () => {
    const s = await signUp(t)
    for (const path of mounts('/api-keys')) {
      const res = await create(path, s.token, { name: ' CI pipeline ', scopes: ['query', 'ingest', 'query'] })
      expect(res.status).toBe(200)
      const key = await res.json()
      expect(key).toEqual({
        id: expect.stringMatching(/^key_[0-9A-Za-z]{20}$/),
        name: 'CI pipeline',
        prefix: key.key.slice(0, 12),
        scopes: ['ingest', 'query'],
        corpus_ids: null,
        last_used_at: null,
        expires_at: null,
        revoked_at: null,
        created_at: t.clock.now().toISOString(),
        key: expect.stringMatching(/^ek_[0-9A-Za-z]{40}$/),
      })
      const stored = (await t.sql.get<Record<string, unknown>>(
        'SELECT * FROM api_keys WHERE id = ?',
        key.id,
      ))!
      expect(stored.secret_hash).toBe(sha256Hex(key.key))
      expect(JSON.stringify(stored)).not.toContain(key.key)
      const listed = await (await t.request(path, { headers: bearer(s.token) })).json()
      expect(JSON.stringify(listed)).not.toContain(key.key)
    }
  })

  test('creation writes an audit row naming the key, never the secret', async () => {
    const s = await signUp(t)
    const key = await mintKey(t, s.token, ['admin'])
    const row = (await auditRows(t, 'api_key.created')).find((r) => r.target_id === key.id)
    expect(row).toMatchObject({ workspace_id: s.workspaceId, actor_type: 'user', actor_id: s.userId })
    expect(JSON.parse(row!.details)).toEqual({ name: 'key admin', prefix: key.prefix, scopes: ['admin'] })
    expect(row!.details).not.toContain(key.key)
  })

  test('empty, unknown or missing scopes, and a bad name, are 422s that write nothing', async () => {
    const s = await signUp(t)
    const before = await snapshot(t)
    for (const path of mounts('/api-keys')) {
      const cases: [unknown, (string | number)[]][] = [
        [{ name: 'k', scopes: [] }, ['body', 'scopes']],
        [{ name: 'k', scopes: ['query', 'superuser'] }, ['body', 'scopes', 1]],
        [{ name: 'k', scopes: 'query' }, ['body', 'scopes']],
        [{ name: 'k' }, ['body', 'scopes']],
        [{ scopes: ['query'] }, ['body', 'name']],
        [{ name: '', scopes: ['query'] }, ['body', 'name']],
        [{ name: '   ', scopes: ['query'] }, ['body', 'name']],
        [{ name: 'n'.repeat(101), scopes: ['query'] }, ['body', 'name']],
        [{ name: 'k', scopes: ['query'], expires_at: 'tomorrow' }, ['body', 'expires_at']],
      ]
      for (const [body, loc] of cases) {
        expect((await issues(await create(path, s.token, body), path))[0]?.loc).toEqual(loc)
      }
    }
    expect(await snapshot(t)).toEqual(before)
  })

  test('expires_at must be in the future; null means never', async () => {
    const s = await signUp(t)
    const before = await snapshot(t)
    for (const path of mounts('/api-keys')) {
      for (const at of [t.clock.now().toISOString(), '2020-01-01T00:00:00Z']) {
        const found = await issues(
          await create(path, s.token, { name: 'k', scopes: ['query'], expires_at: at }),
          path,
        )
        expect(found).toEqual([
          { loc: ['body', 'expires_at'], msg: 'expires_at must be in the future', type: 'value_error' },
        ])
      }
    }
    expect(await snapshot(t)).toEqual(before)
    const never = await (
      await create('/v1/api-keys', s.token, { name: 'k', scopes: ['query'], expires_at: null })
    ).json()
    expect(never.expires_at).toBeNull()
    const later = await (
      await create('/v1/api-keys', s.token, {
        name: 'k',
        scopes: ['query'],
        expires_at: '2026-03-02T12:00:00+02:00',
      })
    ).json()
    expect(later.expires_at).toBe('2026-03-02T10:00:00.000Z')
  })

  test('minting needs the admin scope on a key, and the admin role on a session', async () => {
    const s = await signUp(t)
    const query = await mintKey(t, s.token, ['query', 'ingest'])
    const member = await addMember(t, s.token)
    const before = await snapshot(t)
    for (const path of mounts('/api-keys')) {
      const byKey = await create(path, query.key, { name: 'k', scopes: ['admin'] })
      await expectError(byKey, path, 403, 'missing_scope', 'API key missing required scope: admin')
      const byMember = await create(path, member.token, { name: 'k', scopes: ['admin'] })
      await expectError(byMember, path, 403, 'admin_required', 'Workspace admin role required.')
      await expectError(
        await create(path, 'ek_', { name: 'k', scopes: ['query'] }),
        path,
        401,
        'unauthorized',
      )
    }
    expect(await snapshot(t)).toEqual(before)
  })

  test('a key holding admin acts as an admin: it can mint and revoke keys', async () => {
    const s = await signUp(t)
    const admin = await mintKey(t, s.token, ['admin'])
    const child = await mintKey(t, admin.key, ['query'])
    const row = (await auditRows(t, 'api_key.created')).find((r) => r.target_id === child.id)
    expect(row).toMatchObject({ actor_type: 'api_key', actor_id: admin.id })
    expect((await revoke(`/v1/api-keys/${child.id}`, admin.key)).status).toBe(200)
    expect((await t.request('/v1/admin/members', { headers: bearer(admin.key) })).status).toBe(200)
  })
})

describe('listing keys', () => {
  test('newest first with revoked keys included; the frozen mount answers the whole array', async () => {
    const s = await signUp(t)
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      ids.push((await mintKey(t, s.token, ['query'])).id)
      t.clock.advance(1000)
    }
    await revoke(`/v1/api-keys/${ids[1]}`, s.token)
    const all = await (await t.request('/api-keys', { headers: bearer(s.token) })).json()
    expect(all.map((k: { id: string }) => k.id)).toEqual([...ids].reverse())
    expect(all.find((k: { id: string }) => k.id === ids[1]).revoked_at).toBe(t.clock.now().toISOString())
    expect(all.every((k: Record<string, unknown>) => !('key' in k))).toBe(true)

    const first = await t.request('/v1/api-keys?limit=2', { headers: bearer(s.token) })
    expect(first.headers.get('x-total-count')).toBe('5')
    const page1 = await first.json()
    expect(page1.items.map((k: { id: string }) => k.id)).toEqual([ids[4], ids[3]])
    const seen = [...page1.items]
    let cursor = page1.next_cursor
    while (cursor) {
      const page = await (
        await t.request(`/v1/api-keys?limit=2&cursor=${cursor}`, { headers: bearer(s.token) })
      ).json()
      seen.push(...page.items)
      cursor = page.next_cursor
    }
    expect(seen.map((k) => k.id)).toEqual([...ids].reverse())
    const bad = await t.request('/v1/api-keys?cursor=garbage', { headers: bearer(s.token) })
    await expectError(bad, '/v1', 422, 'invalid_cursor')
  })
})

describe('revoking keys', () => {
  test('revocation keeps the row, applies on the very next request, and is idempotent with one audit row', async () => {
    const s = await signUp(t)
    const key = await mintKey(t, s.token, ['query'])
    expect((await t.request('/v1/status', { headers: bearer(key.key) })).status).toBe(200)
    t.clock.advance(5000)
    const revokedAt = t.clock.now().toISOString()
    for (const path of mounts(`/api-keys/${key.id}`)) {
      const res = await revoke(path, s.token)
      expect(res.status).toBe(200)
      expect(await res.json()).toMatchObject({ id: key.id, revoked_at: revokedAt, prefix: key.prefix })
      t.clock.advance(5000)
    }
    expect((await auditRows(t, 'api_key.revoked')).filter((r) => r.target_id === key.id)).toHaveLength(1)
    expect(await rows(t, 'api_keys', `id = '${key.id}'`)).toBe(1)
    for (const path of mounts('/status')) {
      await expectError(
        await t.request(path, { headers: bearer(key.key) }),
        path,
        401,
        'unauthorized',
        'This API key has been revoked.',
      )
    }
  })

  test('a revocation or suspension committed by another process applies on the very next request', async () => {
    const s = await signUp(t)
    const a = await mintKey(t, s.token, ['query'])
    const b = await mintKey(t, s.token, ['query'])
    const write = (sql: string, params: (string | number)[]) => t.sql.runElsewhere(sql, ...params)
    const status = async (key: string) => {
      const res = await t.request('/v1/status', { headers: bearer(key) })
      if (res.status === 200) return 200
      const { error } = await res.json()
      return [res.status, error.code, error.message]
    }
    // Used twice each, so a key row reused between requests would be in play.
    for (let i = 0; i < 2; i++) expect([await status(a.key), await status(b.key)]).toEqual([200, 200])
    await write('UPDATE api_keys SET revoked_at = ? WHERE id = ?', [t.clock.now().getTime(), a.id])
    expect(await status(a.key)).toEqual([401, 'unauthorized', 'This API key has been revoked.'])
    expect(await status(b.key)).toBe(200)
    await write("UPDATE workspaces SET status = 'suspended' WHERE id = ?", [s.workspaceId])
    expect(await status(b.key)).toEqual([403, 'workspace_suspended', 'This workspace is suspended.'])
    await write("UPDATE workspaces SET status = 'active' WHERE id = ?", [s.workspaceId])
    expect(await status(b.key)).toBe(200)
    await write('DELETE FROM api_keys WHERE id = ?', [b.id])
    expect(await status(b.key)).toEqual([401, 'unauthorized', 'Invalid API key.'])
  })

  test('an unknown key id is a 404 that writes nothing', async () => {
    const s = await signUp(t)
    const before = await snapshot(t)
    for (const path of mounts('/api-keys/key_doesnotexist000000')) {
      await expectError(await revoke(path, s.token), path, 404, 'not_found', 'API key not found.')
    }
    expect(await snapshot(t)).toEqual(before)
  })
})

describe('authenticating with keys', () => {
  test('an expired key is a 401 from the moment it expires', async () => {
    const s = await signUp(t)
    const key = await mintKey(t, s.token, ['query'], { expires_at: '2026-03-01T13:00:00Z' })
    t.clock.set('2026-03-01T12:59:59Z')
    expect((await t.request('/v1/status', { headers: bearer(key.key) })).status).toBe(200)
    t.clock.set('2026-03-01T13:00:00Z')
    for (const path of mounts('/status')) {
      await expectError(
        await t.request(path, { headers: bearer(key.key) }),
        path,
        401,
        'unauthorized',
        'This API key has expired.',
      )
    }
    t.clock.set('2026-03-01T12:00:00Z')
  })

  test('a mistyped key is a 401 on both mounts', async () => {
    const s = await signUp(t)
    const key = await mintKey(t, s.token, ['query'])
    const flip = (c: string) => (c === 'a' ? 'b' : 'a')
    const typos = [
      `${key.key.slice(0, -1)}${flip(key.key.at(-1)!)}`,
      key.key.slice(0, -1),
      `${key.key}0`,
      key.key.toUpperCase(),
      `ek-${key.key.slice(3)}`,
      `ek_${'0'.repeat(40)}`,
      `${key.key.slice(0, 20)}!${key.key.slice(21)}`,
    ]
    for (const path of mounts('/status')) {
      for (const typo of typos) {
        await expectError(await t.request(path, { headers: bearer(typo) }), path, 401, 'unauthorized')
      }
    }
  })

  test('last_used_at is written on use, at most once a minute', async () => {
    const s = await signUp(t)
    const key = await mintKey(t, s.token, ['query'])
    const lastUsed = async () =>
      (await t.sql.get<{ v: number | null }>('SELECT last_used_at AS v FROM api_keys WHERE id = ?', key.id))!
        .v
    expect(await lastUsed()).toBeNull()
    const first = t.clock.now().getTime()
    await t.request('/v1/status', { headers: bearer(key.key) })
    expect(await lastUsed()).toBe(first)
    t.clock.advance(59_000)
    await t.request('/v1/status', { headers: bearer(key.key) })
    expect(await lastUsed()).toBe(first)
    t.clock.advance(1_000)
    await t.request('/v1/status', { headers: bearer(key.key) })
    expect(await lastUsed()).toBe(first + 60_000)
    const listed = await (await t.request('/api-keys', { headers: bearer(s.token) })).json()
    expect(listed.find((k: { id: string }) => k.id === key.id).last_used_at).toBe(
      new Date(first + 60_000).toISOString(),
    )
  })

  test('a key without admin acts as a member: admin routes name the missing scope', async () => {
    const s = await signUp(t)
    for (const scopes of [['query'], ['ingest'], ['ingest', 'query']]) {
      const key = await mintKey(t, s.token, scopes)
      for (const path of [...mounts('/admin/members'), ...mounts('/admin/usage'), ...mounts('/api-keys')]) {
        const res = await t.request(path, { headers: bearer(key.key) })
        await expectError(res, path, 403, 'missing_scope', 'API key missing required scope: admin')
      }
      expect((await t.request('/status/slo', { headers: bearer(key.key) })).status).toBe(200)
    }
  })
})
