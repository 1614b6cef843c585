// A source's sync stores the new small files of each batch as an upload does (ingest-packs): one
// object, a pack, for many files, each document's raw key its range (`<pack>#<offset>+<length>`),
// all flushed once before the batch registers them; a batch of a few files, and a larger file, are
// one object a file. Every read of a synced document reads its range, and the base answers from them.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { objectOf, parseRange } from '../../src/platform/storage/ranges'
import type { TestApp } from '../helpers/app'
import { train } from '../helpers/ready-base'
import { storedKeys } from '../helpers/stored-objects'
import { authApp, bearer, signUp } from './accounts.fixture'
import { createBase } from './ingest.fixture'
import { connection, folderOf, source, syncNow } from './sources.fixture'

const MARKER = 'QUILLON7731'
/** Twelve small files, one of which says the code. */
const FILES = Array.from({ length: 12 }, (_, i) => ({
  path: `notes/n${String(i).padStart(2, '0')}.txt`,
  text:
    i === 3
      ? `The Ravenholm vault is opened with the code ${MARKER}. It holds the maps of the old mine.`
      : `Note ${i}: the river is ${i * 10} km long and flows north.`,
}))

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

/** The objects stored under a base's `blobs/` (raw objects and sidecars), by object key. */
function blobs(corpusId: string): Promise<string[]> {
  const prefix = `${admin.workspaceId}/corpora/${corpusId}/blobs/`
  return storedKeys(t.deps.objects, prefix, (key) => !key.slice(prefix.length).includes('/'))
}

const rows = (corpusId: string) =>
  t.sql.all<{ id: string; path: string; raw_key: string; size: number }>(
    'SELECT id, path, raw_key, size FROM documents WHERE corpus_id = ? AND parent_id IS NULL ORDER BY path',
    corpusId,
  )
const storage = async (corpusId: string) =>
  (await t.sql.get<{ storage_bytes: number }>('SELECT storage_bytes FROM corpora WHERE id = ?', corpusId))!
    .storage_bytes

async function synced(folder: Record<string, string>, name: string) {
  const corpusId = await createBase(t, admin.token, name)
  const dir = folderOf(folder, join(roots, name))
  const conn = await connection(t, admin.token, { kind: 'folder', name: `Share ${name}` })
  const id = await source(t, admin.token, corpusId, { connection_id: conn, folder: dir })
  const run = await syncNow(t, admin.token, corpusId, id)
  return { corpusId, run, dir, id }
}

describe("a source's sync of many small files", () => {
  test('stores them as one pack, each document its range; every read reads it; storage counts each file once; the base answers', async () => {
    const { corpusId, run } = await synced(Object.fromEntries(FILES.map((f) => [f.path, f.text])), 'packed')
    expect(run).toMatchObject({ status: 'succeeded', created: 12, failed: 0 })
    const docs = await rows(corpusId)
    expect(docs.map((d) => d.path)).toEqual(FILES.map((f) => f.path))
    const packs = new Set(docs.map((d) => objectOf(d.raw_key)))
    expect(packs.size).toBe(1)
    const [pack] = [...packs]
    for (const d of docs) expect(parseRange(d.raw_key)).toMatchObject({ pack, length: d.size })
    // The pack is the only object stored: its bytes are the files', one after the other.
    expect(await blobs(corpusId)).toEqual([pack!])
    const packBytes = new TextDecoder().decode((await t.deps.objects.getBytes(pack!))!)
    for (const [i, d] of docs.entries()) {
      const r = parseRange(d.raw_key)!
      expect(packBytes.slice(r.offset, r.offset + r.length)).toBe(FILES[i]!.text)
    }
    expect(await storage(corpusId)).toBe(FILES.reduce((n, f) => n + Buffer.byteLength(f.text), 0))
    // Read as the sync stored them: each text is its file's range, and no extraction job was queued.
    const texts = await t.sql.all<{ raw_key: string; text_key: string | null }>(
      'SELECT raw_key, text_key FROM documents WHERE corpus_id = ?',
      corpusId,
    )
    for (const d of texts) expect(d.text_key).toBe(d.raw_key)
    const jobs = await t.sql.get<{ n: number }>(
      "SELECT count(*) AS n FROM jobs WHERE kind = 'ingest.extract' AND payload LIKE ?",
      `%${corpusId}%`,
    )
    expect(Number(jobs!.n)).toBe(0)
    for (const [i, d] of docs.entries()) {
      const raw = await t.request(`/v1/corpora/${corpusId}/documents/${d.id}/raw`, {
        headers: bearer(admin.token),
      })
      expect(await raw.text()).toBe(FILES[i]!.text)
      const text = await t.request(`/v1/corpora/${corpusId}/documents/${d.id}/text`, {
        headers: bearer(admin.token),
      })
      expect(((await text.json()) as { text: string }).text).toBe(FILES[i]!.text)
    }
    await train(t, admin.token, corpusId)
    const chat = await t.request(`/v1/corpora/${corpusId}/chat`, {
      method: 'POST',
      headers: bearer(admin.token),
      json: { question: 'What code opens the Ravenholm vault?' },
    })
    expect(chat.status).toBe(200)
    expect(JSON.stringify(await chat.json())).toContain(MARKER)
  })

  test('a changed file is stored again and the old pack stays while its other files are named; a few files, or a large one, are one object a file', async () => {
    const { corpusId, dir, id } = await synced(
      Object.fromEntries(FILES.map((f) => [f.path, f.text])),
      'changed',
    )
    const [pack] = await blobs(corpusId)
    writeFileSync(join(dir, FILES[0]!.path), 'Note 0: the river changed its course.')
    const again = await syncNow(t, admin.token, corpusId, id)
    expect(again).toMatchObject({ status: 'succeeded', updated: 1, unchanged: 11 })
    const docs = await rows(corpusId)
    // One batch of one new file: an object of its own, beside the pack the others still name.
    expect(docs[0]!.raw_key).not.toContain('#')
    expect(await blobs(corpusId)).toEqual([pack!, docs[0]!.raw_key].sort())
    const raw = await t.request(`/v1/corpora/${corpusId}/documents/${docs[0]!.id}/raw`, {
      headers: bearer(admin.token),
    })
    expect(await raw.text()).toBe('Note 0: the river changed its course.')

    const large = 'The large file. '.repeat(5000) // 80 KB: past a pack's files' size
    const few = await synced({ 'a.txt': 'Alpha file.', 'b.txt': 'Beta file.', 'big.txt': large }, 'few')
    expect(few.run).toMatchObject({ status: 'succeeded', created: 3 })
    const fewDocs = await rows(few.corpusId)
    expect(fewDocs.every((d) => !d.raw_key.includes('#'))).toBe(true)
    expect((await blobs(few.corpusId)).filter((k) => !k.endsWith('.txt'))).toEqual(
      fewDocs.map((d) => d.raw_key).sort(),
    )
  })
})
