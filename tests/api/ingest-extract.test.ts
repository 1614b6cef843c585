import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { bearer } from './accounts.fixture'
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

interface Row {
  id: string
  parent_id: string | null
  raw_key: string | null
  text_key: string | null
  text_chars: number
  text_offset: number | null
  section_index: number | null
  cart_id: string | null
  sha256: string | null
}

let f: Awaited<ReturnType<typeof ingestSetup>>
beforeAll(async () => {
  f = await ingestSetup()
})
afterAll(() => f.t.close())

const row = async (id: string) => (await f.t.sql.get<Row>('SELECT * FROM documents WHERE id = ?', id))!
const sectionRows = (parentId: string) =>
  f.t.sql.all<Row>('SELECT * FROM documents WHERE parent_id = ? ORDER BY section_index', parentId)
const sidecar = async (id: string) => (await f.t.deps.objects.getText((await row(id)).text_key!))!

describe('the extraction job', () => {
  test('extracts real documents in the background into text sidecars next to their raw objects', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const res = await upload(t, token, base, [
      docPart('md/deepset-ai_haystack__sample.md'),
      docPart('csv/mwaskom_seaborn-data__iris.csv'),
      docPart('csv/Unstructured-IO_unstructured__stanley-cups-utf-16.csv'),
      docPart('html/Unstructured-IO_unstructured__fake-html-cp1252.html'),
      docPart('docx/mwilliamson_mammoth.js__simple-list.docx'),
      docPart('docx/Unstructured-IO_unstructured__handbook-872p.docx'),
    ])
    expect(res.status).toBe(200)
    const docs = (await res.json()) as Doc[]
    expect(docs.map((d) => d.content_type)).toEqual([
      'text/markdown',
      'text/csv',
      'text/csv',
      'text/html',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    ])
    const [md, iris, cups, html, list, handbook] = docs.map((d) => d.id) as [
      string,
      string,
      string,
      string,
      string,
      string,
    ]
    // The small Markdown and CSV files are read inside the request (this process reads them), each
    // text a sidecar beside its file; HTML and Word files wait for their jobs (child processes).
    const readFirst = [md, iris, cups]
    const keys = await objectKeys(t, `${f.admin.workspaceId}/corpora/${base}/`)
    for (const id of [md, iris, cups, html, list, handbook]) {
      const r = await row(id)
      expect(r.text_key).toBe(readFirst.includes(id) ? `${r.raw_key}.txt` : null)
      if (r.text_key) expect(keys).toContain(r.text_key)
    }
    await drain(t)
    expect(await sidecar(md)).toContain('## What to build with Haystack')
    expect(await sidecar(iris)).toContain(
      'sepal_length: 5.1; sepal_width: 3.5; petal_length: 1.4; petal_width: 0.2; species: setosa',
    )
    expect(await sidecar(cups)).toContain('Team: Maple Leafs; Location: TOR; Stanley Cups: 13')
    expect(await sidecar(html)).toContain('Die schöne Frau hat einen Kaffee mit Kuchen gegessen.')
    expect(await sidecar(list)).toBe('- Apple\n- Banana')
    for (const id of [md, iris, cups, html, list, handbook]) {
      const r = await row(id)
      expect(r.text_key).toBe(readFirst.includes(id) ? `${r.raw_key}.txt` : `${r.raw_key}.${id}.txt`)
      expect(r.text_chars).toBe((await sidecar(id)).length)
    }
    const listed = await listDocs(t, token, base)
    for (const d of listed) expect(d.status).toBe('pending') // onboarding moves them on
    const small = listed.find((d) => d.id === list)!
    expect(small.section_count).toBe(1)
    expect(small.cart_id).toBe(`cart_${sha256('- Apple\n- Banana').slice(0, 32)}`)
    expect(listed.find((d) => d.id === handbook)!.section_count).toBeGreaterThan(1)
  }, 30_000)

  test('splits the 619-page PDF into section rows, each a slice of the sidecar with its own cart id', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const pdf = (
      (await (
        await upload(t, token, base, [docPart('pdf/Unstructured-IO_unstructured__DA-619p.pdf')])
      ).json()) as Doc[]
    )[0]!
    await drain(t)
    const parents = await listDocs(t, token, base)
    expect(parents).toHaveLength(1)
    const parent = parents[0]!
    expect(parent.section_count).toBeGreaterThan(20)
    expect(parent.cart_id).toBeNull()
    expect(parent.status).toBe('pending')
    const all = await listDocs(t, token, base, true)
    expect(all).toHaveLength(parent.section_count + 1)
    const sections = all.filter((d) => d.parent_id === pdf.id)
    expect(sections).toHaveLength(parent.section_count)
    const text = await sidecar(pdf.id)
    const rows = await sectionRows(pdf.id)
    expect(rows.map((r) => r.section_index)).toEqual(rows.map((_, i) => i))
    for (const r of rows) {
      const slice = text.slice(r.text_offset!, r.text_offset! + r.text_chars)
      expect(slice.trim().length).toBeGreaterThan(0)
      expect(r.sha256).toBe(sha256(slice))
      expect(r.cart_id).toBe(`cart_${sha256(slice).slice(0, 32)}`)
      expect(r.text_key).toBe((await row(pdf.id)).text_key)
    }
    expect(rows.map((r) => r.text_chars).reduce((a, b) => a + b + 2, -2)).toBe(text.length)
    for (const s of sections) {
      expect(s).toMatchObject({
        filename: pdf.filename,
        status: 'pending',
        section_count: 1,
        source: 'upload',
      })
      expect(s.title).not.toBeNull()
    }
    // The /v1 listing pages through parents and sections alike.
    const page = await t.request(`/v1/corpora/${base}/documents?sections=true&limit=10`, {
      headers: bearer(token),
    })
    expect(page.headers.get('x-total-count')).toBe(String(parent.section_count + 1))
  }, 30_000)

  test('fails a password-protected PDF and an image-only PDF with the reason, and counts them in the run', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const res = await upload(t, token, base, [
      docPart('pdf/Unstructured-IO_unstructured__password.pdf'),
      docPart('pdf/deepset-ai_haystack__non_text_searchable.pdf'),
      docPart('pdf/deepset-ai_haystack__sample_pdf_1.pdf'),
    ])
    const docs = (await res.json()) as Doc[]
    await drain(t)
    const byId = new Map((await listDocs(t, token, base)).map((d) => [d.id, d]))
    expect(byId.get(docs[0]!.id)).toMatchObject({
      status: 'failed',
      error: 'The PDF is password-protected. Remove the password and upload it again.',
    })
    expect(byId.get(docs[1]!.id)).toMatchObject({
      status: 'failed',
      error:
        'The PDF has no text layer (it is a scan or images only). Run it through OCR and upload it again.',
    })
    expect(byId.get(docs[2]!.id)).toMatchObject({ status: 'pending', error: null })
    const run = await (
      await t.request(`/v1/corpora/${base}/sync-runs/${res.headers.get('x-sync-run-id')}`, {
        headers: bearer(token),
      })
    ).json()
    expect(run).toMatchObject({ status: 'partial', created: 3, failed: 2, pending: 0 })
    // Two workers extract side by side, so failures are listed in the order they finished.
    const errors = (run.errors as { path: string; document_id: string; error: string }[]).sort((a, b) =>
      a.path < b.path ? -1 : 1,
    )
    expect(errors).toEqual([
      {
        path: 'Unstructured-IO_unstructured__password.pdf',
        document_id: docs[0]!.id,
        error: 'The PDF is password-protected. Remove the password and upload it again.',
      },
      {
        path: 'deepset-ai_haystack__non_text_searchable.pdf',
        document_id: docs[1]!.id,
        error:
          'The PDF has no text layer (it is a scan or images only). Run it through OCR and upload it again.',
      },
    ])
    const counters = await (await t.request(`/v1/corpora/${base}`, { headers: bearer(token) })).json()
    expect(counters).toMatchObject({
      n_documents: 3,
      documents_failed: 2,
      documents_pending: 1,
      documents_onboarding: 0,
    })
  })

  test('a document replaced before its extraction ran is extracted once, from the new content', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const r1 = await upload(t, token, base, [{ filename: 'memo.txt', content: 'the old memo' }])
    const r2 = await upload(t, token, base, [{ filename: 'memo.txt', content: 'the new memo' }])
    const id = ((await r2.json()) as Doc[])[0]!.id
    await drain(t)
    expect(await sidecar(id)).toBe('the new memo')
    // The new raw object (its text is the file: no sidecar); the old one is gone.
    expect((await objectKeys(t, `${f.admin.workspaceId}/corpora/${base}/`)).length).toBe(1)
    for (const r of [r1, r2]) {
      const run = await (
        await t.request(`/v1/corpora/${base}/sync-runs/${r.headers.get('x-sync-run-id')}`, {
          headers: bearer(token),
        })
      ).json()
      expect(run).toMatchObject({ status: 'succeeded', pending: 0, failed: 0 })
    }
  })

  test('a document deleted before its extraction ran leaves no job behind and its run finishes', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const res = await upload(t, token, base, [{ filename: 'gone.html', content: '<p>soon deleted</p>' }])
    const doc = ((await res.json()) as Doc[])[0]!
    expect(await countRows(t, 'jobs', 'subject_id = ?', doc.id)).toBe(1)
    const del = await t.request(`/v1/corpora/${base}/documents/${doc.id}`, {
      method: 'DELETE',
      headers: bearer(token),
    })
    expect(del.status).toBe(204)
    expect(await countRows(t, 'jobs', 'subject_id = ?', doc.id)).toBe(0)
    const run = await (
      await t.request(`/v1/corpora/${base}/sync-runs/${res.headers.get('x-sync-run-id')}`, {
        headers: bearer(token),
      })
    ).json()
    expect(run).toMatchObject({ status: 'succeeded', pending: 0 })
    await drain(t)
    expect(await objectKeys(t, `${f.admin.workspaceId}/corpora/${base}/`)).toEqual([])
  })
})
