import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { TestApp } from '../helpers/app'
import { train, upload } from '../helpers/ready-base'
import {
  addMember,
  auditRows,
  authApp,
  bearer,
  expectError,
  mintKey,
  mounts,
  rows,
  signUp,
} from './accounts.fixture'
import { createBase } from './ingest.fixture'
import { rowsNaming } from './route-walk.fixture'
import { call, connection, folderOf, paths, type RunBody, source, syncNow } from './sources.fixture'
import { THREE_TOPICS } from './texts.fixture'

let t: TestApp
let roots: string
let tenants: string
let share: string
let outside: string
let admin: Awaited<ReturnType<typeof signUp>>

/** Grants `roots` to a workspace: its folder under the `*=<tenants>/{workspace_id}` template. */
const grantRoots = (workspaceId: string) => symlinkSync(roots, join(tenants, workspaceId))

beforeAll(async () => {
  roots = folderOf({})
  tenants = folderOf({})
  share = folderOf(
    { 'a.txt': 'Alpha file.', 'b.md': '# Beta\n\nBeta file.', 'sub/c.txt': 'Gamma file.' },
    join(roots, 'share'),
  )
  outside = folderOf({ 'secret.txt': 'Not for the base.' })
  t = authApp({
    env: {
      ENGRAM_SOURCES_FOLDER_ROOTS: `*=${tenants}/{workspace_id}`,
      // Connections below name an S3 endpoint on loopback (nothing is fetched from it).
      ENGRAM_SOURCES_ALLOW_LOOPBACK: 'true',
    },
  })
  admin = await signUp(t)
  grantRoots(admin.workspaceId)
})

afterAll(() => {
  t.close()
  for (const d of [roots, tenants, outside]) rmSync(d, { recursive: true, force: true })
})

const folderConnection = (token = admin.token) =>
  connection(t, token, { kind: 'folder', name: 'Server share' })

describe('connections', () => {
  test('are created, listed and read with the secret fields named, never their values', async () => {
    const id = await connection(t, admin.token, {
      kind: 's3',
      name: 'Bucket',
      settings: { endpoint: 'http://127.0.0.1:9', bucket: 'docs' },
      secrets: { access_key: 'AKIAEXAMPLEKEY', secret_key: 'very-secret-value-0123456789' },
    })
    const list = await t.request('/v1/connections', { headers: bearer(admin.token) })
    const text = await list.text()
    expect(text).not.toContain('very-secret-value')
    expect(text).not.toContain('AKIAEXAMPLEKEY')
    const one = await call(t, admin.token, 'GET', `/v1/connections/${id}`)
    expect(one.body).toMatchObject({ kind: 's3', secrets_set: ['access_key', 'secret_key'], sources: 0 })
    const stored = (await t.sql.get<{ secrets: string }>('SELECT secrets FROM connections WHERE id = ?', id))!
    expect(stored.secrets).not.toContain('very-secret-value')
    // A PUT replaces the secrets it names and keeps the others.
    const put = await call(t, admin.token, 'PUT', `/v1/connections/${id}`, {
      secrets: { access_key: 'AKIAOTHER' },
    })
    expect(put.body).toMatchObject({ secrets_set: ['access_key', 'secret_key'] })
    expect(t.log.lines.some((l) => JSON.stringify(l).includes('very-secret-value'))).toBe(false)
    expect((await call(t, admin.token, 'DELETE', `/v1/connections/${id}`)).status).toBe(204)
    // Each change is in the audit log with who made it; an update names the secret fields written.
    for (const action of ['connection.created', 'connection.updated', 'connection.deleted']) {
      const [row] = (await auditRows(t, action)).filter((r) => r.target_id === id)
      expect(row).toMatchObject({
        workspace_id: admin.workspaceId,
        actor_type: 'user',
        actor_id: admin.userId,
      })
      expect(row!.details).not.toContain('very-secret-value')
    }
    expect(
      JSON.parse((await auditRows(t, 'connection.updated')).find((r) => r.target_id === id)!.details),
    ).toEqual({
      kind: 's3',
      name: 'Bucket',
      secrets: ['access_key'],
    })
  })

  test('an unknown kind, a missing field or credentials of the wrong shape are 422 and write nothing', async () => {
    const before = await rows(t, 'connections')
    const bad = [
      { kind: 'ftp', name: 'Nope' },
      { kind: 's3', name: 'No bucket', settings: { endpoint: 'http://127.0.0.1:9' }, secrets: {} },
      {
        kind: 's3',
        name: 'Wrong shape',
        settings: { endpoint: 'http://127.0.0.1:9', bucket: 'docs' },
        secrets: { access_key: 12, secret_key: ['hunter2-hunter2'] },
      },
      { kind: 'folder', name: 'Extra', settings: { password: 'hunter2-hunter2' } },
      { kind: 'folder' },
    ]
    for (const body of bad) {
      const res = await t.request('/v1/connections', {
        method: 'POST',
        headers: bearer(admin.token),
        json: body,
      })
      const text = await res.clone().text()
      await expectError(res, '/v1', 422, 'validation_error')
      expect(text).not.toContain('hunter2')
    }
    expect(await rows(t, 'connections')).toBe(before)
  })

  test('writes need an admin; another workspace sees 404', async () => {
    const id = await folderConnection()
    const member = await addMember(t, admin.token)
    const res = await t.request('/v1/connections', {
      method: 'POST',
      headers: bearer(member.token),
      json: { kind: 'folder', name: 'Mine' },
    })
    expect(res.status).toBe(403)
    const ingestKey = await mintKey(t, admin.token, ['ingest'])
    const keyed = await t.request(`/v1/connections/${id}`, {
      method: 'DELETE',
      headers: bearer(ingestKey.key),
    })
    await expectError(keyed, '/v1', 403, 'missing_scope')
    const other = await signUp(t, { workspace_name: 'Neighbours' })
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const r = await t.request(`/v1/connections/${id}`, {
        method,
        headers: bearer(other.token),
        ...(method === 'PUT' ? { json: { name: 'Stolen' } } : {}),
      })
      await expectError(r, '/v1', 404, 'not_found')
    }
    expect((await call(t, admin.token, 'GET', `/v1/connections/${id}`)).body).toMatchObject({
      name: 'Server share',
    })
  })
})

describe('a server folder as a source', () => {
  test('a folder outside the roots, a `..` or symlink escape, a relative path: each refused, nothing written', async () => {
    const base = await createBase(t, admin.token)
    const conn = await folderConnection()
    const escapeLink = join(share, 'escape')
    symlinkSync(outside, escapeLink)
    try {
      const cases: [string, number, string][] = [
        [outside, 422, 'folder_root_not_allowed'],
        [`${share}/../../${outside.split('/').pop()}`, 422, 'folder_root_not_allowed'],
        [escapeLink, 422, 'folder_root_not_allowed'],
        ['share/relative', 422, 'invalid_folder'],
        [join(roots, 'missing'), 422, 'source_folder_not_found'],
      ]
      for (const [folder, status, code] of cases) {
        const res = await t.request(`/v1/corpora/${base}/sources`, {
          method: 'POST',
          headers: bearer(admin.token),
          json: { connection_id: conn, folder },
        })
        await expectError(res, '/v1', status, code)
      }
      const tooOften = await t.request(`/v1/corpora/${base}/sources`, {
        method: 'POST',
        headers: bearer(admin.token),
        json: { connection_id: conn, folder: share, interval_minutes: 1 },
      })
      await expectError(tooOften, '/v1', 422, 'validation_error')
      expect(await rows(t, 'sources')).toBe(0)
    } finally {
      unlinkSync(escapeLink)
    }
  })

  test('syncs: created, then unchanged, updated and deleted as the folder changes', async () => {
    const base = await createBase(t, admin.token)
    const conn = await folderConnection()
    const dir = folderOf(
      { 'a.txt': 'Alpha file.', 'b.md': '# Beta\n\nBeta file.', 'sub/c.txt': 'Gamma file.' },
      join(roots, 'sync-test'),
    )
    const id = await source(t, admin.token, base, { connection_id: conn, folder: dir })
    expect(
      (await call(t, admin.token, 'POST', `/v1/corpora/${base}/sources/${id}/validate`)).body,
    ).toMatchObject({
      ok: true,
      kind: 'folder',
    })
    const first = await syncNow(t, admin.token, base, id)
    expect(first).toMatchObject({
      status: 'succeeded',
      created: 3,
      updated: 0,
      unchanged: 0,
      deleted: 0,
      source_id: id,
    })
    expect(await paths(t, admin.token, base)).toEqual(['a.txt', 'b.md', 'sub/c.txt'])
    expect(await syncNow(t, admin.token, base, id)).toMatchObject({ created: 0, unchanged: 3, deleted: 0 })
    writeFileSync(join(dir, 'a.txt'), 'Alpha file, second edition.')
    unlinkSync(join(dir, 'b.md'))
    writeFileSync(join(dir, 'sub/d.txt'), 'Delta file.')
    const third = await syncNow(t, admin.token, base, id)
    expect(third).toMatchObject({ created: 1, updated: 1, unchanged: 1, deleted: 1, failed: 0 })
    expect(await paths(t, admin.token, base)).toEqual(['a.txt', 'sub/c.txt', 'sub/d.txt'])
    const listed = await call<{ items: { id: string; last_run: RunBody; syncing: boolean }[] }>(
      t,
      admin.token,
      'GET',
      `/v1/corpora/${base}/sources`,
    )
    expect(listed.body.items[0]).toMatchObject({ id, syncing: false, last_run: { id: third.id } })
  })

  test('last_synced_at is null until a sync lists its folder to the end; uploads and failed syncs leave it', async () => {
    const base = await createBase(t, admin.token)
    const synced = async () =>
      (await call<{ last_synced_at: string | null }>(t, admin.token, 'GET', `/v1/corpora/${base}`)).body
        .last_synced_at
    await upload(t, admin.token, base, [{ path: 'by-hand.txt', text: 'Uploaded in the console.' }])
    await t.jobs.scheduler.drain()
    // An upload is no sync: the console would say "last synced" beside "no syncs or imports yet".
    expect(await synced()).toBeNull()
    const dir = folderOf({ 'a.txt': 'Alpha file.' }, join(roots, 'synced-at'))
    const id = await source(t, admin.token, base, { connection_id: await folderConnection(), folder: dir })
    t.clock.advance(60_000)
    const at = t.clock.now().toISOString()
    expect(await syncNow(t, admin.token, base, id)).toMatchObject({ status: 'succeeded', created: 1 })
    expect(await synced()).toBe(at)
    // A sync that cannot read its folder has not synced.
    rmSync(dir, { recursive: true, force: true })
    t.clock.advance(60_000)
    expect(await syncNow(t, admin.token, base, id)).toMatchObject({ status: 'failed' })
    expect(await synced()).toBe(at)
  })

  test('a file deleted at the source is gone from every store and table, and no longer cited', async () => {
    const owner = await signUp(t, { workspace_name: 'Deletion' })
    grantRoots(owner.workspaceId)
    const queryKey = (await mintKey(t, owner.token, ['query'])).key
    const base = await createBase(t, owner.token)
    const conn = await folderConnection(owner.token)
    const dir = folderOf(Object.fromEntries(THREE_TOPICS.map((f) => [f.path, f.text])), join(roots, 'topics'))
    const id = await source(t, owner.token, base, { connection_id: conn, folder: dir })
    await syncNow(t, owner.token, base, id)
    await train(t, owner.token, base)
    const docs = await call<{ id: string; filename: string }[]>(
      t,
      owner.token,
      'GET',
      `/corpora/${base}/documents`,
    )
    const oil = docs.body.find((d) => d.filename === 'oil.txt')!.id
    const question = 'When did the oil crisis begin and what did OAPEC proclaim?'
    const ask = async (strategy: string) =>
      (
        await call<{ used_docs: string[]; answer: string; sources: unknown[] }>(
          t,
          queryKey,
          'POST',
          `/v1/corpora/${base}/chat`,
          {
            question,
            strategy,
          },
        )
      ).body
    for (const strategy of ['cart', 'rag']) expect((await ask(strategy)).used_docs).toContain(oil)

    unlinkSync(join(dir, 'oil.txt'))
    expect(await syncNow(t, owner.token, base, id)).toMatchObject({ deleted: 1, unchanged: 2 })
    for (const strategy of ['cart', 'rag']) {
      const body = await ask(strategy)
      expect(body.used_docs).not.toContain(oil)
      expect(JSON.stringify([body.answer, body.sources])).not.toContain('OAPEC')
    }
    const left = await rowsNaming(t, [oil])
    // What remains names the document only as history, as after a user's delete: its deletion
    // receipt, the delivered `document.*` events, and the finished onboarding and extraction batches
    // that once read it.
    const tables = Object.keys(left).filter((k) => k !== '(objects)')
    expect(tables.sort()).toEqual(['audit_events', 'domain_events', 'jobs'])
    for (const job of left.jobs!) {
      expect(JSON.parse(job)).toMatchObject({ status: 'succeeded' })
      expect(['train_batch', 'ingest.extract']).toContain(JSON.parse(job).kind)
    }
    const events = left.domain_events!.map(
      (e) => JSON.parse(e) as { type: string; delivered_at: number | null },
    )
    expect(events.map((e) => e.type).sort()).toEqual([
      'document.created',
      'document.deleted',
      'document.ready',
    ])
    expect(events.every((e) => e.delivered_at !== null)).toBe(true)
    expect(left['(objects)']!.filter((k) => k.includes(oil))).toEqual([])
    const receipt = JSON.parse(left.audit_events!.find((r) => r.includes('document.deleted'))!) as {
      details: string
    }
    expect(JSON.parse(receipt.details)).toMatchObject({ filename: 'oil.txt', via: 'source' })
  })

  test('one sync at a time; cancel ends the run canceled', async () => {
    const base = await createBase(t, admin.token)
    const id = await source(t, admin.token, base, { connection_id: await folderConnection(), folder: share })
    const started = await call<RunBody>(t, admin.token, 'POST', `/v1/corpora/${base}/sources/${id}/sync`)
    expect(started.status).toBe(202)
    await expectError(
      await t.request(`/v1/corpora/${base}/sources/${id}/sync`, {
        method: 'POST',
        headers: bearer(admin.token),
      }),
      '/v1',
      409,
      'sync_in_progress',
    )
    const canceled = await call<RunBody>(t, admin.token, 'POST', `/v1/corpora/${base}/sources/${id}/cancel`)
    expect(canceled.body).toMatchObject({ id: started.body.id, status: 'canceled' })
    await t.jobs.scheduler.drain()
    expect(await paths(t, admin.token, base)).toEqual([])
    expect((await syncNow(t, admin.token, base, id)).created).toBeGreaterThan(0)
  })

  test('a schedule runs syncs through the queue', async () => {
    const base = await createBase(t, admin.token)
    const id = await source(t, admin.token, base, {
      connection_id: await folderConnection(),
      folder: share,
      interval_minutes: 10,
    })
    const created = await call<{ next_sync_at: string; last_run: null }>(
      t,
      admin.token,
      'GET',
      `/v1/corpora/${base}/sources/${id}`,
    )
    expect(Date.parse(created.body.next_sync_at) - t.clock.now().getTime()).toBe(10 * 60_000)
    await t.jobs.scheduler.drain()
    expect(await paths(t, admin.token, base)).toEqual([])
    t.clock.advance(10 * 60_000)
    await t.jobs.scheduler.drain()
    const after = await call<{ next_sync_at: string; last_run: RunBody }>(
      t,
      admin.token,
      'GET',
      `/v1/corpora/${base}/sources/${id}`,
    )
    expect(after.body.last_run).toMatchObject({ created: 3, status: 'succeeded' })
    expect(Date.parse(after.body.next_sync_at) - t.clock.now().getTime()).toBe(10 * 60_000)
    // No schedule: the queued sync is dropped.
    await call(t, admin.token, 'PUT', `/v1/corpora/${base}/sources/${id}`, { interval_minutes: null })
    expect((await call(t, admin.token, 'GET', `/v1/corpora/${base}/sources/${id}`)).body).toMatchObject({
      next_sync_at: null,
    })
  })

  test('deleting a source leaves its documents unless asked; with delete_documents they go with receipts', async () => {
    const base = await createBase(t, admin.token)
    const conn = await folderConnection()
    const keep = await source(t, admin.token, base, {
      connection_id: conn,
      folder: share,
      path_prefix: 'kept',
    })
    await syncNow(t, admin.token, base, keep)
    expect((await call(t, admin.token, 'DELETE', `/v1/corpora/${base}/sources/${keep}`)).body).toEqual({
      deleted_documents: 0,
    })
    expect(await paths(t, admin.token, base)).toEqual(['kept/a.txt', 'kept/b.md', 'kept/sub/c.txt'])
    const drop = await source(t, admin.token, base, {
      connection_id: conn,
      folder: share,
      path_prefix: 'dropped',
    })
    await syncNow(t, admin.token, base, drop)
    const del = await call(
      t,
      admin.token,
      'DELETE',
      `/v1/corpora/${base}/sources/${drop}?delete_documents=true`,
    )
    expect(del.body).toEqual({ deleted_documents: 3 })
    expect(await paths(t, admin.token, base)).toEqual(['kept/a.txt', 'kept/b.md', 'kept/sub/c.txt'])
    expect(await rows(t, 'sources', `id IN ('${keep}', '${drop}')`)).toBe(0)
  })

  test("another workspace's source is a 404 on every route, and nothing changes", async () => {
    const base = await createBase(t, admin.token)
    const id = await source(t, admin.token, base, { connection_id: await folderConnection(), folder: share })
    const other = await signUp(t, { workspace_name: 'Others' })
    const otherBase = await createBase(t, other.token)
    for (const b of [base, otherBase]) {
      for (const [method, suffix] of [
        ['GET', ''],
        ['PUT', ''],
        ['DELETE', ''],
        ['POST', '/validate'],
        ['POST', '/sync'],
        ['POST', '/cancel'],
      ] as const) {
        const res = await t.request(`/v1/corpora/${b}/sources/${id}${suffix}`, {
          method,
          headers: bearer(other.token),
          ...(method === 'PUT' ? { json: { name: 'Taken' } } : {}),
        })
        await expectError(res, '/v1', 404, 'not_found')
      }
    }
    // Nor may a source of one's own base use another workspace's connection.
    const theirs = await connection(t, other.token, { kind: 'folder', name: 'Theirs' })
    const res = await t.request(`/v1/corpora/${base}/sources`, {
      method: 'POST',
      headers: bearer(admin.token),
      json: { connection_id: theirs, folder: share },
    })
    await expectError(res, '/v1', 404, 'not_found')
    expect((await call(t, admin.token, 'GET', `/v1/corpora/${base}/sources/${id}`)).body).toMatchObject({
      last_run: null,
    })
  })
})

describe('imports', () => {
  test('state none, then an import runs once; a second while it runs is a 409 on both mounts', async () => {
    const base = await createBase(t, admin.token)
    const conn = await folderConnection()
    for (const path of mounts(`/corpora/${base}/import-status`)) {
      expect((await call(t, admin.token, 'GET', path)).body).toEqual({ state: 'none' })
    }
    const started = await call(t, admin.token, 'POST', `/v1/corpora/${base}/import`, {
      connection_id: conn,
      folder: share,
    })
    expect(started).toMatchObject({ status: 202, body: { state: 'running', kind: 'folder', folder: share } })
    for (const path of mounts(`/corpora/${base}/import`)) {
      const res = await t.request(path, {
        method: 'POST',
        headers: bearer(admin.token),
        json: { connection_id: conn, folder: share },
      })
      await expectError(res, path, 409, 'import_in_progress')
    }
    await t.jobs.scheduler.drain()
    for (const path of mounts(`/corpora/${base}/import-status`)) {
      expect((await call(t, admin.token, 'GET', path)).body).toMatchObject({
        state: 'succeeded',
        run: { created: 3, source: 'import' },
      })
    }
    expect(await paths(t, admin.token, base)).toEqual(['a.txt', 'b.md', 'sub/c.txt'])
  })

  test("the base and the connection must both be the caller's", async () => {
    const base = await createBase(t, admin.token)
    const other = await signUp(t, { workspace_name: 'Importers' })
    const theirs = await connection(t, other.token, { kind: 'folder', name: 'Theirs' })
    for (const path of mounts(`/corpora/${base}/import`)) {
      const res = await t.request(path, {
        method: 'POST',
        headers: bearer(admin.token),
        json: { connection_id: theirs, folder: share },
      })
      await expectError(res, path, 404, 'not_found')
      const foreign = await t.request(path, {
        method: 'POST',
        headers: bearer(other.token),
        json: { connection_id: theirs, folder: share },
      })
      await expectError(foreign, path, 404, 'not_found')
    }
    expect(await rows(t, 'sources', `corpus_id = '${base}'`)).toBe(0)
  })
})
