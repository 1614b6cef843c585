import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import type { TestApp } from '../helpers/app'
import { authApp, bearer, expectError, mintKey, mounts, signUp } from './accounts.fixture'
import { createBase } from './ingest.fixture'
import { call, connection, folderOf, type RunBody, source } from './sources.fixture'

// A sync's `job_id` is followed by `GET /jobs/{job_id}` (docs/sources.md, "A sync"), as the
// console's sync bar does: the route is onboarding's, and sources makes its `sources.sync` jobs
// readable there. It answered 404 for them while the route knew only onboarding's job kinds.

let t: TestApp
let roots: string
let tenants: string
let admin: Awaited<ReturnType<typeof signUp>>

beforeAll(async () => {
  roots = folderOf({})
  tenants = folderOf({})
  t = authApp({ env: { ENGRAM_SOURCES_FOLDER_ROOTS: `*=${tenants}/{workspace_id}` } })
  admin = await signUp(t)
  symlinkSync(roots, join(tenants, admin.workspaceId))
})

afterAll(() => {
  t.close()
  for (const d of [roots, tenants]) rmSync(d, { recursive: true, force: true })
})

interface JobBody {
  id: string
  corpus_id: string
  kind: string
  status: string
  progress: number
  units_failed: number
  auto: boolean
  detail: string | null
}

/** A base with a folder source of three files; answers the base, the source and the sync run started. */
async function sourceWithSync(name: string, more: Record<string, string> = {}) {
  const base = await createBase(t, admin.token)
  const dir = folderOf(
    { 'a.txt': 'Alpha.', 'b.txt': 'Beta.', 'c/d.txt': 'Delta.', ...more },
    join(roots, name),
  )
  const conn = await connection(t, admin.token, { kind: 'folder', name: `Share ${name}` })
  const id = await source(t, admin.token, base, { connection_id: conn, folder: dir })
  const run = await call<RunBody>(t, admin.token, 'POST', `/v1/corpora/${base}/sources/${id}/sync`)
  expect(run.status).toBe(202)
  expect(run.body.job_id).toBeString()
  return { base, id, run: run.body }
}

describe('GET /jobs/{job_id} of a sync', () => {
  test('answers the sync job on both mounts, with its base, before and after it ran', async () => {
    const { base, run } = await sourceWithSync('both-mounts')
    for (const path of mounts(`/jobs/${run.job_id}`)) {
      const res = await call<JobBody>(t, admin.token, 'GET', path)
      expect(res).toMatchObject({
        status: 200,
        body: { id: run.job_id, kind: 'sources.sync', corpus_id: base, status: 'pending', auto: false },
      })
    }
    await t.jobs.scheduler.drain()
    for (const path of mounts(`/jobs/${run.job_id}`)) {
      const res = await call<JobBody>(t, admin.token, 'GET', path)
      expect(res).toMatchObject({
        status: 200,
        body: { kind: 'sources.sync', corpus_id: base, status: 'succeeded', progress: 1, units_failed: 0 },
      })
      expect(res.body.detail).toBe('3 files looked at')
    }
  })

  test("an import's job is followed the same way", async () => {
    const base = await createBase(t, admin.token)
    const dir = folderOf({ 'x.txt': 'Ex.' }, join(roots, 'import'))
    const conn = await connection(t, admin.token, { kind: 'folder', name: 'Import share' })
    const started = await call<{ run: RunBody }>(t, admin.token, 'POST', `/v1/corpora/${base}/import`, {
      connection_id: conn,
      folder: dir,
    })
    expect(started.status).toBe(202)
    const jobId = started.body.run.job_id
    expect(jobId).toBeString()
    await t.jobs.scheduler.drain()
    expect(await call<JobBody>(t, admin.token, 'GET', `/v1/jobs/${jobId}`)).toMatchObject({
      status: 200,
      body: { kind: 'sources.sync', corpus_id: base, status: 'succeeded' },
    })
  })

  test("an API key of the workspace reads it with any scope; another workspace's session or key gets 404", async () => {
    const { run } = await sourceWithSync('tenancy')
    const key = await mintKey(t, admin.token, ['query'])
    expect((await call(t, key.key, 'GET', `/v1/jobs/${run.job_id}`)).status).toBe(200)
    const other = await signUp(t, { workspace_name: 'Elsewhere' })
    const theirKey = await mintKey(t, other.token, ['ingest', 'query'])
    for (const token of [other.token, theirKey.key]) {
      for (const path of mounts(`/jobs/${run.job_id}`)) {
        const res = await t.request(path, { headers: bearer(token) })
        await expectError(res, path, 404, 'not_found')
      }
    }
    expect((await t.request(`/v1/jobs/${run.job_id}`)).status).toBe(401)
  })

  test('a job of a kind no feature made readable (extraction) stays a 404', async () => {
    // HTML, which an extraction job reads (the plain files are read as the sync stores them).
    const { run } = await sourceWithSync('inner-jobs', { 'e.html': '<p>Epsilon.</p>' })
    await t.jobs.scheduler.drain()
    const extract = await t.sql.get<{ id: string }>(
      'SELECT id FROM jobs WHERE workspace_id = ? AND kind NOT IN (?) ORDER BY created_at LIMIT 1',
      admin.workspaceId,
      'sources.sync',
    )
    expect(extract).toBeDefined()
    expect(extract!.id).not.toBe(run.job_id)
    const res = await t.request(`/v1/jobs/${extract!.id}`, { headers: bearer(admin.token) })
    await expectError(res, '/v1', 404, 'not_found')
  })
})
