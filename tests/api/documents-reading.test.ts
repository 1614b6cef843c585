import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { train } from '../helpers/ready-base'
import { auditRows, bearer, expectError, mintKey, mounts, signUp } from './accounts.fixture'
import {
  createBase,
  type Doc,
  docBytes,
  docPart,
  drain,
  ingestSetup,
  longMarkdown,
  sha256,
  upload,
} from './ingest.fixture'

// Reading documents back (issue 34, "Sources can be read"): the text route with its pages and
// sections, the raw file with its safe headers and audit row, and sources that say where they are.

// Extracting and onboarding the 76-page booklet takes a few seconds on a loaded machine.
setDefaultTimeout(60_000)

const SAMPLE = 'pdf/deepset-ai_haystack__sample_pdf_1.pdf'
const BOOKLET = 'pdf/Unstructured-IO_unstructured__failure-after-repair.pdf'

interface TextResp {
  document_id: string
  filename: string
  content_type: string | null
  title: string | null
  text_chars: number
  offset: number
  next_offset: number | null
  text: string
  pages: { number: number; start: number; end: number }[] | null
  sections: { id: string; title: string | null; start: number; end: number; page: number | null }[]
}

let f: Awaited<ReturnType<typeof ingestSetup>>
/** The documents uploaded by `beforeAll`, by name. */
const docs: Record<string, Doc> = {}
const HTML_NAME = 'notes/caf\u00e9 \u202Efdp.html'
const HTML =
  '<html><body><h1>Notes</h1><p>Plain notes.</p><script>alert(document.cookie)</script></body></html>'

beforeAll(async () => {
  f = await ingestSetup()
  const res = await upload(f.t, f.token, f.base, [
    docPart(SAMPLE, 'sample.pdf'),
    { filename: 'handbook.md', content: longMarkdown(8) },
    { filename: HTML_NAME, content: HTML, type: 'text/html' },
  ])
  expect(res.status).toBe(200)
  for (const d of (await res.json()) as Doc[]) docs[d.filename] = d
  await drain(f.t)
})
afterAll(() => f.t.close())

const textOf = async (id: string, query = '', token = f.token, base = f.base) => {
  const res = await f.t.request(`/v1/corpora/${base}/documents/${id}/text${query}`, {
    headers: bearer(token),
  })
  expect(res.status).toBe(200)
  return (await res.json()) as TextResp
}

describe('GET /corpora/{id}/documents/{document_id}/text', () => {
  test("a PDF's text comes with its pages: each page a range of the text, a blank page empty", async () => {
    const d = docs['sample.pdf']!
    for (const path of mounts(`/corpora/${f.base}/documents/${d.id}/text`)) {
      const res = await f.t.request(path, { headers: bearer(f.token) })
      expect(res.status).toBe(200)
      const body = (await res.json()) as TextResp
      expect(Object.keys(body)).toEqual([
        'document_id',
        'filename',
        'content_type',
        'title',
        'text_chars',
        'offset',
        'next_offset',
        'text',
        'pages',
        'sections',
      ])
      expect(body).toMatchObject({
        document_id: d.id,
        filename: 'sample.pdf',
        content_type: 'application/pdf',
        title: 'sample_pdf',
        offset: 0,
        next_offset: null,
      })
      expect(body.text.length).toBe(body.text_chars)
      expect(body.pages!.map((p) => p.number)).toEqual([1, 2, 3, 4])
      const pageText = body.pages!.map((p) => body.text.slice(p.start, p.end))
      expect(pageText[0]).toStartWith('A sample PDF file')
      expect(pageText[0]).toContain('Column 1')
      // Page 2 holds only its label, "Page 2 of Sample PDF": furniture, not text. Page 3 is blank.
      expect(pageText[1]).toBe('')
      expect(pageText[2]).toBe('')
      expect(pageText[3]).toBe('… the page 3 is empty.')
      expect(body.text).not.toContain('of Sample PDF')
      expect(body.sections).toEqual([
        { id: d.id, title: 'sample_pdf', start: 0, end: body.text_chars, page: 1 },
      ])
    }
  })

  test('a long text is read a window at a time, and a section id opens its file where the section starts', async () => {
    const d = docs['handbook.md']!
    const whole = await textOf(d.id)
    expect(whole.pages).toBeNull()
    expect(whole.sections.length).toBeGreaterThan(1)
    for (const s of whole.sections) {
      expect(whole.text.slice(s.start, s.end)).toStartWith(`# ${s.title}\n`)
      expect(s.page).toBeNull()
    }
    const second = whole.sections[1]!
    const window = await textOf(d.id, '?offset=100&limit=50')
    expect(window).toMatchObject({ offset: 100, next_offset: 150, text: whole.text.slice(100, 150) })
    const tail = await textOf(d.id, `?offset=${whole.text_chars - 10}&limit=50`)
    expect(tail).toMatchObject({ next_offset: null, text: whole.text.slice(-10) })
    const bySection = await textOf(second.id, '?limit=20')
    expect(bySection).toMatchObject({
      document_id: d.id,
      offset: second.start,
      text: whole.text.slice(second.start, second.start + 20),
    })
  })

  test('a window larger than the limit allows is refused, with nothing else said', async () => {
    const path = `/v1/corpora/${f.base}/documents/${docs['handbook.md']!.id}/text?limit=1000001`
    await expectError(await f.t.request(path, { headers: bearer(f.token) }), path, 422, 'validation_error')
  })

  test('a document whose text is not extracted yet is a 409 document_not_ready', async () => {
    const base = await createBase(f.t, f.token, 'Waiting')
    // HTML is read by an extraction job (in a child process), not as it is uploaded.
    const res = await upload(f.t, f.token, base, [
      { filename: 'later.html', content: '<p>Text for later.</p>' },
    ])
    const [d] = (await res.json()) as Doc[]
    const path = `/v1/corpora/${base}/documents/${d!.id}/text`
    await expectError(
      await f.t.request(path, { headers: bearer(f.token) }),
      path,
      409,
      'document_not_ready',
      'The text of later.html is not extracted yet.',
    )
    await drain(f.t)
  })
})

describe('GET /corpora/{id}/documents/{document_id}/raw', () => {
  test('answers the bytes as uploaded, as a download that cannot run in the browser', async () => {
    const d = docs['sample.pdf']!
    for (const path of mounts(`/corpora/${f.base}/documents/${d.id}/raw`)) {
      const res = await f.t.request(path, { headers: bearer(f.token) })
      expect(res.status).toBe(200)
      const bytes = new Uint8Array(await res.arrayBuffer())
      expect(sha256(bytes)).toBe(sha256(docBytes(SAMPLE)))
      expect(res.headers.get('content-type')).toBe('application/pdf')
      expect(res.headers.get('content-length')).toBe(String(bytes.length))
      expect(res.headers.get('content-disposition')).toBe(
        `attachment; filename="sample.pdf"; filename*=UTF-8''sample.pdf`,
      )
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('content-security-policy')).toStartWith('sandbox;')
      expect(res.headers.get('cache-control')).toBe('no-store')
    }
  })

  test('an HTML file with a script is sandboxed; its name loses its direction control in both forms', async () => {
    const d = docs[HTML_NAME]!
    const res = await f.t.request(`/v1/corpora/${f.base}/documents/${d.id}/raw`, { headers: bearer(f.token) })
    expect(res.status).toBe(200)
    expect(await res.text()).toBe(HTML)
    expect(res.headers.get('content-type')).toStartWith('text/html')
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="cafe fdp.html"; filename*=UTF-8''caf%C3%A9%20fdp.html`,
    )
    const csp = res.headers.get('content-security-policy')!
    expect(csp.split(';').map((d) => d.trim())).toContain('sandbox')
    expect(csp).toContain("default-src 'none'")
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
  })

  test('each download writes document.downloaded to the audit log; reading the text does not', async () => {
    const d = docs['sample.pdf']!
    const before = (await auditRows(f.t, 'document.downloaded')).length
    await textOf(d.id)
    expect(await auditRows(f.t, 'document.downloaded')).toHaveLength(before)
    const key = await mintKey(f.t, f.token, ['query'])
    const res = await f.t.request(`/v1/corpora/${f.base}/documents/${d.id}/raw`, { headers: bearer(key.key) })
    expect(res.status).toBe(200)
    await res.arrayBuffer()
    const rows = await auditRows(f.t, 'document.downloaded')
    expect(rows).toHaveLength(before + 1)
    expect(rows.at(-1)).toMatchObject({ actor_type: 'api_key', actor_id: key.id, target_id: d.id })
    expect(JSON.parse(rows.at(-1)!.details)).toEqual({
      corpus_id: f.base,
      filename: 'sample.pdf',
      size: d.size,
    })
  })
})

describe('who may read a document', () => {
  const routes = () => {
    const d = docs['sample.pdf']!
    return [`/v1/corpora/${f.base}/documents/${d.id}/text`, `/v1/corpora/${f.base}/documents/${d.id}/raw`]
  }

  test('no credential is a 401; a key without the query scope a 403 naming it; a query key reads', async () => {
    for (const path of routes()) {
      await expectError(await f.t.request(path), path, 401, 'unauthorized')
      await expectError(
        await f.t.request(path, { headers: bearer(f.ingestKey) }),
        path,
        403,
        'missing_scope',
        'API key missing required scope: query',
      )
      const ok = await f.t.request(path, { headers: bearer(f.queryKey) })
      expect(ok.status).toBe(200)
      await ok.arrayBuffer()
    }
  })

  test("another workspace's document, base or an unknown id is a 404; nothing is audited", async () => {
    const other = await signUp(f.t)
    const before = (await auditRows(f.t, 'document.downloaded')).length
    for (const path of routes()) {
      await expectError(await f.t.request(path, { headers: bearer(other.token) }), path, 404, 'not_found')
    }
    const theirs = await createBase(f.t, other.token, 'Theirs')
    const d = docs['sample.pdf']!
    for (const path of [
      `/v1/corpora/${theirs}/documents/${d.id}/raw`,
      `/v1/corpora/${f.base}/documents/doc_nope/raw`,
      `/v1/corpora/${f.base}/documents/doc_nope/text`,
    ]) {
      const token = path.includes(theirs) ? other.token : f.token
      await expectError(await f.t.request(path, { headers: bearer(token) }), path, 404, 'not_found')
    }
    expect(await auditRows(f.t, 'document.downloaded')).toHaveLength(before)
  })
})

describe('sources of an answer over a PDF', () => {
  test('cite the page and the offsets of a clean passage: no page numbers, no broken lines', async () => {
    const base = await createBase(f.t, f.token, 'Booklet')
    const res = await upload(f.t, f.token, base, [docPart(BOOKLET, 'booklet.pdf')])
    const [doc] = (await res.json()) as Doc[]
    await drain(f.t)
    await train(f.t, f.token, base)
    const asked = await f.t.request(`/v1/corpora/${base}/chat`, {
      method: 'POST',
      headers: bearer(f.token),
      json: { question: 'How many women are diagnosed with breast cancer each year?', k: 5, strategy: 'rag' },
    })
    expect(asked.status).toBe(200)
    const answer = (await asked.json()) as {
      sources: {
        id: string
        document_id: string
        snippet: string
        page: number | null
        section_title: string | null
        start: number | null
        end: number | null
      }[]
    }
    const text = await textOf(doc!.id, '', f.token, base)
    expect(answer.sources.length).toBeGreaterThan(0)
    for (const s of answer.sources) {
      expect(s.document_id).toBe(doc!.id)
      // The offsets point at the passage in the text route's text, and the page holds its start.
      expect(text.text.slice(s.start!, s.end!)).toBe(s.snippet)
      const page = text.pages!.find((p) => p.number === s.page)!
      expect(page.start).toBeLessThanOrEqual(s.start!)
      expect(s.start!).toBeLessThan(page.end)
      // Clean: a printed line's break inside a sentence, a page number or a running footer is not in it.
      expect(s.snippet).not.toMatch(/[a-z,]\n[a-z]/)
      expect(s.snippet).not.toMatch(/^\d{1,3}$/m)
      expect(s.snippet).not.toMatch(/\d+ Cancer Council$/m)
    }
    const cited = answer.sources.find((s) =>
      s.snippet.includes('About 15,000 women are diagnosed with breast cancer each year'),
    )!
    expect(cited.page).toBe(10)
    expect(cited.section_title).not.toBeNull()
    // The cart strategy places its sources the same way.
    const cart = await f.t.request(`/v1/corpora/${base}/chat`, {
      method: 'POST',
      headers: bearer(f.token),
      json: {
        question: 'How many women are diagnosed with breast cancer each year?',
        k: 5,
        strategy: 'cart',
      },
    })
    const cartSources = ((await cart.json()) as typeof answer).sources
    const same = cartSources.find((s) => s.id === cited.id)!
    expect(same).toMatchObject({ page: cited.page, start: cited.start, end: cited.end })
  })
})
