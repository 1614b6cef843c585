import { afterAll, beforeAll, expect, test } from 'bun:test'
import { isSealed } from '../../src/platform/storage/envelope-format'
import { S3ObjectStore } from '../../src/platform/storage/s3-store'
import type { TestApp } from '../helpers/app'
import { type S3Standin, startS3rver } from '../helpers/standins/s3rver'
import { bearer } from './accounts.fixture'
import { createBase, ingestSetup, objectKeys, sha256 } from './ingest.fixture'

// Issue 36: on an S3 store, files put straight into the bucket through presigned URLs arrive plain;
// a workspace with a key has them sealed as soon as their documents are registered.

let server: S3Standin
let t: TestApp
let token: string
let workspaceId: string

beforeAll(async () => {
  server = await startS3rver()
  const objects = new S3ObjectStore({
    endpoint: server.endpoint,
    bucket: 'engram-kms',
    accessKey: 'S3RVER',
    secretKey: 'S3RVER',
    region: 'us-east-1',
  })
  const f = await ingestSetup({ objects })
  t = f.t
  token = f.token
  workspaceId = f.admin.workspaceId
})

afterAll(async () => {
  t?.close()
  await server.stop()
})

test('a file put to a presigned URL is sealed once its document is registered, and reads as sent', async () => {
  const set = await t.request('/v1/enterprise/kms-key', {
    method: 'PUT',
    headers: bearer(token),
    json: { provider: 'local', enabled: true },
  })
  expect(set.status).toBe(200)
  await t.jobs.scheduler.drain()
  const base = await createBase(t, token)
  const content = 'The Ravenholm vault code is ZEPHYR4412.'
  const manifest = [{ path: 'vault.txt', sha256: sha256(content), size: Buffer.byteLength(content) }]
  const plan = (await (
    await t.request(`/v1/corpora/${base}/documents/upload-urls`, {
      method: 'POST',
      headers: bearer(token),
      json: { files: manifest },
    })
  ).json()) as { mode: string; uploads: { url: string; headers: Record<string, string> }[] }
  expect(plan.mode).toBe('presigned')
  const put = await fetch(plan.uploads[0]!.url, {
    method: 'PUT',
    headers: plan.uploads[0]!.headers,
    body: content,
  })
  expect(put.status).toBe(200)
  const [uploaded] = await objectKeys(t, `${workspaceId}/corpora/${base}/blobs/`)
  // Straight into the bucket: plain until Engram registers it.
  expect(Buffer.from((await t.deps.objects.getBytes(uploaded!))!).toString()).toBe(content)
  const commit = await t.request(`/v1/corpora/${base}/documents/commit`, {
    method: 'POST',
    headers: bearer(token),
    json: { files: manifest },
  })
  expect(commit.status).toBe(202)
  await t.jobs.scheduler.drain()
  for (const key of await objectKeys(t, `${workspaceId}/`)) {
    const stored = Buffer.from((await t.deps.objects.getBytes(key))!)
    expect({ key, sealed: isSealed(stored) }).toEqual({ key, sealed: true })
    expect(stored.includes(Buffer.from('ZEPHYR4412'))).toBe(false)
  }
  const docs = (await (
    await t.request(`/v1/corpora/${base}/documents`, { headers: bearer(token) })
  ).json()) as {
    items: { id: string }[]
  }
  const raw = await t.request(`/v1/corpora/${base}/documents/${docs.items[0]!.id}/raw`, {
    headers: bearer(token),
  })
  expect(await raw.text()).toBe(content)
})
