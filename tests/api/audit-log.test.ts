import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import type { TestApp } from '../helpers/app'
import {
  addMember,
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
} from './accounts.fixture'
import { createBase, upload } from './ingest.fixture'
import { call, connection, folderOf, source } from './sources.fixture'

// Issue 36: every security-relevant action writes one row of the audit log, read through
// GET /v1/audit with filters and cursor pages, by the workspace's admins only.

interface Entry {
  id: string
  seq: number
  created_at: string
  action: string
  actor_type: string
  actor_id: string | null
  target_type: string | null
  target_id: string | null
  details: Record<string, unknown>
  ip: string | null
  request_id: string | null
  prev_hash: string | null
  hash: string
}

interface Page {
  items: Entry[]
  total: number
  next_cursor: string | null
}

let t: TestApp
let roots = ''
let tenants = ''
let share = ''

beforeAll(() => {
  roots = folderOf({})
  tenants = folderOf({})
  share = folderOf({ 'a.txt': 'Alpha file.' }, join(roots, 'share'))
  t = authApp({ env: { ENGRAM_SOURCES_FOLDER_ROOTS: `*=${tenants}/{workspace_id}` } })
})
afterAll(() => {
  t.close()
  for (const d of [roots, tenants]) rmSync(d, { recursive: true, force: true })
})

/** GET /v1/audit with a query; expects 200. */
async function audit(token: string, query = '', path = '/v1/audit'): Promise<Page> {
  const res = await t.request(`${path}${query ? `?${query}` : ''}`, { headers: bearer(token) })
  expect(res.status).toBe(200)
  const body = (await res.json()) as Omit<Page, 'total'>
  return { ...body, total: Number(res.headers.get('x-total-count')) }
}

/** The rows of one action, newest first. */
async function rowsOf(token: string, action: string): Promise<Entry[]> {
  return (await audit(token, `action=${action}&limit=500`)).items
}

describe('each action writes its row', () => {
  test('sign-ins, refused sign-ins, passwords, keys, invitations and members', async () => {
    const a = await signUp(t)
    const who = { actor_type: 'user', actor_id: a.userId, target_type: 'user', target_id: a.userId }
    expect(await rowsOf(a.token, 'auth.sign_in')).toMatchObject([
      { ...who, details: { method: 'register', session_class: 'normal' } },
    ])
    await signIn(t, a.email, a.password)
    const refused = await t.request('/v1/auth/login', {
      ...form({ username: a.email, password: 'not it' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '198.51.100.7' },
    })
    expect(refused.status).toBe(401)
    expect(await rowsOf(a.token, 'auth.sign_in_failed')).toMatchObject([
      { ...who, details: { method: 'password', reason: 'invalid_credentials' } },
    ])
    const changed = await t.request('/v1/auth/change-password', {
      method: 'POST',
      headers: bearer(a.token),
      json: { current_password: a.password, new_password: 'a new password 2' },
    })
    expect(changed.status).toBe(200)
    const token = ((await changed.json()) as { access_token: string }).access_token
    expect(await rowsOf(token, 'auth.password_changed')).toMatchObject([{ ...who, details: {} }])

    const key = await mintKey(t, token, ['query'])
    expect(
      (await t.request(`/v1/api-keys/${key.id}`, { method: 'DELETE', headers: bearer(token) })).status,
    ).toBe(200)
    const keyRow = { actor_id: a.userId, target_type: 'api_key', target_id: key.id }
    expect(await rowsOf(token, 'api_key.created')).toMatchObject([
      { ...keyRow, details: { name: 'key query', prefix: key.prefix, scopes: ['query'] } },
    ])
    expect(await rowsOf(token, 'api_key.revoked')).toMatchObject([
      { ...keyRow, details: { name: 'key query', prefix: key.prefix } },
    ])

    const m = await addMember(t, token)
    const invited = await rowsOf(token, 'member.invited')
    expect(invited).toMatchObject([
      {
        actor_id: a.userId,
        target_type: 'invite',
        details: { email: m.email, role: 'member', reissued: false },
      },
    ])
    expect(await rowsOf(token, 'member.joined')).toMatchObject([
      {
        actor_id: m.userId,
        target_id: m.userId,
        details: { role: 'member', invite_id: invited[0]!.target_id },
      },
    ])
    const patched = await t.request(`/v1/admin/members/${m.userId}`, {
      method: 'PATCH',
      headers: bearer(token),
      json: { role: 'admin' },
    })
    expect(patched.status).toBe(200)
    expect(await rowsOf(token, 'member.role_changed')).toMatchObject([
      { actor_id: a.userId, target_id: m.userId, details: { email: m.email, from: 'member', to: 'admin' } },
    ])
    const removed = await t.request(`/v1/admin/members/${m.userId}`, {
      method: 'DELETE',
      headers: bearer(token),
    })
    expect(removed.status).toBe(204)
    expect(await rowsOf(token, 'member.removed')).toMatchObject([
      { target_id: m.userId, details: { email: m.email, role: 'admin' } },
    ])

    const inv = await t.request('/v1/admin/invites', {
      method: 'POST',
      headers: bearer(token),
      json: { email: 'later@example.com', role: 'member' },
    })
    expect(inv.status).toBe(200)
    const open = (await rowsOf(token, 'member.invited'))[0]!
    const withdrawn = await t.request(`/v1/admin/invites/${open.target_id}`, {
      method: 'DELETE',
      headers: bearer(token),
    })
    expect(withdrawn.status).toBe(204)
    expect(await rowsOf(token, 'member.invite_revoked')).toMatchObject([
      { actor_id: a.userId, target_type: 'invite', target_id: open.target_id },
    ])
  })

  test('connections, sources, downloads and deletions; never a secret', async () => {
    const a = await signUp(t)
    symlinkSync(roots, join(tenants, a.workspaceId))
    const s3 = await connection(t, a.token, {
      kind: 's3',
      name: 'Bucket',
      settings: { endpoint: 'https://s3.example.com', bucket: 'docs' },
      secrets: { access_key: 'AKIAAUDITKEY', secret_key: 'audit-secret-value-0123456789' },
    })
    const put = await call(t, a.token, 'PUT', `/v1/connections/${s3}`, {
      secrets: { secret_key: 'another-secret-value-98765' },
    })
    expect(put.status).toBe(200)
    expect((await call(t, a.token, 'DELETE', `/v1/connections/${s3}`)).status).toBe(204)
    const conn = { target_type: 'connection', target_id: s3 }
    expect(await rowsOf(a.token, 'connection.created')).toMatchObject([
      { ...conn, details: { kind: 's3', name: 'Bucket' } },
    ])
    expect(await rowsOf(a.token, 'connection.updated')).toMatchObject([
      { ...conn, details: { kind: 's3', secrets: ['secret_key'] } },
    ])
    expect(await rowsOf(a.token, 'connection.deleted')).toMatchObject([conn])

    const base = await createBase(t, a.token)
    const folder = await connection(t, a.token, { kind: 'folder', name: 'Share' })
    const src = await source(t, a.token, base, { connection_id: folder, folder: share, name: 'Share' })
    expect(
      (await call(t, a.token, 'PUT', `/v1/corpora/${base}/sources/${src}`, { name: 'Renamed' })).status,
    ).toBe(200)
    expect((await call(t, a.token, 'DELETE', `/v1/corpora/${base}/sources/${src}`)).status).toBe(200)
    const srcRow = { actor_id: a.userId, target_type: 'source', target_id: src }
    expect(await rowsOf(a.token, 'source.created')).toMatchObject([
      { ...srcRow, details: { corpus_id: base, connection_id: folder, name: 'Share' } },
    ])
    expect(await rowsOf(a.token, 'source.updated')).toMatchObject([
      { ...srcRow, details: { name: 'Renamed' } },
    ])
    expect(await rowsOf(a.token, 'source.deleted')).toMatchObject([
      { ...srcRow, details: { deleted_documents: 0 } },
    ])

    const up = await upload(t, a.token, base, [
      { filename: 'notes.txt', content: new TextEncoder().encode('Notes about the audit log.') },
    ])
    expect(up.status).toBe(200)
    const doc = ((await up.json()) as { id: string }[])[0]!.id
    const raw = await t.request(`/v1/corpora/${base}/documents/${doc}/raw`, { headers: bearer(a.token) })
    expect(raw.status).toBe(200)
    await raw.arrayBuffer()
    expect(await rowsOf(a.token, 'document.downloaded')).toMatchObject([
      { target_type: 'document', target_id: doc, details: { corpus_id: base, filename: 'notes.txt' } },
    ])
    const del = await t.request(`/v1/corpora/${base}/documents/${doc}`, {
      method: 'DELETE',
      headers: bearer(a.token),
    })
    expect(del.status).toBe(204)
    expect(
      (await t.request(`/v1/corpora/${base}`, { method: 'DELETE', headers: bearer(a.token) })).status,
    ).toBe(204)
    const receipts = (await audit(a.token, '', '/v1/audit/deletions')).items
    expect(receipts).toMatchObject([
      {
        action: 'corpus.deleted',
        target_id: base,
        details: { name: 'Drive', documents: 0, rows: 0, build_running: false },
      },
      {
        action: 'document.deleted',
        target_id: doc,
        details: { corpus_id: base, filename: 'notes.txt', rows: 1, via: 'api', build_running: false },
      },
    ])

    // Secrets and credentials appear in no row, in the log of the server, nor in an export.
    const everything = JSON.stringify(await audit(a.token, 'limit=500'))
    const exported = await (
      await t.request('/v1/audit/export?format=csv', { headers: bearer(a.token) })
    ).text()
    for (const secret of [
      'AKIAAUDITKEY',
      'audit-secret-value',
      'another-secret-value',
      a.token,
      a.password,
    ]) {
      expect(everything).not.toContain(secret)
      expect(exported).not.toContain(secret)
      expect(JSON.stringify(t.log.lines)).not.toContain(secret)
    }
  })

  test('renaming the workspace: from, to, by whom (a session or an admin key)', async () => {
    const a = await signUp(t, { workspace_name: 'Acme' })
    const setup = await t.request('/v1/auth/setup', {
      method: 'POST',
      headers: bearer(a.token),
      json: { workspace_name: 'Acme Legal', name: 'Ada' },
    })
    expect(setup.status).toBe(200)
    const key = await mintKey(t, a.token, ['admin'])
    const byKey = await t.request('/v1/auth/setup', {
      method: 'POST',
      headers: bearer(key.key),
      json: { workspace_name: 'Acme Legal EU', name: 'ignored' },
    })
    expect(byKey.status).toBe(200)
    const ws = { target_type: 'workspace', target_id: a.workspaceId }
    expect(await rowsOf(a.token, 'workspace.renamed')).toMatchObject([
      {
        ...ws,
        actor_type: 'api_key',
        actor_id: key.id,
        details: { from: 'Acme Legal', to: 'Acme Legal EU' },
      },
      { ...ws, actor_type: 'user', actor_id: a.userId, details: { from: 'Acme', to: 'Acme Legal' } },
    ])
  })

  test("a base's settings: the field, from and to, by whom; a PATCH that changes nothing or is refused writes none", async () => {
    const a = await signUp(t)
    const base = await createBase(t, a.token)
    const key = await mintKey(t, a.token, ['ingest'])
    const patch = (token: string, json: unknown) =>
      t.request(`/v1/corpora/${base}`, { method: 'PATCH', headers: bearer(token), json })
    expect((await patch(a.token, { auto_onboard: false })).status).toBe(200)
    expect((await patch(key.key, { auto_onboard: false })).status).toBe(200)
    expect((await patch(key.key, { auto_onboard: 'no' })).status).toBe(422)
    expect((await patch(key.key, { auto_onboard: true })).status).toBe(200)
    const target = { target_type: 'corpus', target_id: base }
    expect(await rowsOf(a.token, 'corpus.settings_changed')).toMatchObject([
      {
        ...target,
        actor_type: 'api_key',
        actor_id: key.id,
        details: { auto_onboard: { from: false, to: true } },
      },
      {
        ...target,
        actor_type: 'user',
        actor_id: a.userId,
        details: { auto_onboard: { from: true, to: false } },
      },
    ])
  })

  test('an export is itself audited: who, the format and the filters', async () => {
    const a = await signUp(t)
    const res = await t.request('/v1/audit/export?format=jsonl&action=auth.*', { headers: bearer(a.token) })
    expect(res.status).toBe(200)
    await res.text()
    const usage = await t.request('/v1/usage/export?format=csv&from=2026-01-01', { headers: bearer(a.token) })
    expect(usage.status).toBe(200)
    await usage.text()
    expect(await rowsOf(a.token, 'audit.exported')).toMatchObject([
      { actor_id: a.userId, details: { format: 'jsonl', action: 'auth.*' } },
    ])
    expect(await rowsOf(a.token, 'usage.exported')).toMatchObject([
      { actor_id: a.userId, details: { format: 'csv', from: '2026-01-01', to: '9999-12-31' } },
    ])
  })
})

describe('reading the log', () => {
  test('newest first in cursor pages that together hold every row once', async () => {
    const a = await signUp(t)
    for (let i = 0; i < 6; i++) await mintKey(t, a.token, ['query'])
    const whole = await audit(a.token, 'limit=500')
    expect(whole.items.map((e) => e.seq)).toEqual([...whole.items.map((e) => e.seq)].sort((x, y) => y - x))
    const seen: number[] = []
    let cursor: string | null = null
    do {
      const page: Page = await audit(a.token, `limit=3${cursor ? `&cursor=${cursor}` : ''}`)
      expect(page.items.length).toBeLessThanOrEqual(3)
      expect(page.total).toBe(whole.total)
      seen.push(...page.items.map((e) => e.seq))
      cursor = page.next_cursor
    } while (cursor)
    expect(seen).toEqual(whole.items.map((e) => e.seq))
    expect(new Set(seen).size).toBe(whole.total)
    // The frozen mount answers the whole list as an array.
    const frozen = await t.request('/audit', { headers: bearer(a.token) })
    expect(((await frozen.json()) as Entry[]).map((e) => e.seq)).toEqual(seen)
  })

  test('filters by actor, action, a family of actions, target and time, all at once', async () => {
    const a = await signUp(t)
    const admin2 = await addMember(t, a.token, 'admin')
    t.clock.advance(60_000)
    const mid = t.clock.now().toISOString()
    const k1 = await mintKey(t, a.token, ['query'])
    t.clock.advance(60_000)
    const k2 = await mintKey(t, admin2.token, ['ingest'])
    const late = t.clock.now().toISOString()
    t.clock.advance(60_000)
    await signIn(t, a.email, a.password)

    const actions = async (q: string) =>
      (await audit(a.token, q)).items.map((e) => `${e.action}:${e.target_id}`)
    expect(await actions(`actor=${admin2.userId}`)).toEqual([
      `api_key.created:${k2.id}`,
      `auth.sign_in:${admin2.userId}`,
      `member.joined:${admin2.userId}`,
    ])
    expect(await actions(`target=${k1.id}`)).toEqual([`api_key.created:${k1.id}`])
    expect(await actions('action=api_key.created')).toEqual([
      `api_key.created:${k2.id}`,
      `api_key.created:${k1.id}`,
    ])
    expect(await actions('action=api_key.*')).toEqual([
      `api_key.created:${k2.id}`,
      `api_key.created:${k1.id}`,
    ])
    expect(await actions(`action=auth.*&actor=${a.userId}`)).toEqual([
      `auth.sign_in:${a.userId}`,
      `auth.sign_in:${a.userId}`,
    ])
    expect(await actions(`since=${encodeURIComponent(mid)}&until=${encodeURIComponent(late)}`)).toEqual([
      `api_key.created:${k1.id}`,
    ])
    expect(await actions(`since=${encodeURIComponent(late)}&action=api_key.created`)).toEqual([
      `api_key.created:${k2.id}`,
    ])
    const page = await audit(a.token, `action=api_key.created&limit=1`)
    expect(page.total).toBe(2)
    expect(page.next_cursor).not.toBeNull()
  })

  test('bad filters are 422 naming the field, on both mounts', async () => {
    const a = await signUp(t)
    for (const path of mounts('/audit')) {
      for (const [q, field] of [
        ['since=yesterday', 'since'],
        ['until=2026-13-01T00:00:00Z', 'until'],
        ['action=auth.%25', 'action'],
        ['action=DROP TABLE', 'action'],
        ['actor=usr_1%27--', 'actor'],
        [`target=${'x'.repeat(65)}`, 'target'],
      ] as const) {
        const res = await t.request(`${path}?${q}`, { headers: bearer(a.token) })
        expect((await issues(res, path)).map((i) => i.loc)).toEqual([['query', field]])
      }
      const res = await t.request(`${path}?since=2026-03-02T00:00:00Z&until=2026-03-01T00:00:00Z`, {
        headers: bearer(a.token),
      })
      await expectError(res, path, 422, 'validation_error')
    }
    const cursor = await t.request('/v1/audit?cursor=not-a-cursor', { headers: bearer(a.token) })
    await expectError(cursor, '/v1/audit', 422, 'invalid_cursor', 'The pagination cursor is not valid.')
    const whole = await t.request('/v1/audit?until=2026-03-01T00:00:00Z&since=2026-03-01T00:00:00Z', {
      headers: bearer(a.token),
    })
    expect(await whole.json()).toEqual({
      error: {
        code: 'validation_error',
        status: 422,
        message: '`until` must be after `since`.',
        details: [{ loc: ['query', 'until'], msg: 'Must be after since', type: 'value_error' }],
        request_id: whole.headers.get('x-request-id'),
      },
    })
  })

  test("admins only, and never another workspace's rows", async () => {
    const a = await signUp(t)
    const b = await signUp(t)
    const bKey = await mintKey(t, b.token, ['admin'])
    const member = await addMember(t, a.token)
    const queryKey = await mintKey(t, a.token, ['query', 'ingest'])
    for (const path of ['/v1/audit', '/v1/audit/deletions', '/v1/audit/export', '/v1/audit/verify']) {
      await expectError(await t.request(path, { headers: bearer(member.token) }), path, 403, 'admin_required')
      await expectError(await t.request(path, { headers: bearer(queryKey.key) }), path, 403, 'missing_scope')
      await expectError(await t.request(path), path, 401, 'unauthorized')
    }
    const mine = await audit(a.token, 'limit=500')
    expect(mine.items.every((e) => JSON.stringify(e).indexOf(b.workspaceId) === -1)).toBe(true)
    expect(mine.items.find((e) => e.target_id === bKey.id)).toBeUndefined()
    expect((await audit(a.token, `target=${bKey.id}`)).items).toEqual([])
    expect((await audit(a.token, `actor=${b.userId}`)).items).toEqual([])
    // An admin key reads its own workspace's log.
    const theirs = await audit(bKey.key, `target=${bKey.id}`)
    expect(theirs.items.map((e) => e.action)).toEqual(['api_key.created'])
    expect(await rows(t, 'audit_events', `workspace_id = '${b.workspaceId}'`)).toBeGreaterThan(0)
  })
})
