import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { TestApp } from '../helpers/app'
import { bearer } from './accounts.fixture'
import {
  createBase,
  type Doc,
  drain,
  ingestSetup,
  listDocs,
  longMarkdown,
  objectKeys,
  upload,
} from './ingest.fixture'

// `/admin/usage` reports the bytes each base occupies in the object store: its raw objects (a file
// stored once for every path that holds the same content), its text sidecars and the cartridges its
// sections use. Held here to the store itself, through uploads, extraction, onboarding and deletes.

let f: Awaited<ReturnType<typeof ingestSetup>>
beforeAll(async () => {
  f = await ingestSetup()
})
afterAll(() => f.t.close())

/** Bytes of every object under a base's prefix. */
async function storeBytes(t: TestApp, corpusId: string): Promise<number> {
  let n = 0
  for await (const o of t.deps.objects.list(`${f.admin.workspaceId}/corpora/${corpusId}/`)) n += o.size
  return n
}

interface Usage {
  totals: { documents: number; storage_bytes: number }
  bases: { corpus_id: string; documents: number; storage_bytes: number }[]
}

/** Bytes of the cartridges a base's indexed sections use, each once, as the store holds them. */
async function cartBytes(t: TestApp, corpusId: string): Promise<number> {
  const keys = new Set(
    t.db.$client
      .query<{ k: string }, [string]>('SELECT DISTINCT cart_key AS k FROM engine_sections WHERE base_id = ?')
      .all(corpusId)
      .map((r) => r.k),
  )
  let n = 0
  for await (const o of t.deps.objects.list(`${f.admin.workspaceId}/carts/`)) if (keys.has(o.key)) n += o.size
  return n
}

/** Starts onboarding of a base and runs it to the end. */
async function train(t: TestApp, token: string, corpusId: string) {
  await drain(t)
  const res = await t.request(`/v1/corpora/${corpusId}/train`, { method: 'POST', headers: bearer(token) })
  expect(res.status).toBe(200)
  await drain(t)
}

async function usage(): Promise<Usage> {
  const res = await f.t.request('/v1/admin/usage', { headers: bearer(f.token) })
  expect(res.status).toBe(200)
  return (await res.json()) as Usage
}

describe('storage in /admin/usage', () => {
  test('counts the raw objects once each and the text sidecars, exactly, through extraction and deletes', async () => {
    const { t, token } = f
    const a = await createBase(t, token, 'A')
    const b = await createBase(t, token, 'B')
    // CRLF line ends, which extraction changes: these texts are sidecars. 'Größe ✓' is its own
    // text (no sidecar, nothing added to the storage).
    const shared = 'The same text at two paths is stored once.\r\n'
    const long = longMarkdown(6).replaceAll('\n', '\r\n')
    const docs = (await (
      await upload(t, token, a, [
        { filename: 'one.txt', content: shared },
        { filename: 'copy/one.txt', content: shared },
        { filename: 'long.md', content: long },
        { filename: 'ü.txt', content: 'Größe ✓' },
      ])
    ).json()) as Doc[]
    await upload(t, token, b, [{ filename: 'b.txt', content: 'bravo' }])
    const bytes = (s: string) => Buffer.byteLength(s)

    // Read as they were uploaded: the raw objects, the shared one counted once, and the sidecars
    // (the shared content's two, each its own object, and long.md's).
    let u = await usage()
    const rawA = bytes(shared) + bytes(long) + bytes('Größe ✓')
    const uploaded = await storeBytes(t, a)
    expect(uploaded).toBeGreaterThan(rawA + 2 * bytes(shared.trimEnd()))
    expect((await objectKeys(t, `${f.admin.workspaceId}/corpora/${a}/`)).length).toBe(6)
    expect(u.bases.find((x) => x.corpus_id === a)).toEqual({
      corpus_id: a,
      name: 'A',
      queries: 0,
      load_test_queries: 0,
      compare_queries: 0,
      feedback_up: 0,
      feedback_down: 0,
      documents: 4,
      storage_bytes: uploaded,
    } as never)
    expect(u.bases.find((x) => x.corpus_id === b)!.storage_bytes).toBe(bytes('bravo'))

    // Nothing more after the jobs (there are none): three raw objects and three sidecars.
    await drain(t)
    expect((await listDocs(t, token, a, true)).length).toBeGreaterThan(4) // long.md was split
    u = await usage()
    const sizeA = await storeBytes(t, a)
    expect(sizeA).toBe(uploaded)
    expect((await objectKeys(t, `${f.admin.workspaceId}/corpora/${a}/`)).length).toBe(6)
    expect(u.bases.find((x) => x.corpus_id === a)!.storage_bytes).toBe(sizeA)
    expect(u.bases.find((x) => x.corpus_id === b)!.storage_bytes).toBe(await storeBytes(t, b))
    expect(u.totals.storage_bytes).toBe(sizeA + (await storeBytes(t, b)))

    // Deleting one of the two paths of the shared content keeps the object, drops its sidecar.
    const del = (id: string) =>
      t.request(`/v1/corpora/${a}/documents/${id}`, { method: 'DELETE', headers: bearer(token) })
    expect((await del(docs[1]!.id)).status).toBe(204)
    u = await usage()
    expect(u.bases.find((x) => x.corpus_id === a)!.storage_bytes).toBe(await storeBytes(t, a))
    expect(await storeBytes(t, a)).toBeLessThan(sizeA)
    for (const d of [docs[0]!, docs[2]!]) expect((await del(d.id)).status).toBe(204)
    u = await usage()
    expect(u.bases.find((x) => x.corpus_id === a)).toMatchObject({
      documents: 1,
      storage_bytes: await storeBytes(t, a),
    })

    // A deleted base leaves the report; the totals are what the remaining base holds.
    expect((await t.request(`/v1/corpora/${b}`, { method: 'DELETE', headers: bearer(token) })).status).toBe(
      204,
    )
    u = await usage()
    expect(u.bases.map((x) => x.corpus_id)).not.toContain(b)
    expect(u.totals.storage_bytes).toBe(await storeBytes(t, a))
    expect(await storeBytes(t, a)).toBeGreaterThan(0)
  })
})

describe('cartridges in /admin/usage', () => {
  test('a base counts the cartridges its sections use, once each, also those made before sizes were recorded', async () => {
    const { t, token } = f
    const a = await createBase(t, token, 'Carts A')
    const b = await createBase(t, token, 'Carts B')
    const same = 'Both bases hold this very sentence about the harbour of Gdansk and its cranes.'
    await upload(t, token, a, [
      { filename: 'long.md', content: longMarkdown(6) },
      { filename: 'same.txt', content: same },
      { filename: 'again.txt', content: same },
    ])
    await upload(t, token, b, [{ filename: 'same.txt', content: same }])
    await train(t, token, a)
    await train(t, token, b)
    const cartsA = await cartBytes(t, a)
    const cartsB = await cartBytes(t, b)
    expect(cartsA).toBeGreaterThan(cartsB)
    expect(cartsB).toBeGreaterThan(0)
    const of = (u: Usage, id: string) => u.bases.find((x) => x.corpus_id === id)!.storage_bytes
    let u = await usage()
    // The cartridge of `same` serves both bases and counts in each; in A, once for its two paths.
    expect(of(u, a)).toBe((await storeBytes(t, a)) + cartsA)
    expect(of(u, b)).toBe((await storeBytes(t, b)) + cartsB)

    // Cartridges indexed before their size was recorded: asked of the store once, then counted.
    t.db.$client.run('UPDATE engine_sections SET cart_bytes = 0')
    expect(t.db.$client.query('SELECT sum(cart_bytes) AS n FROM engine_bases').get()).toEqual({ n: 0 })
    u = await usage()
    expect(of(u, a)).toBe((await storeBytes(t, a)) + cartsA)
    expect(of(u, b)).toBe((await storeBytes(t, b)) + cartsB)

    // Deleting the long document drops its sections' cartridges from A, exactly.
    const long = (await listDocs(t, token, a)).find((d) => d.filename === 'long.md')!
    const del = await t.request(`/v1/corpora/${a}/documents/${long.id}`, {
      method: 'DELETE',
      headers: bearer(token),
    })
    expect(del.status).toBe(204)
    u = await usage()
    expect(await cartBytes(t, a)).toBe(cartsB)
    expect(of(u, a)).toBe((await storeBytes(t, a)) + cartsB)
  })
})
