import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { S3ObjectStore } from '../../src/platform/storage/s3-store'
import { type S3Standin, startS3rver } from '../helpers/standins/s3rver'
import { bearer, expectError } from './accounts.fixture'
import {
  countRows,
  createBase,
  type Doc,
  docPart,
  drain,
  ingestSetup,
  listDocs,
  objectKeys,
  sha256,
  upload,
} from './ingest.fixture'

// An S3-compatible server on loopback for the whole file; the app stores its objects there.
let server: S3Standin
let f: Awaited<ReturnType<typeof ingestSetup>>

beforeAll(async () => {
  server = await startS3rver()
  const objects = new S3ObjectStore({
    endpoint: server.endpoint,
    bucket: 'engram-ingest',
    accessKey: 'S3RVER',
    secretKey: 'S3RVER',
    region: 'us-east-1',
  })
  f = await ingestSetup({ objects })
})

afterAll(async () => {
  f?.t.close()
  await server.stop()
})

const entry = (path: string, content: string) => ({
  path,
  sha256: sha256(content),
  size: Buffer.byteLength(content),
})

describe('the push protocol on an S3 store', () => {
  test('hands out presigned URLs, takes a real PUT to one, commits and extracts from S3', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const files = { 'hr/policy.md': '# Leave policy\n\nEveryone gets 25 days.', 'hr/faq.txt': 'Ask HR.' }
    const manifest = Object.entries(files).map(([p, c]) => entry(p, c))
    const res = await t.request(`/v1/corpora/${base}/documents/upload-urls`, {
      method: 'POST',
      headers: bearer(token),
      json: { files: manifest },
    })
    expect(res.status).toBe(200)
    const plan = (await res.json()) as {
      mode: string
      expires_at: string
      uploads: { path: string; upload: boolean; url: string; headers: Record<string, string> }[]
    }
    expect(plan.mode).toBe('presigned')
    expect(plan.expires_at).toBe(new Date(t.clock.now().getTime() + 3_600_000).toISOString())
    for (const u of plan.uploads) {
      expect(u.upload).toBe(true)
      expect(u.url).toStartWith('http://127.0.0.1:')
      expect(u.url).toContain('X-Amz-Signature=')
      // Straight to the object store: no bearer credential, the signature is the permission.
      const put = await fetch(u.url, {
        method: 'PUT',
        headers: u.headers,
        body: files[u.path as 'hr/faq.txt'],
      })
      expect(put.status).toBe(200)
    }
    // Asking again for the same content reuses the same pending upload.
    await t.request(`/v1/corpora/${base}/documents/upload-urls`, {
      method: 'POST',
      headers: bearer(token),
      json: { files: manifest },
    })
    expect(await countRows(t, 'ingest_uploads', 'corpus_id = ?', base)).toBe(2)

    const commit = await t.request(`/v1/corpora/${base}/documents/commit`, {
      method: 'POST',
      headers: bearer(token),
      json: { files: manifest },
    })
    expect(commit.status).toBe(202)
    const run = await commit.json()
    expect(run).toMatchObject({ created: 2, pending: 2 })
    await drain(t)
    const done = await (
      await t.request(`/v1/corpora/${base}/sync-runs/${run.id}`, { headers: bearer(token) })
    ).json()
    expect(done).toMatchObject({ status: 'succeeded', failed: 0 })
    const docs = await listDocs(t, token, base)
    expect(docs.map((d) => [d.filename, d.status, d.content_type]).sort()).toEqual([
      ['hr/faq.txt', 'pending', 'text/plain'],
      ['hr/policy.md', 'pending', 'text/markdown'],
    ])
    const keys = await objectKeys(t, `${f.admin.workspaceId}/corpora/${base}/`)
    // Two raw objects: each text is its file, read back from S3 (no sidecars).
    expect(keys).toHaveLength(2)
    const policy = docs.find((d) => d.filename === 'hr/policy.md')!.id
    const textKey = (await t.sql.get<{ k: string }>(
      'SELECT text_key AS k FROM documents WHERE id = ?',
      policy,
    ))!.k
    expect(keys).toContain(textKey)
    expect(await t.deps.objects.getText(textKey)).toBe(files['hr/policy.md'])
  })

  test('content PUT to a presigned URL that does not match its SHA-256 fails its document', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const claimed = entry('claims.txt', 'the honest bytes')
    const plan = await (
      await t.request(`/v1/corpora/${base}/documents/upload-urls`, {
        method: 'POST',
        headers: bearer(token),
        json: { files: [claimed] },
      })
    ).json()
    // Same length, other bytes: the server cannot tell until it reads them.
    expect((await fetch(plan.uploads[0].url, { method: 'PUT', body: 'the forged bytes' })).status).toBe(200)
    const run = await (
      await t.request(`/v1/corpora/${base}/documents/commit`, {
        method: 'POST',
        headers: bearer(token),
        json: { files: [claimed] },
      })
    ).json()
    await drain(t)
    const doc = (await listDocs(t, token, base))[0]!
    expect(doc.status).toBe('failed')
    expect(doc.error).toBe(
      `The stored content does not match its SHA-256 (expected ${claimed.sha256}, got ${sha256('the forged bytes')}); upload it again.`,
    )
    const done = await (
      await t.request(`/v1/corpora/${base}/sync-runs/${run.id}`, { headers: bearer(token) })
    ).json()
    expect(done).toMatchObject({ status: 'failed', failed: 1 })
  })

  test('a commit whose presigned upload has another size is refused and changes nothing', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const claimed = entry('short.txt', 'twelve bytes')
    const plan = await (
      await t.request(`/v1/corpora/${base}/documents/upload-urls`, {
        method: 'POST',
        headers: bearer(token),
        json: { files: [claimed] },
      })
    ).json()
    await fetch(plan.uploads[0].url, { method: 'PUT', body: 'not twelve bytes at all' })
    const res = await t.request(`/v1/corpora/${base}/documents/commit`, {
      method: 'POST',
      headers: bearer(token),
      json: { files: [claimed] },
    })
    await expectError(res, '/v1', 422, 'content_missing')
    expect(await countRows(t, 'documents', 'corpus_id = ?', base)).toBe(0)
  })

  test('multipart uploads stream into S3, and deleting the base leaves nothing in the bucket', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const res = await upload(t, token, base, [
      docPart('html/Unstructured-IO_unstructured__example-10k-1p.html'),
    ])
    expect(res.status).toBe(200)
    const doc = ((await res.json()) as Doc[])[0]!
    await drain(t)
    expect((await listDocs(t, token, base))[0]!.id).toBe(doc.id)
    const prefix = `${f.admin.workspaceId}/corpora/${base}/`
    expect(await objectKeys(t, prefix)).toHaveLength(2)
    const del = await t.request(`/v1/corpora/${base}`, { method: 'DELETE', headers: bearer(token) })
    expect(del.status).toBe(204)
    expect(await objectKeys(t, prefix)).toEqual([])
    expect(await countRows(t, 'documents', 'corpus_id = ?', base)).toBe(0)
  })
})
