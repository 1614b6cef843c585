import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { TestApp } from '../helpers/app'
import { auditRows, bearer, expectError, issues, mintKey } from './accounts.fixture'
import {
  countRows,
  createBase,
  type Doc,
  docBytes,
  drain,
  footprint,
  ingestSetup,
  listDocs,
  sha256,
  upload,
} from './ingest.fixture'

// The push protocol through the raw route is the local store's (on S3 the plan is presigned URLs,
// tests/api/ingest-s3.test.ts): the shared app keeps local storage whichever pass runs.
const LOCAL = { env: { ENGRAM_STORAGE: 'local' } }

let f: Awaited<ReturnType<typeof ingestSetup>>
beforeAll(async () => {
  f = await ingestSetup(LOCAL)
})
afterAll(() => f.t.close())

const entry = (path: string, content: string | Uint8Array) => ({
  path,
  sha256: sha256(content),
  size: typeof content === 'string' ? Buffer.byteLength(content) : content.byteLength,
})

/** POST a JSON body to a push route of a base. */
async function post(t: TestApp, token: string, base: string, route: string, json: unknown) {
  return t.request(`/v1/corpora/${base}/documents/${route}`, { method: 'POST', headers: bearer(token), json })
}

/** PUT raw content through the API. */
function putRaw(t: TestApp, token: string, url: string, content: string) {
  return t.request(url, {
    method: 'PUT',
    headers: { ...bearer(token), 'content-type': 'application/octet-stream' },
    body: content,
  })
}

/** Pushes files through the protocol (upload-urls, raw PUTs, commit) and returns the sync run. */
async function pushFiles(
  t: TestApp,
  token: string,
  base: string,
  files: Record<string, string>,
  opts: { delete_missing?: boolean; prefix?: string } = {},
) {
  const manifest = Object.entries(files).map(([p, c]) => entry(p, c))
  const plan = (await (await post(t, token, base, 'upload-urls', { files: manifest })).json()) as {
    uploads: { path: string; upload: boolean; url: string }[]
  }
  for (const u of plan.uploads.filter((x) => x.upload)) {
    expect((await putRaw(t, token, u.url, files[u.path]!)).status).toBe(200)
  }
  const res = await post(t, token, base, 'commit', { files: manifest, ...opts })
  expect(res.status).toBe(202)
  return (await res.json()) as { id: string; created: number; updated: number; deleted: number }
}

describe('the push protocol on the local store', () => {
  test('diff, upload through raw, commit, then a second push moves only what changed', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const files: Record<string, string> = {
      'a.txt': 'alpha document',
      'dir/b.md': '# Bravo\n\nsecond document',
      'dir/c.csv': 'k,v\n1,2\n',
    }
    const manifest = Object.entries(files).map(([p, c]) => entry(p, c))

    const diff = await post(t, token, base, 'diff', { files: manifest })
    expect(diff.status).toBe(200)
    expect(await diff.json()).toEqual({
      new: ['a.txt', 'dir/b.md', 'dir/c.csv'],
      changed: [],
      unchanged: [],
      missing: [],
      limits: { max_file_bytes: 536_870_912 },
    })

    const urls = await post(t, token, base, 'upload-urls', { files: manifest })
    expect(urls.status).toBe(200)
    const plan = (await urls.json()) as {
      mode: string
      expires_at: string | null
      uploads: { path: string; upload: boolean; method: string; url: string; headers: object }[]
    }
    expect(plan.mode).toBe('raw')
    expect(plan.expires_at).toBeNull()
    expect(plan.uploads.map((u) => [u.path, u.upload, u.method])).toEqual([
      ['a.txt', true, 'PUT'],
      ['dir/b.md', true, 'PUT'],
      ['dir/c.csv', true, 'PUT'],
    ])
    for (const u of plan.uploads) {
      expect(u.url).toBe(
        `/v1/corpora/${base}/documents/raw?path=${encodeURIComponent(u.path)}&sha256=${sha256(files[u.path]!)}`,
      )
      const res = await putRaw(t, token, u.url, files[u.path]!)
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual(entry(u.path, files[u.path]!))
    }
    expect(await countRows(t, 'ingest_uploads', 'corpus_id = ?', base)).toBe(3)

    const commit = await post(t, token, base, 'commit', { files: manifest })
    expect(commit.status).toBe(202)
    const run = await commit.json()
    expect(run).toMatchObject({
      corpus_id: base,
      source: 'push',
      status: 'running',
      created: 3,
      updated: 0,
      unchanged: 0,
      deleted: 0,
      failed: 0,
      pending: 3,
      errors: [],
      finished_at: null,
    })
    expect(await countRows(t, 'ingest_uploads', 'corpus_id = ?', base)).toBe(0) // adopted by the documents
    await drain(t)
    const done = await (
      await t.request(`/v1/corpora/${base}/sync-runs/${run.id}`, { headers: bearer(token) })
    ).json()
    expect(done).toMatchObject({ status: 'succeeded', pending: 0 })
    const first = await listDocs(t, token, base)
    expect(first.map((d) => [d.filename, d.source, d.status]).sort()).toEqual([
      ['a.txt', 'push', 'pending'],
      ['dir/b.md', 'push', 'pending'],
      ['dir/c.csv', 'push', 'pending'],
    ])
    expect(first.find((d) => d.filename === 'dir/b.md')!.content_type).toBe('text/markdown')

    // Second push: a.txt changed, dir/c.csv deleted locally, e.txt new, dir/b.md as before.
    const second = { 'a.txt': 'alpha document, revised', 'dir/b.md': files['dir/b.md']!, 'e.txt': 'echo' }
    const manifest2 = Object.entries(second).map(([p, c]) => entry(p, c))
    expect(await (await post(t, token, base, 'diff', { files: manifest2 })).json()).toMatchObject({
      new: ['e.txt'],
      changed: ['a.txt'],
      unchanged: ['dir/b.md'],
      missing: ['dir/c.csv'],
    })
    // Committing before the content arrived changes nothing.
    const before = await footprint(t)
    const early = await post(t, token, base, 'commit', { files: manifest2, delete_missing: true })
    expect(early.status).toBe(422)
    const body = (await early.json()) as { error: { code: string; details: { files: unknown[] } } }
    expect(body.error.code).toBe('content_missing')
    expect(body.error.details.files).toEqual([entry('a.txt', second['a.txt']), entry('e.txt', 'echo')])
    expect(await footprint(t)).toEqual(before)

    const plan2 = (await (
      await post(t, token, base, 'upload-urls', { files: [manifest2[0], manifest2[2]] })
    ).json()) as {
      uploads: { path: string; url: string }[]
    }
    for (const u of plan2.uploads)
      expect((await putRaw(t, token, u.url, second[u.path as 'a.txt'])).status).toBe(200)
    const run2 = await (
      await post(t, token, base, 'commit', { files: manifest2, delete_missing: true })
    ).json()
    expect(run2).toMatchObject({ created: 1, updated: 1, unchanged: 1, deleted: 1, pending: 2 })
    await drain(t)
    const after = await listDocs(t, token, base)
    expect(after.map((d) => d.filename).sort()).toEqual(['a.txt', 'dir/b.md', 'e.txt'])
    // The changed document kept its id.
    expect(after.find((d) => d.filename === 'a.txt')!.id).toBe(first.find((d) => d.filename === 'a.txt')!.id)
    // Nothing of the old a.txt or of dir/c.csv is left in the store.
    const keys = await t.request(`/v1/corpora/${base}/sync-runs?limit=1`, { headers: bearer(token) })
    expect(keys.headers.get('x-total-count')).toBe('2')
    const stored = await f.t.deps.objects.list(`${f.admin.workspaceId}/corpora/${base}/`)
    let n = 0
    for await (const _ of stored) n++
    expect(n).toBe(3) // three raw objects: each text is its file, so no sidecars
  })

  test('without delete_missing a commit keeps documents absent from the manifest', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    await post(t, token, base, 'upsert', { path: 'keep.txt', content: 'kept' })
    const run = await (await post(t, token, base, 'commit', { files: [] })).json()
    expect(run).toMatchObject({ status: 'succeeded', created: 0, deleted: 0, pending: 0 })
    expect((await listDocs(t, token, base)).map((d) => d.filename)).toEqual(['keep.txt'])
  })

  test('content the base already holds travels no more: a renamed file commits without upload', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    await pushFiles(t, token, base, { 'old/name.txt': 'moved around' })
    const moved = entry('new/name.txt', 'moved around')
    const plan = await (await post(t, token, base, 'upload-urls', { files: [moved] })).json()
    expect(plan.uploads[0]).toMatchObject({ path: 'new/name.txt', upload: false, url: '' })
    const run = await (await post(t, token, base, 'commit', { files: [moved], delete_missing: true })).json()
    expect(run).toMatchObject({ created: 1, deleted: 1 })
    expect((await listDocs(t, token, base)).map((d) => d.filename)).toEqual(['new/name.txt'])
  })

  test('a prefix scopes the manifest to a folder: only documents under it can be missing or deleted', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    await pushFiles(
      t,
      token,
      base,
      Object.fromEntries(
        ['reports/q1.txt', 'reports/q2.txt', 'other/x.txt'].map((p) => [p, `content of ${p}`]),
      ),
    )
    const manifest = [entry('reports/q1.txt', 'content of reports/q1.txt')]
    const diff = await (await post(t, token, base, 'diff', { files: manifest, prefix: 'reports' })).json()
    expect(diff).toMatchObject({ unchanged: ['reports/q1.txt'], missing: ['reports/q2.txt'] })
    const outside = await post(t, token, base, 'commit', {
      files: [entry('other/y.txt', 'y')],
      prefix: 'reports',
    })
    await expectError(
      outside,
      '/v1',
      422,
      'invalid_path',
      'The path "other/y.txt" is outside the prefix "reports/".',
    )
    const run = await (
      await post(t, token, base, 'commit', { files: manifest, prefix: 'reports/', delete_missing: true })
    ).json()
    expect(run).toMatchObject({ unchanged: 1, deleted: 1 })
    expect((await listDocs(t, token, base)).map((d) => d.filename).sort()).toEqual([
      'other/x.txt',
      'reports/q1.txt',
    ])
  })

  test('delete_missing removes only what push manages: files uploaded by hand or upserted under the prefix stay', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const key = await mintKey(t, token, ['ingest'])
    await pushFiles(t, key.key, base, { 'docs/a.txt': 'alpha pushed', 'docs/b.txt': 'bravo pushed' })
    expect((await upload(t, token, base, [{ filename: 'docs/hand.txt', content: 'by hand' }])).status).toBe(
      200,
    )
    expect(
      (await post(t, token, base, 'upsert', { path: 'docs/agent.txt', content: 'upserted' })).status,
    ).toBe(200)
    const b = (await listDocs(t, token, base)).find((d) => d.filename === 'docs/b.txt')!

    // The folder now holds only a.txt: b.txt is push's and gone; hand.txt and agent.txt are not push's.
    const manifest = [entry('docs/a.txt', 'alpha pushed')]
    const diff = await (await post(t, key.key, base, 'diff', { files: manifest, prefix: 'docs' })).json()
    expect(diff).toMatchObject({ unchanged: ['docs/a.txt'], missing: ['docs/b.txt'] })
    const before = (await auditRows(t, 'document.deleted')).length
    const run = await pushFiles(
      t,
      key.key,
      base,
      { 'docs/a.txt': 'alpha pushed' },
      {
        prefix: 'docs',
        delete_missing: true,
      },
    )
    expect(run).toMatchObject({ created: 0, updated: 0, deleted: 1 })
    expect((await listDocs(t, token, base)).map((d) => d.filename).sort()).toEqual([
      'docs/a.txt',
      'docs/agent.txt',
      'docs/hand.txt',
    ])
    // The receipt of what the push deleted: one audit row per file, by the key that pushed.
    const rows = (await auditRows(t, 'document.deleted')).slice(before)
    expect(rows).toHaveLength(1)
    expect({ ...rows[0]!, details: JSON.parse(rows[0]!.details) }).toEqual({
      workspace_id: f.admin.workspaceId,
      actor_type: 'api_key',
      actor_id: key.id,
      target_id: b.id,
      details: { corpus_id: base, filename: 'docs/b.txt', rows: 1, via: 'push', build_running: false },
    })

    // An empty folder pushed with --delete takes its own files only.
    const emptied = await pushFiles(t, key.key, base, {}, { prefix: 'docs', delete_missing: true })
    expect(emptied).toMatchObject({ deleted: 1 })
    expect((await listDocs(t, token, base)).map((d) => d.filename).sort()).toEqual([
      'docs/agent.txt',
      'docs/hand.txt',
    ])
  })

  test('whoever last wrote a file manages it: a hand upload takes a file from push, a push update takes it back', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    await pushFiles(t, token, base, { 'p.txt': 'pushed first', 'q.txt': 'pushed too' })
    await upload(t, token, base, [{ filename: 'p.txt', content: 'replaced by hand' }])
    await upload(t, token, base, [{ filename: 'r.txt', content: 'hand file' }])
    // The same content pushed again is unchanged and does not make a hand file push's.
    await pushFiles(t, token, base, { 'r.txt': 'hand file' })
    const diff = await (await post(t, token, base, 'diff', { files: [] })).json()
    expect(diff.missing).toEqual(['q.txt'])
    // New content pushed over a hand file makes it push's.
    const run = await pushFiles(t, token, base, { 'r.txt': 'hand file, edited in the folder' })
    expect(run).toMatchObject({ updated: 1 })
    const gone = await pushFiles(t, token, base, {}, { delete_missing: true })
    expect(gone).toMatchObject({ deleted: 2 })
    expect((await listDocs(t, token, base)).map((d) => [d.filename, d.source])).toEqual([['p.txt', 'upload']])
  })

  test('refuses bad manifests with 422 and writes nothing', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const before = await footprint(t)
    for (const route of ['diff', 'upload-urls', 'commit']) {
      await expectError(
        await post(t, token, base, route, { files: [entry('../escape.txt', 'x')] }),
        '/v1',
        422,
        'invalid_path',
        'The path "../escape.txt" contains a ".." segment.',
      )
      await expectError(
        await post(t, token, base, route, { files: [entry('a.txt', 'x'), entry('./a.txt', 'y')] }),
        '/v1',
        422,
        'invalid_path',
        'The path "a.txt" appears more than once in the manifest.',
      )
      const bad = await post(t, token, base, route, { files: [{ path: 'a.txt', sha256: 'XYZ', size: 1 }] })
      expect((await issues(bad, '/v1'))[0]!.loc).toEqual(['body', 'files', 0, 'sha256'])
      await expectError(
        await post(t, token, base, route, { files: [entry('half\ud800.txt', 'x')] }),
        '/v1',
        422,
        'invalid_path',
        `The path ${JSON.stringify('half\ud800.txt')} is not valid Unicode (an unpaired surrogate).`,
      )
    }
    expect(await footprint(t)).toEqual(before)
  })

  test('PUT raw keeps nothing when the bytes do not match their SHA-256', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const before = await footprint(t)
    const claimed = sha256('what I said')
    const res = await putRaw(
      t,
      token,
      `/v1/corpora/${base}/documents/raw?path=a.txt&sha256=${claimed}`,
      'what I sent',
    )
    expect(res.status).toBe(422)
    expect(((await res.json()) as { error: object }).error).toMatchObject({
      code: 'checksum_mismatch',
      details: { path: 'a.txt', expected: claimed, actual: sha256('what I sent') },
    })
    expect(await footprint(t)).toEqual(before)
    const traversal = await putRaw(
      t,
      token,
      `/v1/corpora/${base}/documents/raw?path=${encodeURIComponent('/etc/passwd')}&sha256=${claimed}`,
      'what I said',
    )
    await expectError(traversal, '/v1', 422, 'invalid_path')
    expect(await footprint(t)).toEqual(before)
  })

  test('pushed content that is never committed is swept once its upload expires', async () => {
    // An app of its own: the clock jumps a day, past the session lifetime of the shared one.
    const own = await ingestSetup()
    const { t, ingestKey: token, base } = own
    const content = 'abandoned push'
    const url = `/v1/corpora/${base}/documents/raw?path=x.txt&sha256=${sha256(content)}`
    expect((await putRaw(t, token, url, content)).status).toBe(200)
    const prefix = `${own.admin.workspaceId}/corpora/${base}/`
    const swept = await t.services.ingest.sweepOrphans({ graceMs: 0 })
    expect(swept.removed).toBe(0) // still waiting for its commit
    const keys = []
    for await (const o of t.deps.objects.list(prefix)) keys.push(o.key)
    expect(keys).toHaveLength(1)
    t.clock.advance(26 * 3_600_000) // staging_hours (24) + the URL validity (1 h) have passed
    // No grace for the object's age: this test's clock is not the one that dated the object.
    expect(await t.services.ingest.sweepOrphans({ graceMs: 0 })).toEqual({
      removed: 1,
      uploadsExpired: 1,
      commitsHeldUntil: null,
    })
    for await (const o of t.deps.objects.list(prefix)) throw new Error(`left behind: ${o.key}`)
    await expectError(
      await post(t, token, base, 'commit', { files: [entry('x.txt', content)] }),
      '/v1',
      422,
      'content_missing',
    )
    own.t.close()
  })
})

describe('upsert', () => {
  test('writes one document by path: created, then unchanged, then updated in place', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const first = await post(t, token, base, 'upsert', {
      path: 'wiki/Home.md',
      content: '# Home\n\nWelcome.',
    })
    expect(first.status).toBe(200)
    const a = (await first.json()) as {
      result: string
      document: Doc
      sync_run: { source: string; created: number }
    }
    expect(a.result).toBe('created')
    expect(a.document).toMatchObject({
      filename: 'wiki/Home.md',
      source: 'push',
      content_type: 'text/markdown',
    })
    expect(a.sync_run).toMatchObject({ source: 'push', created: 1 })
    const same = await (
      await post(t, token, base, 'upsert', { path: 'wiki/Home.md', content: '# Home\n\nWelcome.' })
    ).json()
    expect(same.result).toBe('unchanged')
    const changed = await (
      await post(t, token, base, 'upsert', { path: 'wiki/Home.md', content: '# Home\n\nWelcome back.' })
    ).json()
    expect(changed.result).toBe('updated')
    expect(changed.document.id).toBe(a.document.id)
    await drain(t)
    expect(
      await t.deps.objects.getText(
        (await t.sql.get<{ text_key: string }>('SELECT text_key FROM documents WHERE id = ?', a.document.id))!
          .text_key,
      ),
    ).toBe('# Home\n\nWelcome back.')
  })

  test('takes binary content as base64 and refuses unsupported types and bad base64 without writing', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const pdf = docBytes('pdf/deepset-ai_haystack__sample_pdf_1.pdf')
    const res = await post(t, token, base, 'upsert', {
      path: 'papers/sample.pdf',
      content: Buffer.from(pdf).toString('base64'),
      encoding: 'base64',
    })
    expect(res.status).toBe(200)
    expect(((await res.json()) as { document: Doc }).document).toMatchObject({
      sha256: sha256(pdf),
      size: pdf.byteLength,
      content_type: 'application/pdf',
    })
    const before = await footprint(t)
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex').toString(
      'base64',
    )
    await expectError(
      await post(t, token, base, 'upsert', { path: 'logo.png', content: png, encoding: 'base64' }),
      '/v1',
      415,
      'unsupported_media_type',
    )
    await expectError(
      await post(t, token, base, 'upsert', { path: 'x.txt', content: 'not*base64!', encoding: 'base64' }),
      '/v1',
      422,
      'validation_error',
      'The content is not valid base64.',
    )
    expect(await footprint(t)).toEqual(before)
  })
})

describe('sync runs', () => {
  test('are listed newest first, page by page, and read one by one', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const ids: string[] = []
    for (const n of [1, 2, 3]) {
      t.clock.advance(1000)
      ids.push(
        (await (await post(t, token, base, 'upsert', { path: `f${n}.txt`, content: `file ${n}` })).json())
          .sync_run.id,
      )
    }
    const page1 = await t.request(`/v1/corpora/${base}/sync-runs?limit=2`, { headers: bearer(token) })
    const b1 = (await page1.json()) as { items: { id: string }[]; next_cursor: string }
    expect(b1.items.map((r) => r.id)).toEqual([ids[2]!, ids[1]!])
    expect(page1.headers.get('x-total-count')).toBe('3')
    const b2 = await (
      await t.request(`/v1/corpora/${base}/sync-runs?limit=2&cursor=${b1.next_cursor}`, {
        headers: bearer(token),
      })
    ).json()
    expect(b2).toEqual({ items: [expect.objectContaining({ id: ids[0] })], next_cursor: null })
    const one = await t.request(`/v1/corpora/${base}/sync-runs/${ids[0]}`, { headers: bearer(f.queryKey) })
    expect(one.status).toBe(200)
    expect(await one.json()).toMatchObject({ id: ids[0], corpus_id: base, created: 1 })
  })

  test('a run of another base or workspace is a 404, and the routes exist only under /v1', async () => {
    const { t, token } = f
    const a = await createBase(t, token)
    const b = await createBase(t, token)
    const run = (await (await post(t, token, a, 'upsert', { path: 'x.txt', content: 'x' })).json()).sync_run
      .id
    await expectError(
      await t.request(`/v1/corpora/${b}/sync-runs/${run}`, { headers: bearer(token) }),
      '/v1',
      404,
      'not_found',
      'Sync run not found.',
    )
    const other = await (await import('./accounts.fixture')).signUp(t, { workspace_name: 'Elsewhere' })
    await expectError(
      await t.request(`/v1/corpora/${a}/sync-runs/${run}`, { headers: bearer(other.token) }),
      '/v1',
      404,
      'not_found',
    )
    await expectError(
      await t.request(`/v1/corpora/${a}/sync-runs`, { headers: bearer(other.token) }),
      '/v1',
      404,
      'not_found',
    )
    for (const [method, path] of [
      ['GET', `/corpora/${a}/sync-runs`],
      ['POST', `/corpora/${a}/documents/diff`],
      ['POST', `/corpora/${a}/documents/commit`],
      ['POST', `/corpora/${a}/documents/upsert`],
    ] as const) {
      const res = await t.request(path, {
        method,
        headers: bearer(token),
        ...(method === 'POST' ? { json: { files: [] } } : {}),
      })
      // Unversioned, `documents/diff` is only the path of a document named "diff": DELETE alone.
      expect(res.status).toBe(method === 'POST' ? 405 : 404)
      if (method === 'POST') expect(res.headers.get('allow')).toBe('DELETE, OPTIONS')
    }
  })

  test('the push routes need the ingest scope; reading runs needs any credential', async () => {
    const { t, token, queryKey, ingestKey } = f
    const base = await createBase(t, token)
    for (const route of ['diff', 'upload-urls', 'commit', 'upsert']) {
      await expectError(
        await post(t, queryKey, base, route, { files: [] }),
        '/v1',
        403,
        'missing_scope',
        'API key missing required scope: ingest',
      )
      await expectError(await post(t, '', base, route, { files: [] }), '/v1', 401, 'unauthorized')
    }
    await expectError(
      await putRaw(t, queryKey, `/v1/corpora/${base}/documents/raw?path=a&sha256=${sha256('a')}`, 'a'),
      '/v1',
      403,
      'missing_scope',
    )
    expect((await post(t, ingestKey, base, 'diff', { files: [] })).status).toBe(200)
    expect((await t.request(`/v1/corpora/${base}/sync-runs`, { headers: bearer(queryKey) })).status).toBe(200)
  })
})

describe('the OpenAPI document', () => {
  test('publishes the push protocol under /v1 only, with its bodies, and the multipart upload on both mounts', async () => {
    const doc = (await (await f.t.request('/openapi.json')).json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: { content: Record<string, { schema: unknown }> }
            responses: Record<string, unknown>
          }
        >
      >
    }
    for (const [method, route] of [
      ['post', 'diff'],
      ['post', 'upload-urls'],
      ['post', 'commit'],
      ['post', 'upsert'],
      ['put', 'raw'],
    ] as const) {
      expect(doc.paths[`/v1/corpora/{corpus_id}/documents/${route}`]?.[method]).toBeDefined()
      expect(doc.paths[`/corpora/{corpus_id}/documents/${route}`]).toBeUndefined()
    }
    const commit = doc.paths['/v1/corpora/{corpus_id}/documents/commit']!.post!
    // Bodies are named components, referenced from the operation.
    const schemas = (doc as unknown as { components: { schemas: Record<string, unknown> } }).components
      .schemas
    expect(JSON.stringify(commit.requestBody)).toContain('#/components/schemas/CommitReq')
    expect(JSON.stringify(schemas.CommitReq)).toContain('delete_missing')
    expect(JSON.stringify(commit.responses['202'])).toContain('#/components/schemas/SyncRunResp')
    expect(JSON.stringify(schemas.SyncRunResp)).toContain('unchanged')
    expect(doc.paths['/v1/corpora/{corpus_id}/sync-runs/{run_id}']?.get).toBeDefined()
    for (const path of ['/v1/corpora/{corpus_id}/documents', '/corpora/{corpus_id}/documents']) {
      expect(Object.keys(doc.paths[path]!.post!.requestBody!.content)).toEqual(['multipart/form-data'])
    }
  })
})
