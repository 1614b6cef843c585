import { afterAll, describe, expect, test } from 'bun:test'
import { isSealed, parseHeader } from '../../src/platform/storage/envelope-format'
import type { TestApp } from '../helpers/app'
import { type KmsStandin, startKmsStandin } from '../helpers/kms-standin'
import { type FixtureFile, readyBase, train, upload } from '../helpers/ready-base'
import { storedObjects } from '../helpers/stored-objects'
import { authApp, bearer, expectError, rows, signUp } from './accounts.fixture'

// Each test uploads, trains and reads a base, then turns its key off and on: 2-4 s on PostgreSQL,
// more on a loaded machine, so each has 30 s.
const SLOW = 30_000

// Issue 36, the customer-managed key at work: a workspace's raw files, text sidecars and cartridges
// are sealed where they are stored (the test greps them), answers and reads work through the key, turning the key
// off refuses every read of the workspace's content at once (chat, its stream, document text,
// downloads, MCP, onboarding, uploads) and turning it on again loses nothing; rotation re-wraps
// the data keys and leaves the encrypted content byte for byte as it was. Both providers: local,
// and aws-kms through the unchanged SDK against a stand-in KMS on loopback.

const ACCESS_KEY = 'AKIASTANDIN000000000'
const MARKER = 'ZEPHYR4412'
// Each ends with a line break, which extraction drops: their texts are sidecars (a file that is its
// own text has none).
const FILES: FixtureFile[] = [
  {
    path: 'vault.txt',
    text: `The Ravenholm vault is opened with the code ${MARKER}. The vault holds the archive of the old mine and its maps.\n`,
  },
  {
    path: 'river.txt',
    text: `The Rhine begins in the Swiss canton of Graubünden and empties into the North Sea; its gauge code is ${MARKER}.\n`,
  },
]
const QUESTION = 'What code opens the Ravenholm vault?'

const apps: TestApp[] = []
const stands: KmsStandin[] = []
afterAll(() => {
  for (const t of apps) t.close()
  for (const k of stands) k.stop()
})

function app() {
  const t = authApp({
    env: {
      ENGRAM_KMS_ALLOW_HTTP: 'true',
      ENGRAM_KMS_ALLOW_LOOPBACK: 'true',
      ENGRAM_KMS_AWS_ACCESS_KEY_ID: ACCESS_KEY,
      ENGRAM_KMS_AWS_SECRET_ACCESS_KEY: 'standin-secret',
    },
  })
  apps.push(t)
  return t
}

/** Every stored object of a workspace (or of all, ''): its key and its bytes as stored. */
const stored = (t: TestApp, workspaceId: string) =>
  storedObjects(t.deps.objects, workspaceId ? `${workspaceId}/` : '')

/** The workspace's objects are all sealed and none holds the marker; returns them. */
async function expectSealed(t: TestApp, workspaceId: string) {
  const objects = await stored(t, workspaceId)
  // Raw uploads, text sidecars and cartridges: at least one of each for the two files.
  expect(objects.length).toBeGreaterThanOrEqual(5)
  for (const o of objects) {
    expect({ key: o.key, sealed: isSealed(o.bytes) }).toEqual({ key: o.key, sealed: true })
    expect(o.bytes.includes(Buffer.from(MARKER))).toBe(false)
    expect(o.bytes.includes(Buffer.from('Ravenholm'))).toBe(false)
  }
  return objects
}

const putKey = (t: TestApp, token: string, json: object) =>
  t.request('/v1/enterprise/kms-key', { method: 'PUT', headers: bearer(token), json })

interface Reads {
  chat: () => Promise<Response>
  stream: () => Promise<Response>
  text: () => Promise<Response>
  raw: () => Promise<Response>
  mcpQuery: () => Promise<Response>
  mcpText: () => Promise<Response>
  train: () => Promise<Response>
  upload: () => Promise<Response>
}

/** Every way a workspace's content is read (and one write), for a base and one of its documents. */
function reads(t: TestApp, token: string, queryKey: string, corpusId: string, docId: string): Reads {
  const base = `/v1/corpora/${corpusId}`
  const ask = { method: 'POST', headers: bearer(token), json: { question: QUESTION } }
  return {
    chat: () => t.request(`${base}/chat`, ask),
    stream: () => t.request(`${base}/chat/stream`, ask),
    text: () => t.request(`${base}/documents/${docId}/text`, { headers: bearer(token) }),
    raw: () => t.request(`${base}/documents/${docId}/raw`, { headers: bearer(token) }),
    mcpQuery: () =>
      t.request(`/v1/mcp/${corpusId}/query`, {
        method: 'POST',
        headers: bearer(queryKey),
        json: { question: QUESTION },
      }),
    mcpText: () => t.request(`/v1/mcp/${corpusId}/documents/${docId}/text`, { headers: bearer(queryKey) }),
    train: () => t.request(`${base}/train?force=true`, { method: 'POST', headers: bearer(token) }),
    upload: () => {
      const form = new FormData()
      form.append('files', new File([`more about ${MARKER}`], 'more.txt', { type: 'text/plain' }))
      return t.request(`${base}/documents`, { method: 'POST', headers: bearer(token), body: form })
    },
  }
}

/** Each read answers with the content (the answer names the code, the file is the file). */
async function expectReadable(r: Reads) {
  const chat = await r.chat()
  expect(chat.status).toBe(200)
  expect(JSON.stringify(await chat.json())).toContain(MARKER)
  const stream = await r.stream()
  expect(stream.status).toBe(200)
  expect(await stream.text()).toContain(MARKER)
  const text = await r.text()
  expect(text.status).toBe(200)
  expect(JSON.stringify(await text.json())).toContain(MARKER)
  const raw = await r.raw()
  expect(raw.status).toBe(200)
  expect(await raw.text()).toBe(FILES[0]!.text)
  const q = await r.mcpQuery()
  expect(q.status).toBe(200)
  expect(JSON.stringify(await q.json())).toContain(MARKER)
  const mt = await r.mcpText()
  expect(mt.status).toBe(200)
  expect(JSON.stringify(await mt.json())).toContain(MARKER)
}

/** Each read (and an upload, and an onboarding run) is refused with encryption_key_unavailable. */
async function expectRefused(t: TestApp, r: Reads) {
  const before = (await stored(t, '')).length
  const counts = () => Promise.all(['documents', 'jobs', 'domain_events'].map((table) => rows(t, table)))
  const written = await counts()
  for (const [name, call] of Object.entries(r)) {
    const res = await call()
    expect({ name, status: res.status }).toEqual({ name, status: 409 })
    await expectError(res, '/v1', 409, 'encryption_key_unavailable')
  }
  expect((await stored(t, '')).length).toBe(before)
  expect(await counts()).toEqual(written)
}

describe('a local key', () => {
  test(
    'seals every object written after it is set; off refuses every read at once, on brings them back',
    async () => {
      const t = app()
      const admin = await signUp(t)
      expect((await putKey(t, admin.token, { provider: 'local', enabled: true })).status).toBe(200)
      await t.jobs.scheduler.drain()
      const created = await t.request('/v1/corpora', {
        method: 'POST',
        headers: bearer(admin.token),
        json: { name: 'Sealed' },
      })
      const corpusId = ((await created.json()) as { id: string }).id
      const docs = await upload(t, admin.token, corpusId, FILES)
      await train(t, admin.token, corpusId)
      await expectSealed(t, admin.workspaceId)
      const key = await t.request('/v1/api-keys', {
        method: 'POST',
        headers: bearer(admin.token),
        json: { name: 'agent', scopes: ['query'] },
      })
      const queryKey = ((await key.json()) as { key: string }).key
      const r = reads(t, admin.token, queryKey, corpusId, docs[0]!.id)
      await expectReadable(r)

      expect((await putKey(t, admin.token, { provider: 'local', enabled: false })).status).toBe(200)
      await expectRefused(t, r)

      expect((await putKey(t, admin.token, { provider: 'local', enabled: true })).status).toBe(200)
      await t.jobs.scheduler.drain()
      await expectReadable(r)
    },
    SLOW,
  )

  test(
    'rotation re-wraps each data key and leaves the encrypted content byte for byte',
    async () => {
      const t = app()
      const admin = await signUp(t)
      await putKey(t, admin.token, { provider: 'local', enabled: true })
      const created = await t.request('/v1/corpora', {
        method: 'POST',
        headers: bearer(admin.token),
        json: { name: 'R' },
      })
      const corpusId = ((await created.json()) as { id: string }).id
      const docs = await upload(t, admin.token, corpusId, FILES)
      await train(t, admin.token, corpusId)
      const before = await expectSealed(t, admin.workspaceId)
      const res = await t.request('/v1/enterprise/kms-key/rotate', {
        method: 'POST',
        headers: bearer(admin.token),
        json: {},
      })
      expect(res.status).toBe(202)
      await t.jobs.scheduler.drain()
      const after = new Map((await expectSealed(t, admin.workspaceId)).map((o) => [o.key, o.bytes]))
      for (const o of before) {
        const now = after.get(o.key)!
        const [h1, h2] = [parseHeader(o.bytes)!, parseHeader(now)!]
        expect(Buffer.from(h2.wrapped).equals(Buffer.from(h1.wrapped))).toBe(false)
        expect(now.subarray(h2.length).equals(o.bytes.subarray(h1.length))).toBe(true)
      }
      const state = (await (
        await t.request('/v1/enterprise/kms-key', { headers: bearer(admin.token) })
      ).json()) as {
        rotated_at: string
        encrypted_objects: number
      }
      expect(state).toMatchObject({
        rotated_at: t.clock.now().toISOString(),
        encrypted_objects: before.length,
      })
      // Every object now names version 2; version 1 is kept for uploads that took their key before.
      const kept = (await t.sql.get<{ local_keys: string }>('SELECT local_keys FROM workspace_keys'))!
      expect((JSON.parse(kept.local_keys) as { version: number }[]).map((v) => v.version)).toEqual([1, 2])
      for (const o of after.values()) expect(Buffer.from(parseHeader(o)!.wrapped).readUInt32BE(1)).toBe(2)
      const raw = await t.request(`/v1/corpora/${corpusId}/documents/${docs[0]!.id}/raw`, {
        headers: bearer(admin.token),
      })
      expect(await raw.text()).toBe(FILES[0]!.text)
    },
    SLOW,
  )
})

test(
  'an extraction that runs while the key is off fails its document; uploaded again after enabling, it answers',
  async () => {
    const t = app()
    const admin = await signUp(t)
    await putKey(t, admin.token, { provider: 'local', enabled: true })
    const created = await t.request('/v1/corpora', {
      method: 'POST',
      headers: bearer(admin.token),
      json: { name: 'J' },
    })
    const corpusId = ((await created.json()) as { id: string }).id
    // Uploaded (and sealed) with the key on; its extraction job waits in the queue (HTML: a small
    // plain file would be read as it was uploaded).
    const page: FixtureFile = {
      path: 'vault.html',
      text: `<p>${FILES[0]!.text}</p>`,
      type: 'text/html',
    }
    const docs = await upload(t, admin.token, corpusId, [page])
    await putKey(t, admin.token, { provider: 'local', enabled: false })
    await t.jobs.scheduler.drain()
    const doc = async () => {
      const list = (await (
        await t.request(`/v1/corpora/${corpusId}/documents`, { headers: bearer(admin.token) })
      ).json()) as { items: { id: string; status: string; error: string | null }[] }
      return list.items.find((d) => d.id === docs[0]!.id)!
    }
    expect(await doc()).toMatchObject({ status: 'failed' })
    expect((await doc()).error).toContain("The workspace's encryption key is disabled")
    await putKey(t, admin.token, { provider: 'local', enabled: true })
    // Its stored file is intact; deleting the document and uploading the file again brings it back.
    const del = await t.request(`/v1/corpora/${corpusId}/documents/${docs[0]!.id}`, {
      method: 'DELETE',
      headers: bearer(admin.token),
    })
    expect(del.status).toBeLessThan(300)
    const [again] = await upload(t, admin.token, corpusId, [page])
    docs[0] = again!
    await train(t, admin.token, corpusId)
    expect(await doc()).toMatchObject({ status: 'ready', error: null })
    const chat = await t.request(`/v1/corpora/${corpusId}/chat`, {
      method: 'POST',
      headers: bearer(admin.token),
      json: { question: QUESTION },
    })
    expect(JSON.stringify(await chat.json())).toContain(MARKER)
  },
  SLOW,
)

describe('an aws-kms key through the SDK and a stand-in KMS', () => {
  test(
    'objects stored before the key are sealed by a pass; the KMS unwraps data keys; off and on',
    async () => {
      const t = app()
      const k = startKmsStandin(ACCESS_KEY)
      stands.push(k)
      const keyId = k.createKey()
      const b = await readyBase(t, FILES)
      // Stored plain so far: the marker is in the stored bytes.
      expect((await stored(t, b.workspaceId)).some((o) => o.bytes.includes(Buffer.from(MARKER)))).toBe(true)
      const set = await putKey(t, b.adminToken, {
        provider: 'aws-kms',
        key_id: keyId,
        endpoint: k.url,
        enabled: true,
      })
      expect(set.status).toBe(200)
      expect(await set.json()).toMatchObject({ pass: 'encrypt', status: 'enabled' })
      await t.jobs.scheduler.drain()
      const sealed = await expectSealed(t, b.workspaceId)
      const state = await (
        await t.request('/v1/enterprise/kms-key', { headers: bearer(b.adminToken) })
      ).json()
      expect(state).toMatchObject({ pass: null, encrypted_objects: sealed.length, plaintext_objects: 0 })
      // A data key per object, made by the KMS.
      expect(k.count('GenerateDataKey')).toBe(sealed.length + 1)
      const r = reads(t, b.adminToken, b.keys.query, b.corpusId, b.docs['vault.txt']!)
      await expectReadable(r)
      expect(k.count('Decrypt')).toBeGreaterThan(1)

      expect(
        (
          await putKey(t, b.adminToken, {
            provider: 'aws-kms',
            key_id: keyId,
            endpoint: k.url,
            enabled: false,
          })
        ).status,
      ).toBe(200)
      const calls = k.calls.length
      await expectRefused(t, r)
      // Refused by the setting itself: the KMS is not even asked.
      expect(k.calls.length).toBe(calls)
      expect(
        (
          await putKey(t, b.adminToken, {
            provider: 'aws-kms',
            key_id: keyId,
            endpoint: k.url,
            enabled: true,
          })
        ).status,
      ).toBe(200)
      await t.jobs.scheduler.drain()
      await expectReadable(r)
    },
    SLOW,
  )

  test(
    'a key the KMS refuses stops every read of the workspace at once, answers from memory included, until it serves again',
    async () => {
      const t = app()
      const k = startKmsStandin(ACCESS_KEY)
      stands.push(k)
      const keyId = k.createKey()
      const admin = await signUp(t)
      await putKey(t, admin.token, { provider: 'aws-kms', key_id: keyId, endpoint: k.url, enabled: true })
      const created = await t.request('/v1/corpora', {
        method: 'POST',
        headers: bearer(admin.token),
        json: { name: 'K' },
      })
      const corpusId = ((await created.json()) as { id: string }).id
      const docs = await upload(t, admin.token, corpusId, FILES)
      await train(t, admin.token, corpusId)
      const raw = () =>
        t.request(`/v1/corpora/${corpusId}/documents/${docs[0]!.id}/raw`, { headers: bearer(admin.token) })
      const chat = () =>
        t.request(`/v1/corpora/${corpusId}/chat`, {
          method: 'POST',
          headers: bearer(admin.token),
          json: { question: QUESTION },
        })
      expect(await (await raw()).text()).toBe(FILES[0]!.text)
      expect((await chat()).status).toBe(200)
      k.disable(keyId)
      // Data keys unwrapped before are reused until the cache expires (kms.data_key_cache_seconds).
      expect((await raw()).status).toBe(200)
      t.clock.advance(301_000)
      const message =
        "The workspace's encryption key is disabled or the KMS refused it, so its content cannot be read or written. An admin can enable the key again (PUT /v1/enterprise/kms-key). (The KMS answered DisabledException.)"
      await expectError(await raw(), '/v1', 409, 'encryption_key_unavailable', message)
      // The engine's cartridges are warm in memory: refused all the same, without asking the KMS.
      const asked = k.calls.length
      await expectError(await chat(), '/v1', 409, 'encryption_key_unavailable', message)
      expect(k.calls.length).toBe(asked)
      const keyState = async () =>
        (await (await t.request('/v1/enterprise/kms-key', { headers: bearer(admin.token) })).json()) as {
          status: string
          kms_error: string | null
        }
      expect(await keyState()).toMatchObject({ status: 'enabled', kms_error: 'DisabledException' })
      k.enable(keyId)
      t.clock.advance(30_000)
      expect(await (await raw()).text()).toBe(FILES[0]!.text)
      expect((await chat()).status).toBe(200)
      expect((await keyState()).kms_error).toBeNull()
    },
    SLOW,
  )

  test(
    'rotation re-wraps every data key inside the KMS (to new material or another key), content untouched',
    async () => {
      const t = app()
      const k = startKmsStandin(ACCESS_KEY)
      stands.push(k)
      const [first, second] = [k.createKey(), k.createKey()]
      const admin = await signUp(t)
      await putKey(t, admin.token, { provider: 'aws-kms', key_id: first, endpoint: k.url, enabled: true })
      const created = await t.request('/v1/corpora', {
        method: 'POST',
        headers: bearer(admin.token),
        json: { name: 'R' },
      })
      const corpusId = ((await created.json()) as { id: string }).id
      const docs = await upload(t, admin.token, corpusId, FILES)
      await train(t, admin.token, corpusId)
      const before = await expectSealed(t, admin.workspaceId)
      k.rotate(first)
      const rotate = (json: object) =>
        t.request('/v1/enterprise/kms-key/rotate', { method: 'POST', headers: bearer(admin.token), json })
      expect((await rotate({})).status).toBe(202)
      await t.jobs.scheduler.drain()
      expect(k.count('ReEncrypt')).toBe(before.length)
      const moved = await rotate({ key_id: second })
      expect(moved.status).toBe(202)
      expect(await moved.json()).toMatchObject({ key_id: second, pass: 'rotate' })
      await t.jobs.scheduler.drain()
      const after = new Map((await expectSealed(t, admin.workspaceId)).map((o) => [o.key, o.bytes]))
      for (const o of before) {
        const now = after.get(o.key)!
        const [h1, h2] = [parseHeader(o.bytes)!, parseHeader(now)!]
        expect(Buffer.from(h2.wrapped).equals(Buffer.from(h1.wrapped))).toBe(false)
        expect(now.subarray(h2.length).equals(o.bytes.subarray(h1.length))).toBe(true)
      }
      // Everything now opens under the second key alone.
      k.disable(first)
      t.clock.advance(301_000)
      const raw = await t.request(`/v1/corpora/${corpusId}/documents/${docs[0]!.id}/raw`, {
        headers: bearer(admin.token),
      })
      expect(await raw.text()).toBe(FILES[0]!.text)
    },
    SLOW,
  )
})
