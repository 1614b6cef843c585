// Issue 37: the plan's `documents` and `storage_bytes` caps on every way documents come in
// (upload, push commit, upsert, a source's sync, an import), checked in the registering transaction.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { TestApp } from '../helpers/app'
import { bearer, rows, signUp } from './accounts.fixture'
import { countRows, createBase, footprint, objectKeys, sha256, upload } from './ingest.fixture'
import { capsApp, expectCapRefusal, putOnPlan } from './plans-caps.fixture'
import { call, connection, folderOf, paths, type RunBody, source, syncNow } from './sources.fixture'

let t: TestApp
let tenants: string
beforeAll(() => {
  tenants = folderOf({})
  t = capsApp({ ENGRAM_SOURCES_FOLDER_ROOTS: `*=${tenants}/{workspace_id}` })
})
afterAll(() => {
  t.close()
  rmSync(tenants, { recursive: true, force: true })
})

/** A fresh workspace on `plan` with one base. */
async function workspace(plan: string) {
  const admin = await signUp(t)
  await putOnPlan(t, admin.workspaceId, plan)
  const base = await createBase(t, admin.token)
  return { token: admin.token, ws: admin.workspaceId, base }
}

/** A text file of exactly `size` bytes, different for each tag. */
const text = (tag: string, size: number) => `${tag}:`.padEnd(size, '.')
const files = (...names: string[]) => names.map((n) => ({ filename: `${n}.txt`, content: `Notes ${n}` }))

/** Parent documents of a workspace. */
const docsOf = (ws: string) => countRows(t, 'documents', 'workspace_id = ? AND parent_id IS NULL', ws)

/** Everything a refused request could have left behind. */
const written = async () => ({
  ...(await footprint(t)),
  events: await rows(t, 'domain_events'),
  sources: await rows(t, 'sources'),
})

function upsert(token: string, base: string, path: string, content: string) {
  return t.request(`/v1/corpora/${base}/documents/upsert`, {
    method: 'POST',
    headers: bearer(token),
    json: { path, content },
  })
}

describe('upload', () => {
  test('documents: exactly at the cap passes, one more is 403 with nothing kept, a replacement at the cap passes', async () => {
    const { token, ws, base } = await workspace('three')
    expect((await upload(t, token, base, files('a', 'b'))).status).toBe(200)
    // A second base of the same workspace counts too: the cap is the workspace's.
    const other = await createBase(t, token, 'Other')
    expect((await upload(t, token, other, files('c'))).status).toBe(200)
    expect(await docsOf(ws)).toBe(3)

    const before = await written()
    await expectCapRefusal(await upload(t, token, base, files('d')), { cap: 'documents', limit: 3, used: 3 })
    expect(await written()).toEqual(before)
    // The frozen mount refuses the same in its own shape.
    const frozen = await upload(t, token, base, files('d'), '')
    expect(frozen.status).toBe(403)
    expect(((await frozen.json()) as { detail: string }).detail).toContain('allows 3 documents; it uses 3')
    expect(await written()).toEqual(before)

    // Replacing a file by its path takes no new document.
    const again = await upload(t, token, base, [{ filename: 'a.txt', content: 'Notes a, revised' }])
    expect(again.status).toBe(200)
    expect(await docsOf(ws)).toBe(3)
    // A replacement with a new file in the same request is refused whole.
    const mixed = [{ filename: 'b.txt', content: 'Notes b, revised' }, ...files('e')]
    const kept = await written()
    await expectCapRefusal(await upload(t, token, base, mixed), { cap: 'documents', limit: 3, used: 3 })
    expect(await written()).toEqual(kept)
  })

  test('several files passing the cap together are refused whole: nothing of the request is kept', async () => {
    const { token, ws, base } = await workspace('three')
    expect((await upload(t, token, base, files('a'))).status).toBe(200)
    const before = await written()
    const res = await upload(t, token, base, files('b', 'c', 'd'))
    await expectCapRefusal(res, { cap: 'documents', limit: 3, used: 1 })
    expect(await written()).toEqual(before)
    expect((await upload(t, token, base, files('b', 'c'))).status).toBe(200)
    expect(await docsOf(ws)).toBe(3)
  })

  test('storage: exactly at the cap passes, one byte more is 403; shared content is not counted twice; a replacement no larger passes', async () => {
    const { token, base } = await workspace('bytes')
    expect((await upload(t, token, base, [{ filename: 'a.txt', content: text('a', 60) }])).status).toBe(200)
    expect((await upload(t, token, base, [{ filename: 'b.txt', content: text('b', 40) }])).status).toBe(200)
    const before = await written()
    const more = [{ filename: 'c.txt', content: 'c' }]
    await expectCapRefusal(await upload(t, token, base, more), {
      cap: 'storage_bytes',
      limit: 100,
      used: 100,
    })
    expect(await written()).toEqual(before)
    // The admin's report shows what the cap counts.
    const report = await t.request('/v1/admin/billing', { headers: bearer(token) })
    expect(((await report.json()) as { used: { storage_bytes: number } }).used.storage_bytes).toBe(100)
    // The same content under another path is stored once: no byte more.
    expect((await upload(t, token, base, [{ filename: 'copy.txt', content: text('a', 60) }])).status).toBe(
      200,
    )
    // New content of the same size replaces a file at the cap; a larger one would pass it.
    expect((await upload(t, token, base, [{ filename: 'b.txt', content: text('B', 40) }])).status).toBe(200)
    const larger = [{ filename: 'b.txt', content: text('b', 41) }]
    const kept = await written()
    await expectCapRefusal(await upload(t, token, base, larger), {
      cap: 'storage_bytes',
      limit: 100,
      used: 100,
    })
    expect(await written()).toEqual(kept)
  })

  test('storage: the sidecar of a file read as it was uploaded counts too, and a refusal keeps neither', async () => {
    const { token, base } = await workspace('bytes')
    // Markdown's line end is dropped from its text: a sidecar of 59 bytes beside the file's 60.
    const md = `${text('# m', 59)}\n`
    const before = await written()
    await expectCapRefusal(await upload(t, token, base, [{ filename: 'm.md', content: md }]), {
      cap: 'storage_bytes',
      limit: 100,
      used: 0,
    })
    expect(await written()).toEqual(before)
    const fits = `${text('# n', 49)}\n`
    expect((await upload(t, token, base, [{ filename: 'n.md', content: fits }])).status).toBe(200)
    const report = await t.request('/v1/admin/billing', { headers: bearer(token) })
    expect(((await report.json()) as { used: { storage_bytes: number } }).used.storage_bytes).toBe(99)
  })

  test('20 uploads at once against a cap of 10 documents: exactly 10 land, 10 are refused, nothing else is left', async () => {
    const { token, ws, base } = await workspace('ten')
    const objectsBefore = (await objectKeys(t)).length
    // HTML, which an extraction job reads: a refused upload must leave no job either.
    const page = (i: number) => [{ filename: `parallel-${i}.html`, content: `<p>Notes ${i}</p>` }]
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => upload(t, token, base, page(i))))
    const statuses = answers.map((r) => r.status).sort()
    expect(statuses).toEqual([...Array(10).fill(200), ...Array(10).fill(403)])
    for (const r of answers.filter((a) => a.status === 403)) {
      const body = (await r.json()) as { error: { code: string; details: { cap: string; limit: number } } }
      expect(body.error).toMatchObject({
        code: 'plan_limit_reached',
        details: { cap: 'documents', limit: 10 },
      })
    }
    expect(await docsOf(ws)).toBe(10)
    expect(await countRows(t, 'sync_runs', 'workspace_id = ?', ws)).toBe(10)
    expect(await countRows(t, 'jobs', 'workspace_id = ?', ws)).toBe(10)
    expect((await objectKeys(t)).length).toBe(objectsBefore + 10)
  })
})

describe('upsert', () => {
  test('documents and storage at the boundary; a replacement at the cap passes; a refusal writes nothing', async () => {
    const { token, base } = await workspace('three')
    for (const p of ['a', 'b', 'c']) expect((await upsert(token, base, `${p}.md`, `# ${p}`)).status).toBe(200)
    const before = await written()
    await expectCapRefusal(await upsert(token, base, 'd.md', '# d'), { cap: 'documents', limit: 3, used: 3 })
    expect(await written()).toEqual(before)
    expect((await upsert(token, base, 'a.md', '# a, revised')).status).toBe(200)

    const small = await workspace('bytes')
    expect((await upsert(small.token, small.base, 'a.md', text('a', 100))).status).toBe(200)
    const kept = await written()
    const res = await upsert(small.token, small.base, 'b.md', 'b')
    await expectCapRefusal(res, { cap: 'storage_bytes', limit: 100, used: 100 })
    expect(await written()).toEqual(kept)
    expect((await upsert(small.token, small.base, 'a.md', text('A', 90))).status).toBe(200)
  })
})

describe('push', () => {
  const entry = (path: string, content: string) => ({ path, sha256: sha256(content), size: content.length })
  const post = (token: string, base: string, route: string, json: unknown) =>
    t.request(`/v1/corpora/${base}/documents/${route}`, { method: 'POST', headers: bearer(token), json })
  /** Stages the content of files through upload-urls and raw PUTs; answers the commit's manifest. */
  async function stage(token: string, base: string, contents: Record<string, string>) {
    const manifest = Object.entries(contents).map(([p, c]) => entry(p, c))
    const plan = (await (await post(token, base, 'upload-urls', { files: manifest })).json()) as {
      uploads: { path: string; upload: boolean; url: string; headers?: Record<string, string> }[]
    }
    for (const u of plan.uploads.filter((x) => x.upload)) {
      const body = contents[u.path]!
      // The raw route on local storage; on S3 a presigned URL of the bucket, signed, without the bearer.
      const res = u.url.startsWith('/')
        ? await t.request(u.url, { method: 'PUT', headers: bearer(token), body })
        : await fetch(u.url, { method: 'PUT', headers: u.headers, body })
      expect(res.status).toBe(200)
    }
    return manifest
  }

  test('a commit exactly at the documents cap passes; one more is 403 with nothing committed and the staged content kept', async () => {
    const { token, ws, base } = await workspace('three')
    const three = { 'a.md': '# a', 'b.md': '# b', 'c.md': '# c' }
    expect((await post(token, base, 'commit', { files: await stage(token, base, three) })).status).toBe(202)
    const four = await stage(token, base, { ...three, 'd.md': '# d' })
    const before = await written()
    await expectCapRefusal(await post(token, base, 'commit', { files: four }), {
      cap: 'documents',
      limit: 3,
      used: 3,
    })
    expect(await written()).toEqual(before)
    expect(before.uploads).toBe(1)
    // A commit that deletes what it no longer lists makes the room its new file takes.
    const run = await post(token, base, 'commit', { files: four.slice(1), delete_missing: true })
    expect(run.status).toBe(202)
    expect(await run.json()).toMatchObject({ created: 1, deleted: 1 })
    expect(await paths(t, token, base)).toEqual(['b.md', 'c.md', 'd.md'])
    expect(await docsOf(ws)).toBe(3)
    // Changed content of the same size at the cap passes.
    const changed = await stage(token, base, { 'b.md': '# B', 'c.md': '# c', 'd.md': '# d' })
    expect(await (await post(token, base, 'commit', { files: changed })).json()).toMatchObject({ updated: 1 })
  })

  test('a commit past the storage cap is 403 with nothing committed', async () => {
    const { token, base } = await workspace('bytes')
    const first = await stage(token, base, { 'a.md': text('a', 100) })
    expect((await post(token, base, 'commit', { files: first })).status).toBe(202)
    const more = await stage(token, base, { 'a.md': text('a', 100), 'b.md': 'b' })
    const before = await written()
    await expectCapRefusal(await post(token, base, 'commit', { files: more }), {
      cap: 'storage_bytes',
      limit: 100,
      used: 100,
    })
    expect(await written()).toEqual(before)
  })
})

describe('sources', () => {
  /** A folder of the workspace's own (granted by `*=.../{workspace_id}`) with `n` files. */
  const folder = (ws: string, n: number) =>
    folderOf(
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}.md`, `# File ${i}`])),
      join(tenants, ws),
    )

  test('a sync of more files than the cap takes exactly up to it and its run lists the rest with the reason; the next sync after a plan change takes them', async () => {
    const { token, ws, base } = await workspace('three')
    const dir = folder(ws, 5)
    const conn = await connection(t, token, { kind: 'folder', name: 'Share' })
    const id = await source(t, token, base, { connection_id: conn, folder: dir })
    const run = (await syncNow(t, token, base, id)) as Omit<RunBody, 'errors'> & {
      errors: { path: string; error: string; code?: string }[]
    }
    expect(run).toMatchObject({ status: 'partial', created: 3, failed: 2 })
    expect(run.errors).toHaveLength(2)
    for (const e of run.errors) {
      expect(e.code).toBe('plan_limit_reached')
      expect(e.error).toContain('allows 3 documents')
    }
    expect(await docsOf(ws)).toBe(3)
    // What was stored for the files left out is gone: every object is a document's file or text.
    const held = (
      await t.sql.all<{ k: string }>(
        `SELECT raw_key AS k FROM documents WHERE raw_key IS NOT NULL
         UNION SELECT text_key FROM documents WHERE text_key IS NOT NULL`,
      )
    ).map((r) => r.k)
    const mine = (await objectKeys(t)).filter((k) => k.includes(base))
    expect(mine.every((k) => held.includes(k))).toBe(true)

    await putOnPlan(t, ws, 'roomy')
    expect(await syncNow(t, token, base, id)).toMatchObject({ created: 2, failed: 0 })
    expect(await docsOf(ws)).toBe(5)
  })

  test('an import into a workspace at its documents cap is 403 and writes nothing; below it, the files that fit are taken', async () => {
    const { token, ws, base } = await workspace('three')
    const dir = folder(ws, 4)
    const conn = await connection(t, token, { kind: 'folder', name: 'Share' })
    const imported = await call<{ run: Omit<RunBody, 'errors'> & { errors: { code?: string }[] } }>(
      t,
      token,
      'POST',
      `/v1/corpora/${base}/import`,
      { connection_id: conn, folder: dir },
    )
    expect(imported.status).toBe(202)
    await t.jobs.scheduler.drain()
    const status = await call<{ run: Omit<RunBody, 'errors'> & { errors: { code?: string }[] } }>(
      t,
      token,
      'GET',
      `/v1/corpora/${base}/import-status`,
    )
    expect(status.body.run).toMatchObject({ created: 3, failed: 1 })
    expect(status.body.run.errors.map((e) => e.code)).toEqual(['plan_limit_reached'])
    expect(await docsOf(ws)).toBe(3)

    writeFileSync(join(dir, 'late.md'), '# Late')
    const before = await written()
    const again = await t.request(`/v1/corpora/${base}/import`, {
      method: 'POST',
      headers: bearer(token),
      json: { connection_id: conn, folder: dir },
    })
    await expectCapRefusal(again, { cap: 'documents', limit: 3, used: 3 })
    expect(await written()).toEqual(before)
  })
})

describe('billing off', () => {
  test('is the default here, and the caps apply all the same', () => {
    expect(t.deps.config.billing.mode).toBe('off')
  })
})
