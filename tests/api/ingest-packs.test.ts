// An upload of many small files writes them as one object, a pack, and each document's raw key
// names its range of it (`<pack>#<offset>+<length>`): every read of a document's bytes or text
// (download, text, MCP, onboarding and answers, extraction) reads its range; the storage counters
// count each file once; the pack stays while any of its documents does (the orphan sweep too) and
// goes with the last; under a workspace key the pack is sealed and every read opens it.
import { afterAll, describe, expect, test } from 'bun:test'
import { isSealed } from '../../src/platform/storage/envelope-format'
import type { TestApp } from '../helpers/app'
import { type FixtureFile, train, upload } from '../helpers/ready-base'
import { storedObjects } from '../helpers/stored-objects'
import { authApp, bearer, mintKey, signUp } from './accounts.fixture'

const MARKER = 'QUILLON7731'
/** Twelve small files: one says the code, one has a line break extraction drops (its text is a sidecar). */
const FILES: FixtureFile[] = Array.from({ length: 12 }, (_, i) => ({
  path: `notes/n${i}.txt`,
  text:
    i === 3
      ? `The Ravenholm vault is opened with the code ${MARKER}. It holds the maps of the old mine.`
      : i === 7
        ? `Note ${i}: the ferry leaves the harbour at dawn.\n`
        : `Note ${i}: the river is ${i * 10} km long and flows north.`,
}))

const apps: TestApp[] = []
afterAll(() => {
  for (const t of apps) t.close()
})

function app() {
  const t = authApp({ env: { ENGRAM_KMS_ALLOW_HTTP: 'true', ENGRAM_KMS_ALLOW_LOOPBACK: 'true' } })
  apps.push(t)
  return t
}

/** The stored objects of a workspace's raw uploads and sidecars (under `blobs/`), with their bytes. */
const blobs = (t: TestApp, workspaceId: string) =>
  storedObjects(t.deps.objects, `${workspaceId}/`, (key) => key.split('/').at(-2) === 'blobs')

const docRow = async (t: TestApp, id: string) =>
  (await t.sql.get<{ raw_key: string; text_key: string | null; size: number }>(
    'SELECT raw_key, text_key, size FROM documents WHERE id = ?',
    id,
  ))!
const docRows = (t: TestApp, docs: { id: string }[]) => Promise.all(docs.map((d) => docRow(t, d.id)))
const storage = async (t: TestApp, corpusId: string) =>
  (await t.sql.get<{ storage_bytes: number }>('SELECT storage_bytes FROM corpora WHERE id = ?', corpusId))!
    .storage_bytes

async function newBase(t: TestApp, token: string, name: string): Promise<string> {
  const res = await t.request('/v1/corpora', { method: 'POST', headers: bearer(token), json: { name } })
  return ((await res.json()) as { id: string }).id
}

/** Every file downloads as sent and reads as its text; MCP reads one; the base answers from them. */
async function expectEveryRead(t: TestApp, token: string, corpusId: string, docs: { id: string }[]) {
  const query = (await mintKey(t, token, ['query'])).key
  for (const [i, d] of docs.entries()) {
    const raw = await t.request(`/v1/corpora/${corpusId}/documents/${d.id}/raw`, { headers: bearer(token) })
    expect(raw.status).toBe(200)
    expect(await raw.text()).toBe(FILES[i]!.text)
    const text = await t.request(`/v1/corpora/${corpusId}/documents/${d.id}/text`, { headers: bearer(token) })
    expect(((await text.json()) as { text: string }).text).toBe(FILES[i]!.text.trimEnd())
  }
  const mcp = await t.request(`/v1/mcp/${corpusId}/documents/${docs[3]!.id}/text`, { headers: bearer(query) })
  expect(mcp.status).toBe(200)
  expect(JSON.stringify(await mcp.json())).toContain(MARKER)
  await train(t, token, corpusId)
  const chat = await t.request(`/v1/corpora/${corpusId}/chat`, {
    method: 'POST',
    headers: bearer(token),
    json: { question: 'What code opens the Ravenholm vault?' },
  })
  expect(chat.status).toBe(200)
  expect(JSON.stringify(await chat.json())).toContain(MARKER)
}

describe('an upload of many small files', () => {
  test('is one pack: each document its range; every read reads it; storage counts each file once', async () => {
    const t = app()
    const admin = await signUp(t)
    const corpusId = await newBase(t, admin.token, 'Packed')
    const docs = await upload(t, admin.token, corpusId, FILES)
    await t.jobs.scheduler.drain()
    const rows = await docRows(t, docs)
    const pack = rows[0]!.raw_key.replace(/#\d+\+\d+$/, '')
    // Read as they were uploaded: a text that is its file is its range; the one extraction changed
    // has its sidecar in the pack too, right after its file.
    const sidecar = FILES[7]!.text.trimEnd()
    let at = 0
    for (const [i, r] of rows.entries()) {
      expect(r.raw_key).toBe(`${pack}#${at}+${Buffer.byteLength(FILES[i]!.text)}`)
      at += r.size
      if (i === 7) {
        expect(r.text_key).toBe(`${pack}#${at}+${Buffer.byteLength(sidecar)}`)
        at += Buffer.byteLength(sidecar)
      } else expect(r.text_key).toBe(r.raw_key)
    }
    const stored = await blobs(t, admin.workspaceId)
    expect(stored.map((o) => o.key)).toEqual([pack])
    const packed = FILES.map((f, i) => (i === 7 ? f.text + sidecar : f.text)).join('')
    expect(stored[0]!.bytes.toString()).toBe(packed)
    expect(await storage(t, corpusId)).toBe(at)
    await expectEveryRead(t, admin.token, corpusId, docs)
  }, 30_000)

  test('of fewer than eight files is one object a file, as before', async () => {
    const t = app()
    const admin = await signUp(t)
    const corpusId = await newBase(t, admin.token, 'Few')
    const docs = await upload(t, admin.token, corpusId, FILES.slice(0, 3))
    const keys = (await docRows(t, docs)).map((r) => r.raw_key)
    for (const k of keys) expect(k).not.toContain('#')
    expect((await blobs(t, admin.workspaceId)).map((o) => o.key)).toEqual([...keys].sort())
  })

  test('keeps its pack while any of its documents is left (the orphan sweep too), and loses it with the last', async () => {
    const t = app()
    const admin = await signUp(t)
    const corpusId = await newBase(t, admin.token, 'Deleted')
    const docs = await upload(t, admin.token, corpusId, FILES)
    await t.jobs.scheduler.drain()
    const pack = (await docRow(t, docs[0]!.id)).raw_key.replace(/#\d+\+\d+$/, '')
    const del = (id: string) =>
      t.request(`/v1/corpora/${corpusId}/documents/${id}`, { method: 'DELETE', headers: bearer(admin.token) })
    for (const d of docs.slice(0, 11)) expect((await del(d.id)).status).toBe(204)
    // The deleted file's sidecar went with it; the pack stays for the one file left.
    expect((await blobs(t, admin.workspaceId)).map((o) => o.key)).toEqual([pack])
    expect(await t.services.ingest.sweepOrphans({ graceMs: 0 })).toMatchObject({ removed: 0 })
    expect((await blobs(t, admin.workspaceId)).map((o) => o.key)).toEqual([pack])
    const last = await t.request(`/v1/corpora/${corpusId}/documents/${docs[11]!.id}/raw`, {
      headers: bearer(admin.token),
    })
    expect(await last.text()).toBe(FILES[11]!.text)
    expect(await storage(t, corpusId)).toBe(Buffer.byteLength(FILES[11]!.text))
    expect((await del(docs[11]!.id)).status).toBe(204)
    expect(await blobs(t, admin.workspaceId)).toEqual([])
    expect(await storage(t, corpusId)).toBe(0)
  })

  test('shares a range between copies, and a file given new content leaves the pack to the others', async () => {
    const t = app()
    const admin = await signUp(t)
    const corpusId = await newBase(t, admin.token, 'Copies')
    const files = FILES.map((f, i) => (i === 9 ? { ...f, text: FILES[5]!.text } : f))
    const docs = await upload(t, admin.token, corpusId, files)
    await t.jobs.scheduler.drain()
    const rows = await docRows(t, docs)
    const pack = rows[0]!.raw_key.replace(/#\d+\+\d+$/, '')
    expect(rows[9]!.raw_key).toBe(rows[5]!.raw_key)
    const counted = files.reduce((n, f, i) => n + (i === 9 ? 0 : Buffer.byteLength(f.text)), 0)
    const sidecar = Buffer.byteLength(FILES[7]!.text.trimEnd())
    expect(await storage(t, corpusId)).toBe(counted + sidecar)
    // n0.txt again, alone and changed: its own object; the pack stays for the other eleven.
    const [again] = await upload(t, admin.token, corpusId, [
      { path: 'notes/n0.txt', text: 'Note 0, rewritten.' },
    ])
    expect(again!.id).toBe(docs[0]!.id)
    const own = (await docRow(t, docs[0]!.id)).raw_key
    expect(own).not.toContain('#')
    // n7.txt's sidecar is a range of the pack.
    expect((await blobs(t, admin.workspaceId)).map((o) => o.key)).toEqual([pack, own].sort())
    const del = (id: string) =>
      t.request(`/v1/corpora/${corpusId}/documents/${id}`, { method: 'DELETE', headers: bearer(admin.token) })
    for (const d of docs.slice(1, 9)) expect((await del(d.id)).status).toBe(204)
    const copy = await t.request(`/v1/corpora/${corpusId}/documents/${docs[9]!.id}/raw`, {
      headers: bearer(admin.token),
    })
    expect(await copy.text()).toBe(FILES[5]!.text)
    for (const d of docs.slice(9)) expect((await del(d.id)).status).toBe(204)
    expect((await blobs(t, admin.workspaceId)).map((o) => o.key)).toEqual([own])
    expect(await storage(t, corpusId)).toBe(Buffer.byteLength('Note 0, rewritten.'))
  })

  test('under a workspace key is a sealed pack, and every read opens it', async () => {
    const t = app()
    const admin = await signUp(t)
    const put = await t.request('/v1/enterprise/kms-key', {
      method: 'PUT',
      headers: bearer(admin.token),
      json: { provider: 'local', enabled: true },
    })
    expect(put.status).toBe(200)
    await t.jobs.scheduler.drain()
    const corpusId = await newBase(t, admin.token, 'Sealed')
    const docs = await upload(t, admin.token, corpusId, FILES)
    await t.jobs.scheduler.drain()
    expect((await docRow(t, docs[0]!.id)).raw_key).toMatch(/#0\+\d+$/)
    const stored = await blobs(t, admin.workspaceId)
    expect(stored).toHaveLength(1) // the sidecar read as it was uploaded is in the pack
    for (const o of stored) {
      expect({ key: o.key, sealed: isSealed(o.bytes) }).toEqual({ key: o.key, sealed: true })
      expect(o.bytes.includes(Buffer.from(MARKER))).toBe(false)
    }
    await expectEveryRead(t, admin.token, corpusId, docs)
  })
})
