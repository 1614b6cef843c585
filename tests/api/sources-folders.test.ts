// Server folders are granted to workspaces by the operator (`sources.folder_roots`): the attack of
// issue 32 item 4, where an admin of workspace A imported /roots/tenant-b/b-private.md into A's base.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { TestApp } from '../helpers/app'
import { authApp, bearer, expectError, mounts, rows, signUp } from './accounts.fixture'
import { createBase } from './ingest.fixture'
import { call, connection, folderOf, paths, source, syncNow } from './sources.fixture'

let t: TestApp
let top: string
let tenants: string
let a: Awaited<ReturnType<typeof signUp>>
let b: Awaited<ReturnType<typeof signUp>>

/** Every row a refused request could have written. */
const written = async () => ({
  sources: await rows(t, 'sources'),
  documents: await rows(t, 'documents'),
  jobs: await rows(t, 'jobs'),
  sync_runs: await rows(t, 'sync_runs'),
  source_items: await rows(t, 'source_items'),
})

beforeAll(async () => {
  top = folderOf({ 'ungranted/u.txt': 'granted to nobody' })
  tenants = join(top, 'tenants')
  t = authApp({ env: { ENGRAM_SOURCES_FOLDER_ROOTS: `*=${tenants}/{workspace_id}` } })
  a = await signUp(t, { workspace_name: 'Tenant A' })
  b = await signUp(t, { workspace_name: 'Tenant B' })
  // The operator makes each workspace's folder; B's holds B's private file.
  folderOf({ 'a-notes.md': '# Notes of A' }, join(tenants, a.workspaceId))
  folderOf({ 'b-private.md': '# Private to B' }, join(tenants, b.workspaceId))
  // What A could plant in its own folder: a link to B's, and a sibling whose name starts like A's.
  symlinkSync(join(tenants, b.workspaceId), join(tenants, a.workspaceId, 'to-b'))
  mkdirSync(join(tenants, `${a.workspaceId}x`))
  writeFileSync(join(tenants, `${a.workspaceId}x`, 'x.txt'), 'not A')
})

afterAll(() => {
  t.close()
  rmSync(top, { recursive: true, force: true })
})

describe('folders granted per workspace', () => {
  test("A can neither add a source on nor import a folder of B's, or one granted to nobody, however written; nothing is written", async () => {
    const conn = await connection(t, a.token, { kind: 'folder', name: 'Share' })
    const base = await createBase(t, a.token)
    const before = await written()
    const mine = join(tenants, a.workspaceId)
    for (const folder of [
      join(tenants, b.workspaceId),
      `${mine}/../${b.workspaceId}`,
      `${mine}/to-b`,
      join(tenants, b.workspaceId.toUpperCase()),
      join(tenants, `${a.workspaceId}x`),
      join(top, 'ungranted'),
      tenants,
      '/',
    ]) {
      const added = await t.request(`/v1/corpora/${base}/sources`, {
        method: 'POST',
        headers: bearer(a.token),
        json: { connection_id: conn, folder },
      })
      const message = await expectError(added, '/v1', 422, 'folder_root_not_allowed')
      expect(message).toBe(
        'The folder is not inside a folder granted to this workspace (sources.folder_roots).',
      )
      for (const path of mounts(`/corpora/${base}/import`)) {
        const imported = await t.request(path, {
          method: 'POST',
          headers: bearer(a.token),
          json: { connection_id: conn, folder },
        })
        await expectError(imported, path, 422, 'folder_root_not_allowed')
      }
    }
    expect(await written()).toEqual(before)
    expect((await call(t, a.token, 'GET', `/corpora/${base}/import-status`)).body).toEqual({ state: 'none' })
  })

  test('A still reaches its own folder: a source syncs its files, and a link into B’s folder is skipped', async () => {
    const base = await createBase(t, a.token)
    const conn = await connection(t, a.token, { kind: 'folder', name: 'Own share' })
    const id = await source(t, a.token, base, { connection_id: conn, folder: join(tenants, a.workspaceId) })
    const run = await syncNow(t, a.token, base, id)
    expect(run).toMatchObject({ status: 'succeeded', created: 1, failed: 0 })
    expect(await paths(t, a.token, base)).toEqual(['a-notes.md'])
  })

  test('a workspace without a folder of its own is told none is granted, without naming any directory', async () => {
    const c = await signUp(t, { workspace_name: 'Tenant C' })
    const base = await createBase(t, c.token)
    const conn = await connection(t, c.token, { kind: 'folder', name: 'Share' })
    const res = await t.request(`/v1/corpora/${base}/sources`, {
      method: 'POST',
      headers: bearer(c.token),
      json: { connection_id: conn, folder: join(tenants, c.workspaceId) },
    })
    const message = await expectError(res, '/v1', 422, 'folder_root_not_allowed')
    expect(message).toBe(
      'No server folder is granted to this workspace (the operator grants them in sources.folder_roots).',
    )
    expect(message).not.toContain(tenants)
  })
})

describe('a folder granted to one workspace by its id', () => {
  test('reaches that workspace and no other', async () => {
    const shared = folderOf({ 'handbook.md': '# Handbook' })
    // Ids come from the seeded random: a first app tells which id the first workspace will get.
    const probe = authApp({ seed: 41 })
    const id = (await signUp(probe)).workspaceId
    probe.close()
    const app = authApp({ seed: 41, env: { ENGRAM_SOURCES_FOLDER_ROOTS: `${id}=${shared}` } })
    try {
      const granted = await signUp(app)
      expect(granted.workspaceId).toBe(id)
      const other = await signUp(app, { workspace_name: 'Other' })
      for (const [who, expected] of [
        [granted, 201],
        [other, 422],
      ] as const) {
        const base = await createBase(app, who.token)
        const conn = await connection(app, who.token, { kind: 'folder', name: 'Share' })
        const res = await app.request(`/v1/corpora/${base}/sources`, {
          method: 'POST',
          headers: bearer(who.token),
          json: { connection_id: conn, folder: shared },
        })
        expect(res.status).toBe(expected)
      }
    } finally {
      app.close()
      rmSync(shared, { recursive: true, force: true })
    }
  })
})
