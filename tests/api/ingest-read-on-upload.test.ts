// A small plain file (text, Markdown, CSV, JSON: what this process reads itself) is read as it is
// uploaded: its document is registered extracted, its text the file itself or a sidecar stored with
// it, and no extraction job is queued; the upload's run has ended when the upload answers unless a
// file of it waits for its job (HTML and Office files, read in a child process, and one that cannot be
// read: its job reads it again and fails it with the reason); a text of several sections gets its
// section rows as its job would write them. A refused request keeps no sidecar.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { bearer } from './accounts.fixture'
import {
  countRows,
  createBase,
  type Doc,
  drain,
  ingestSetup,
  objectKeys,
  type Part,
  sha256,
  upload,
} from './ingest.fixture'

let f: Awaited<ReturnType<typeof ingestSetup>>
beforeAll(async () => {
  f = await ingestSetup()
})
afterAll(() => f.t.close())

interface Row {
  raw_key: string
  text_key: string | null
  text_bytes: number
  text_chars: number
  status: string
  cart_id: string | null
  section_count: number
  content_type: string
  error: string | null
}
const row = async (id: string) => (await f.t.sql.get<Row>('SELECT * FROM documents WHERE id = ?', id))!
const textOf = (base: string, id: string) =>
  f.t.request(`/v1/corpora/${base}/documents/${id}/text`, { headers: bearer(f.token) })
const runOf = async (base: string, res: Response) =>
  (await (
    await f.t.request(`/v1/corpora/${base}/sync-runs/${res.headers.get('x-sync-run-id')}`, {
      headers: bearer(f.token),
    })
  ).json()) as { status: string; created: number; updated: number; pending: number; failed: number }
const extractionJobs = (base: string) =>
  countRows(f.t, 'jobs', "kind = 'ingest.extract' AND payload LIKE ?", `%${base}%`)
const cartIdOf = (text: string) => `cart_${sha256(text).slice(0, 32)}`
const PLAIN = 'The river is 40 km long. It flows north past the mill.'
const MARKDOWN = '# Mill\n\nThe mill was built in **1820**.\n'
// Its text as extraction leaves it: the line end dropped.
const MARKDOWN_TEXT = MARKDOWN.trimEnd()

describe('a small plain file read as it is uploaded', () => {
  test('is extracted when the upload answers, its text the file or a sidecar beside it; only the others get jobs', async () => {
    const { t, token } = f
    const base = await createBase(t, token, 'Read')
    const parts: Part[] = [
      { filename: 'a.txt', content: PLAIN },
      { filename: 'b.md', content: MARKDOWN },
      { filename: 'c.html', content: '<p>The weir is 3 m high.</p>' },
    ]
    const res = await upload(t, token, base, parts)
    expect(res.status).toBe(200)
    const [a, b, c] = (await res.json()) as Doc[]
    const [ra, rb, rc] = await Promise.all([a!, b!, c!].map((d) => row(d.id)))
    // The text is the file: its raw object serves, nothing added to the storage.
    expect(ra).toMatchObject({ status: 'pending', text_bytes: 0, text_chars: PLAIN.length, error: null })
    expect(ra!.text_key).toBe(ra!.raw_key)
    expect(ra!.cart_id).toBe(cartIdOf(PLAIN))
    // Markdown's text differs from its file: a sidecar next to it, counted in the storage.
    expect(rb).toMatchObject({ content_type: 'text/markdown', text_chars: MARKDOWN_TEXT.length })
    expect(rb!.text_key).toBe(`${rb!.raw_key}.txt`)
    expect(rb!.text_bytes).toBe(Buffer.byteLength(MARKDOWN_TEXT))
    expect(rb!.cart_id).toBe(cartIdOf(MARKDOWN_TEXT))
    // HTML is read by its job, in a child process.
    expect(rc!.text_key).toBeNull()
    expect(await extractionJobs(base)).toBe(1)
    expect(await runOf(base, res)).toMatchObject({ status: 'running', created: 3, pending: 1 })
    // Read at once, before any job ran.
    expect(((await (await textOf(base, a!.id)).json()) as { text: string }).text).toBe(PLAIN)
    expect(((await (await textOf(base, b!.id)).json()) as { text: string }).text).toBe(MARKDOWN_TEXT)
    expect((await textOf(base, c!.id)).status).toBe(409)
    const keys = await objectKeys(t, `${f.admin.workspaceId}/corpora/${base}/`)
    expect(keys.toSorted()).toEqual([ra!.raw_key, rb!.raw_key, rb!.text_key!, rc!.raw_key].sort())
    const storage = await t.sql.get<{ n: number }>(
      'SELECT storage_bytes AS n FROM corpora WHERE id = ?',
      base,
    )
    const raw = parts.reduce((n, p) => n + Buffer.byteLength(p.content as string), 0)
    expect(storage!.n).toBe(raw + rb!.text_bytes)
    await drain(t)
    expect(await runOf(base, res)).toMatchObject({ status: 'succeeded', pending: 0, failed: 0 })
    expect((await row(c!.id)).text_key).not.toBeNull()
  })

  test('an upload of only such files has ended when it answers, and a base onboards from them at once', async () => {
    const { t, token } = f
    const base = await createBase(t, token, 'Ended')
    const parts: Part[] = Array.from({ length: 10 }, (_, i) => ({
      filename: `notes/n${i}.md`,
      content: `# Note ${i}\n\nThe code of locker ${i} is QX${i}${i}7.\n`,
    }))
    const res = await upload(t, token, base, parts)
    expect(res.status).toBe(200)
    expect(await runOf(base, res)).toMatchObject({ status: 'succeeded', created: 10, pending: 0 })
    expect(await extractionJobs(base)).toBe(0)
    // Ten files are a pack: each sidecar is a range of it, right after its file.
    const docs = (await res.json()) as Doc[]
    const rows = await Promise.all(docs.map((d) => row(d.id)))
    const pack = rows[0]!.raw_key.replace(/#\d+\+\d+$/, '')
    expect(await objectKeys(t, `${f.admin.workspaceId}/corpora/${base}/`)).toEqual([pack])
    for (const r of rows) {
      const [, at, length] = /#(\d+)\+(\d+)$/.exec(r.raw_key)!.map(Number)
      expect(r.text_key).toBe(`${pack}#${at! + length!}+${r.text_bytes}`)
    }
    const train = await t.request(`/v1/corpora/${base}/train`, { method: 'POST', headers: bearer(token) })
    expect(train.status).toBe(200)
    await drain(t)
    const chat = await t.request(`/v1/corpora/${base}/chat`, {
      method: 'POST',
      headers: bearer(token),
      json: { question: 'What is the code of locker 4?' },
    })
    expect(chat.status).toBe(200)
    expect(JSON.stringify(await chat.json())).toContain('QX447')
  })

  test('a text of several sections is read as it comes with its section rows, each a slice of its sidecar', async () => {
    const { t, token } = f
    const base = await createBase(t, token, 'Sections')
    const long = Array.from({ length: 900 }, (_, i) => `Paragraph ${i} tells of the valley and its mill.`)
    const content = `${long.join('\n\n')}\n`
    const res = await upload(t, token, base, [{ filename: 'long.txt', content }])
    const [doc] = (await res.json()) as Doc[]
    expect(await runOf(base, res)).toMatchObject({ status: 'succeeded', pending: 0 })
    expect(await extractionJobs(base)).toBe(0)
    const parent = await row(doc!.id)
    expect(parent.text_key).toBe(`${parent.raw_key}.txt`)
    expect(parent.cart_id).toBeNull()
    const text = (await t.deps.objects.getText(parent.text_key!))!
    expect(text).toBe(content.trimEnd())
    const sections = await t.sql.all<Row & { id: string; text_offset: number; section_index: number }>(
      'SELECT * FROM documents WHERE parent_id = ? ORDER BY section_index',
      doc!.id,
    )
    expect(sections.length).toBeGreaterThan(1)
    expect((await row(doc!.id)).section_count).toBe(sections.length)
    for (const [i, s] of sections.entries()) {
      expect(s).toMatchObject({ section_index: i, text_key: parent.text_key, status: 'pending' })
      const slice = text.slice(s.text_offset, s.text_offset + s.text_chars)
      expect(s.cart_id).toBe(cartIdOf(slice))
    }
    // Back to back, the slices are the whole text.
    expect(sections.map((s) => text.slice(s.text_offset, s.text_offset + s.text_chars)).join('\n\n')).toBe(
      text,
    )
    // New content for the path: its old sections go, the new ones come with it.
    const again = await upload(t, token, base, [
      { filename: 'long.txt', content: content.replaceAll('mill', 'weir') },
    ])
    expect(await runOf(base, again)).toMatchObject({ status: 'succeeded', updated: 1, pending: 0 })
    const now = await t.sql.all<{ id: string; text_key: string }>(
      'SELECT id, text_key FROM documents WHERE parent_id = ? ORDER BY section_index',
      doc!.id,
    )
    expect(now).toHaveLength(sections.length)
    const textKey = (await row(doc!.id)).text_key
    for (const s of now) expect(s.text_key).toBe(textKey!)
    for (const s of now) expect(sections.map((o) => o.id)).not.toContain(s.id)
  })

  test('a plain text file of up to 256 KiB is read too, written alone; a larger Markdown file waits for its job', async () => {
    const { t, token } = f
    const base = await createBase(t, token, 'Larger')
    const paragraph = (i: number) =>
      `Paragraph ${i} tells of the valley, the river and the old mill by the weir.`
    const text = `${Array.from({ length: 2000 }, (_, i) => paragraph(i)).join('\n\n')}\n`
    expect(Buffer.byteLength(text)).toBeGreaterThan(128 * 1024)
    expect(Buffer.byteLength(text)).toBeLessThan(256 * 1024)
    const res = await upload(t, token, base, [
      { filename: 'valley.txt', content: text },
      { filename: 'valley.md', content: `# Valley\n\n${text}` },
    ])
    expect(res.status).toBe(200)
    const [txt, md] = (await res.json()) as Doc[]
    const r = await row(txt!.id)
    expect(r.raw_key).not.toContain('#')
    expect(r.text_key).toBe(`${r.raw_key}.txt`)
    expect(await t.deps.objects.getText(r.text_key!)).toBe(text.trimEnd())
    expect(r.section_count).toBeGreaterThan(1)
    expect((await row(md!.id)).text_key).toBeNull()
    expect(await runOf(base, res)).toMatchObject({ status: 'running', created: 2, pending: 1 })
    expect(await extractionJobs(base)).toBe(1)
    await drain(t)
    expect((await row(md!.id)).text_key).not.toBeNull()
  })

  test('a file that cannot be read waits for its job, which fails it with the reason', async () => {
    const { t, token } = f
    const base = await createBase(t, token, 'Blank')
    const res = await upload(t, token, base, [{ filename: 'blank.txt', content: '   \n\n   ' }])
    const [blank] = (await res.json()) as Doc[]
    expect((await row(blank!.id)).text_key).toBeNull()
    expect(await runOf(base, res)).toMatchObject({ status: 'running', pending: 1 })
    await drain(t)
    expect(await row(blank!.id)).toMatchObject({ status: 'failed', text_key: null })
    expect((await row(blank!.id)).error).toContain('no text')
    expect(await runOf(base, res)).toMatchObject({ status: 'failed', pending: 0, failed: 1 })
  })

  test('new content for a path is read as it comes too, and the old objects go', async () => {
    const { t, token } = f
    const base = await createBase(t, token, 'Again')
    const prefix = `${f.admin.workspaceId}/corpora/${base}/`
    const first = (
      (await (await upload(t, token, base, [{ filename: 'm.md', content: MARKDOWN }])).json()) as Doc[]
    )[0]!
    const before = await objectKeys(t, prefix)
    const res = await upload(t, token, base, [{ filename: 'm.md', content: '# Mill\n\nRebuilt in 1901.\n' }])
    const again = ((await res.json()) as Doc[])[0]!
    expect(again.id).toBe(first.id)
    expect(await runOf(base, res)).toMatchObject({ status: 'succeeded', updated: 1, pending: 0 })
    const r = await row(again.id)
    expect(r).toMatchObject({ status: 'pending', text_chars: '# Mill\n\nRebuilt in 1901.'.length })
    expect(((await (await textOf(base, again.id)).json()) as { text: string }).text).toBe(
      '# Mill\n\nRebuilt in 1901.',
    )
    const after = await objectKeys(t, prefix)
    expect(after.toSorted()).toEqual([r.raw_key, r.text_key!].sort())
    for (const k of before) expect(after).not.toContain(k)
    expect(await extractionJobs(base)).toBe(0)
  })

  test('an upserted file is read as it comes too, its sidecar its own even when its content is stored already', async () => {
    const { t, token } = f
    const base = await createBase(t, token, 'Upserted')
    const upsert = (path: string, content: string) =>
      t.request(`/v1/corpora/${base}/documents/upsert`, {
        method: 'POST',
        headers: bearer(token),
        json: { path, content },
      })
    const first = await upsert('wiki/mill.md', MARKDOWN)
    expect(first.status).toBe(200)
    const one = ((await first.json()) as { document: Doc }).document
    const copy = ((await (await upsert('wiki/copy.md', MARKDOWN)).json()) as { document: Doc }).document
    expect(await extractionJobs(base)).toBe(0)
    const [a, b] = await Promise.all([row(one.id), row(copy.id)])
    expect(a!.raw_key).toBe(b!.raw_key)
    expect(a!.text_key).not.toBe(b!.text_key)
    for (const d of [one, copy])
      expect(((await (await textOf(base, d.id)).json()) as { text: string }).text).toBe(MARKDOWN_TEXT)
    // The store holds what the base counts: one raw object, two sidecars.
    const keys = await objectKeys(t, `${f.admin.workspaceId}/corpora/${base}/`)
    expect(keys.toSorted()).toEqual([a!.raw_key, a!.text_key!, b!.text_key!].sort())
    const storage = await t.sql.get<{ n: number }>(
      'SELECT storage_bytes AS n FROM corpora WHERE id = ?',
      base,
    )
    expect(storage!.n).toBe(Buffer.byteLength(MARKDOWN) + a!.text_bytes + b!.text_bytes)
  })

  test('a refused request keeps none of its files nor their sidecars', async () => {
    const { t, token } = f
    const base = await createBase(t, token, 'Refused')
    for (const n of [2, 9]) {
      const parts: Part[] = [
        ...Array.from({ length: n }, (_, i) => ({
          filename: `m${i}.md`,
          content: `# M${i}\n\nText ${i}.\n`,
        })),
        { filename: 'tool.exe', content: new Uint8Array([0x4d, 0x5a, 0x90, 0, 3, 0, 0, 0]) },
      ]
      const res = await upload(t, token, base, parts)
      expect(res.status).toBe(415)
      expect(await objectKeys(t, `${f.admin.workspaceId}/corpora/${base}/`)).toEqual([])
      expect(await countRows(t, 'documents', 'corpus_id = ?', base)).toBe(0)
    }
  })

  test("a later upload's documents and sections have ids that sort after an earlier one's", async () => {
    // Keys written in bulk land at the end of their indexes' B-trees (newSortableId).
    const { t, token } = f
    const base = await createBase(t, token, 'Sorted')
    const idsOf = async (parents: 'IS NULL' | 'IS NOT NULL') =>
      (
        await t.sql.all<{ id: string }>(
          `SELECT id FROM documents WHERE corpus_id = ? AND parent_id ${parents} ORDER BY id`,
          base,
        )
      ).map((r) => r.id)
    const rounds: { documents: string[]; sections: string[] }[] = []
    for (const round of [1, 2]) {
      const seen = { documents: await idsOf('IS NULL'), sections: await idsOf('IS NOT NULL') }
      const res = await upload(t, token, base, [
        { filename: `plain-${round}.txt`, content: `${PLAIN} Round ${round}.` },
        {
          filename: `long-${round}.txt`,
          content: Array.from({ length: 900 }, (_, i) => `Paragraph ${i} of round ${round}.`).join('\n\n'),
        },
      ])
      expect(res.status).toBe(200)
      await drain(t)
      const documents = (await idsOf('IS NULL')).filter((id) => !seen.documents.includes(id))
      const sections = (await idsOf('IS NOT NULL')).filter((id) => !seen.sections.includes(id))
      expect(documents).toHaveLength(2)
      expect(sections.length).toBeGreaterThan(1)
      rounds.push({ documents, sections })
      t.clock.advance(1_000)
    }
    const [first, second] = rounds as [(typeof rounds)[0], (typeof rounds)[0]]
    for (const kind of ['documents', 'sections'] as const)
      expect(first[kind].every((a) => second[kind].every((b) => a < b))).toBe(true)
  })
})
