// Memory bombs and damaged files through the ingest pipeline (issue 18, items 2 and 5): each
// fails its own document with a message for a person, the run counts it, the library's words go
// to the log, and the other files of the upload are read as usual.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { overBudgetMessage } from '../../src/features/ingest/extract/extract'
import { docxBomb, loopingPdf, xlsxBomb } from '../helpers/bombs'
import { bearer } from './accounts.fixture'
import { createBase, type Doc, drain, ingestSetup, listDocs, upload } from './ingest.fixture'

const MB = 1024 * 1024

let f: Awaited<ReturnType<typeof ingestSetup>>
beforeAll(async () => {
  f = await ingestSetup({ env: { ENGRAM_EXTRACT_MEMORY_MB: '192' } })
})
afterAll(() => f.t.close())

describe('extraction within the memory budget', () => {
  test('bombs and a looping PDF fail their own documents with worded reasons; the note beside them is read', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const res = await upload(t, token, base, [
      { filename: 'strings.xlsx', content: xlsxBomb(150 * MB) },
      { filename: 'expands.docx', content: docxBomb(400 * MB) },
      { filename: 'loop.pdf', content: loopingPdf() },
      { filename: 'note.txt', content: 'A note that reads normally.' },
    ])
    expect(res.status).toBe(200)
    const docs = (await res.json()) as Doc[]
    await drain(t)
    const byId = new Map((await listDocs(t, token, base)).map((d) => [d.id, d]))
    const [xlsx, docx, pdf, note] = docs.map((d) => byId.get(d.id)!)
    expect(xlsx).toMatchObject({ status: 'failed', error: overBudgetMessage(192) })
    expect(docx!.status).toBe('failed')
    expect(docx!.error).toMatch(
      /^The file expands to \d+ MB when unpacked, more than the 192 MB that text extraction may use for one file \(setting ingest\.extract_memory_mb\)\./,
    )
    expect(pdf).toMatchObject({
      status: 'failed',
      error:
        'The PDF cannot be read: its list of pages is damaged (it loops back on itself or points to pages that are missing). Open it in a PDF viewer, save or print it to a new PDF and upload that.',
    })
    expect(note).toMatchObject({ status: 'pending', error: null })
    const run = await (
      await t.request(`/v1/corpora/${base}/sync-runs/${res.headers.get('x-sync-run-id')}`, {
        headers: bearer(token),
      })
    ).json()
    expect(run).toMatchObject({ status: 'partial', created: 4, failed: 3, pending: 0 })
    // The operator's log keeps what pdf.js said; the user saw the sentence above.
    const logged = t.log.lines.find(
      (l) => l.msg === 'document extraction failed' && l.document_id === pdf!.id,
    )
    expect(logged).toMatchObject({ code: 'corrupt_file' })
    expect(String(logged?.cause)).toContain('circular reference')
  }, 120_000)
})
