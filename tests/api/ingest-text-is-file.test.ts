// A file whose extracted text is its own bytes (plain UTF-8 with nothing to clean) gets no text
// sidecar: its raw object serves as its text, read the same by every reader, and kept while any
// document names it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sha256Hex } from '../../src/platform/crypto/hash'
import { bearer } from './accounts.fixture'
import { createBase, type Doc, drain, ingestSetup, objectKeys, type Part, upload } from './ingest.fixture'

let f: Awaited<ReturnType<typeof ingestSetup>>
beforeAll(async () => {
  f = await ingestSetup()
})
afterAll(() => f.t.close())

const row = async (id: string) =>
  (await f.t.sql.get<{
    raw_key: string
    text_key: string | null
    text_bytes: number
    status: string
    cart_id: string | null
  }>('SELECT raw_key, text_key, text_bytes, status, cart_id FROM documents WHERE id = ?', id))!
const textOf = async (base: string, id: string) => {
  const res = await f.t.request(`/v1/corpora/${base}/documents/${id}/text`, { headers: bearer(f.token) })
  expect(res.status).toBe(200)
  return ((await res.json()) as { text: string }).text
}
const blobs = async (base: string) =>
  (await objectKeys(f.t)).filter((k) => k.includes(`/corpora/${base}/blobs/`))

/** A text's cartridge id, computed here from its text. */
const cartIdOf = (text: string) => `cart_${sha256Hex(text).slice(0, 32)}`

const PLAIN = 'The river is 40 km long.\n\nIt flows north past the mill.'
const CRLF = 'The lake is 3 km wide.\r\n\r\nIt freezes in winter.'

describe('a text that is its file', () => {
  test('an upload of many files: plain UTF-8 files are their own text, a file extraction changes gets a sidecar', async () => {
    const { t, token } = f
    const base = await createBase(t, token, 'Plain')
    const parts: Part[] = [
      { filename: 'a.txt', content: PLAIN },
      { filename: 'b.txt', content: CRLF },
      { filename: 'c.txt', content: `${PLAIN} Again.` },
    ]
    const docs = (await (await upload(t, token, base, parts)).json()) as Doc[]
    await drain(t)
    const [a, b, c] = await Promise.all(docs.map((d) => row(d.id)))
    expect(a!.text_key).toBe(a!.raw_key)
    expect(c!.text_key).toBe(c!.raw_key)
    // Storage counts each raw object once and the one sidecar.
    expect(a!.text_bytes).toBe(0)
    const storage = (await f.t.sql.get<{ n: number }>(
      'SELECT storage_bytes AS n FROM corpora WHERE id = ?',
      base,
    ))!.n
    const raw = parts.reduce((n, p) => n + Buffer.byteLength(p.content as string), 0)
    expect(storage).toBe(raw + b!.text_bytes)
    expect(b!.text_bytes).toBe(Buffer.byteLength('The lake is 3 km wide.\n\nIt freezes in winter.'))
    // Read as it was uploaded: its sidecar is next to its file.
    expect(b!.text_key).toBe(`${b!.raw_key}.txt`)
    // Three raw objects and one sidecar, and every text reads as extraction left it.
    expect(await blobs(base)).toHaveLength(4)
    expect(await textOf(base, docs[0]!.id)).toBe(PLAIN)
    expect(await textOf(base, docs[1]!.id)).toBe('The lake is 3 km wide.\n\nIt freezes in winter.')
    expect(await t.deps.objects.getText(a!.text_key!)).toBe(PLAIN)
    expect([a, b, c].map((r) => r!.status)).toEqual(['pending', 'pending', 'pending'])
    // The cartridge is named by its text's hash, whether the text is its file or a sidecar.
    expect(a!.cart_id).toBe(cartIdOf(PLAIN))
    expect(b!.cart_id).toBe(cartIdOf('The lake is 3 km wide.\n\nIt freezes in winter.'))
    expect(c!.cart_id).toBe(cartIdOf(`${PLAIN} Again.`))
  })

  test('one file alone is its own text too', async () => {
    const { t, token } = f
    const base = await createBase(t, token, 'Alone')
    const [doc] = (await (
      await upload(t, token, base, [{ filename: 'a.txt', content: PLAIN }])
    ).json()) as Doc[]
    await drain(t)
    const stored = await row(doc!.id)
    expect(stored.text_key).toBe(stored.raw_key)
    expect(await blobs(base)).toHaveLength(1)
    expect(await textOf(base, doc!.id)).toBe(PLAIN)
  })

  test('two documents of the same content share the object: deleting one keeps it for the other', async () => {
    const { t, token } = f
    const base = await createBase(t, token, 'Shared')
    const parts: Part[] = [
      { filename: 'one/a.txt', content: PLAIN },
      { filename: 'two/a.txt', content: PLAIN },
    ]
    const [one, two] = (await (await upload(t, token, base, parts)).json()) as Doc[]
    await drain(t)
    expect((await row(one!.id)).text_key).toBe((await row(two!.id)).text_key!)
    expect(await blobs(base)).toHaveLength(1)
    const del = (id: string) =>
      t.request(`/v1/corpora/${base}/documents/${id}`, { method: 'DELETE', headers: bearer(token) })
    expect((await del(one!.id)).status).toBe(204)
    await drain(t)
    expect(await blobs(base)).toHaveLength(1)
    expect(await textOf(base, two!.id)).toBe(PLAIN)
    expect((await del(two!.id)).status).toBe(204)
    await drain(t)
    expect(await blobs(base)).toHaveLength(0)
  })
})

describe('extracted again', () => {
  test('a text an older extractor wrote as a sidecar: the raw object serves once it is extracted again, the sidecar goes', async () => {
    const { t, token } = f
    const base = await createBase(t, token, 'Older')
    const [doc] = (await (
      await upload(t, token, base, [{ filename: 'a.txt', content: PLAIN }])
    ).json()) as Doc[]
    await drain(t)
    // As a document extracted before (its own sidecar, no extractor version) looks.
    const sidecar = `${(await row(doc!.id)).raw_key}.${doc!.id}.txt`
    await t.deps.objects.put(sidecar, PLAIN, { contentType: 'text/plain; charset=utf-8' })
    await t.sql.run(
      'UPDATE documents SET text_key = ?, extractor_version = NULL WHERE id = ?',
      sidecar,
      doc!.id,
    )
    expect(await blobs(base)).toHaveLength(2)
    const res = await t.request(`/v1/corpora/${base}/train?force=true`, {
      method: 'POST',
      headers: bearer(token),
    })
    expect(res.status).toBe(200)
    for (let i = 0; i < 10; i++) {
      await drain(t)
      await t.events.dispatcher.drain()
      t.clock.advance(5 * 60_000)
    }
    const after = await row(doc!.id)
    expect(after.text_key).toBe(after.raw_key)
    expect(await blobs(base)).toEqual([after.raw_key])
    expect(await textOf(base, doc!.id)).toBe(PLAIN)
  })
})
