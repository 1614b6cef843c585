// An upload of many files is extracted by one job a batch (not one a file), with the same results.
import { afterAll, beforeAll, describe, expect, spyOn, test } from 'bun:test'
import { ExtractSandbox } from '../../src/features/ingest/extract/extract.sandbox'
import { bearer } from './accounts.fixture'
import { createBase, type Doc, drain, ingestSetup, type Part, upload } from './ingest.fixture'

let f: Awaited<ReturnType<typeof ingestSetup>>
// Uploads read small plain files as they come; here none is, so every file goes to the batch jobs
// (which read them as they read a source's or a push's files).
let readAtUpload: ReturnType<typeof spyOn>
beforeAll(async () => {
  f = await ingestSetup()
  readAtUpload = spyOn(ExtractSandbox.prototype, 'extractHere').mockResolvedValue(null)
})
afterAll(() => {
  readAtUpload.mockRestore()
  f.t.close()
})

interface Run {
  status: string
  created: number
  failed: number
  pending: number
  errors: { path: string; error: string }[]
}

const notes = (n: number): Part[] =>
  Array.from({ length: n }, (_, i) => ({
    filename: `notes/n${i}.txt`,
    content: `Note ${i} says the river is ${i} km long.`,
  }))
// Rows read through t.sql, so the file runs on the app's PostgreSQL store too (ENGRAM_TEST_DATABASE).
// The test clock stands still, so jobs are told apart by their base (in their payload), not by time.
const extractionJobs = async (ws: string, base?: string) =>
  (
    await f.t.sql.all<{ payload: string; status: string }>(
      "SELECT payload, status FROM jobs WHERE workspace_id = ? AND kind = 'ingest.extract' ORDER BY created_at, id",
      ws,
    )
  ).filter((j) => base === undefined || (JSON.parse(j.payload) as { corpus_id: string }).corpus_id === base)
const sizesOf = (jobs: { payload: string }[]) =>
  jobs.map((j) => (JSON.parse(j.payload) as { documents: unknown[] }).documents.length).sort((a, b) => b - a)
const row = async (id: string) =>
  (await f.t.sql.get<{ text_key: string | null; status: string; error: string | null }>(
    'SELECT text_key, status, error FROM documents WHERE id = ?',
    id,
  ))!
const runOf = async (base: string, id: string) =>
  (await (
    await f.t.request(`/v1/corpora/${base}/sync-runs/${id}`, { headers: bearer(f.token) })
  ).json()) as Run

describe('extraction of an upload of many files', () => {
  test('70 files make two jobs (64 and 6); every text is read, an unreadable file fails alone, the run counts all', async () => {
    const { t, token, admin } = f
    const base = await createBase(t, token, 'Many')
    const parts = [...notes(69), { filename: 'blank.txt', content: '   \n\n   ' }]
    const res = await upload(t, token, base, parts)
    expect(res.status).toBe(200)
    const runId = res.headers.get('x-sync-run-id')!
    const docs = (await res.json()) as Doc[]
    const jobs = await extractionJobs(admin.workspaceId)
    expect(sizesOf(jobs)).toEqual([64, 6])
    expect(await runOf(base, runId)).toMatchObject({ status: 'running', created: 70, pending: 70 })
    await drain(t)
    expect((await extractionJobs(admin.workspaceId)).map((j) => j.status)).toEqual(['succeeded', 'succeeded'])
    for (const [i, d] of docs.slice(0, 69).entries()) {
      expect((await row(d.id)).text_key).not.toBeNull()
      const res = await t.request(`/v1/corpora/${base}/documents/${d.id}/text`, { headers: bearer(token) })
      expect(((await res.json()) as { text: string }).text).toBe(`Note ${i} says the river is ${i} km long.`)
    }
    const blank = await row(docs[69]!.id)
    expect(blank.status).toBe('failed')
    expect(blank.text_key).toBeNull()
    const run = await runOf(base, runId)
    expect(run).toMatchObject({ status: 'partial', created: 70, failed: 1, pending: 0 })
    expect(run.errors).toEqual([
      { path: 'blank.txt', document_id: docs[69]!.id, error: blank.error! },
    ] as never)
  })

  test('large files make batches of at most 512 KiB: four of 200 KB are two jobs of two', async () => {
    const { t, token, admin } = f
    const base = await createBase(t, token, 'Large')
    const line = 'The river flows north through the valley and past the old mill.\n'
    const big = (i: number): Part => ({ filename: `big${i}.txt`, content: `${i} ${line.repeat(3100)}` })
    const res = await upload(t, token, base, [0, 1, 2, 3].map(big))
    expect(res.status).toBe(200)
    const jobs = await extractionJobs(admin.workspaceId, base)
    expect(sizesOf(jobs)).toEqual([2, 2])
    await drain(t)
    for (const d of (await res.json()) as Doc[]) expect((await row(d.id)).text_key).not.toBeNull()
  })

  test('a document deleted while its batch waits is skipped; the others are read and the run ends', async () => {
    const { t, token } = f
    const base = await createBase(t, token, 'Deleted')
    const res = await upload(t, token, base, notes(3))
    const runId = res.headers.get('x-sync-run-id')!
    const docs = (await res.json()) as Doc[]
    const del = await t.request(`/v1/corpora/${base}/documents/${docs[1]!.id}`, {
      method: 'DELETE',
      headers: bearer(token),
    })
    expect(del.status).toBe(204)
    await drain(t)
    expect((await row(docs[0]!.id)).text_key).not.toBeNull()
    expect((await row(docs[2]!.id)).text_key).not.toBeNull()
    expect(await runOf(base, runId)).toMatchObject({ status: 'succeeded', created: 3, failed: 0, pending: 0 })
  })

  test('a batch reads the queue for a stop every few documents, not twice a document; a cancel mid-batch still ends it', async () => {
    const { t, token, admin } = f
    const base = await createBase(t, token, 'Canceled')
    const res = await upload(t, token, base, notes(64))
    const docs = (await res.json()) as Doc[]
    const [job] = await t.sql.all<{ id: string }>(
      "SELECT id FROM jobs WHERE workspace_id = ? AND kind = 'ingest.extract' AND status = 'pending' AND payload LIKE ?",
      admin.workspaceId,
      `%${docs[0]!.id}%`,
    )
    const { queue } = t.jobs
    // Someone cancels the batch while it extracts its 20th file (that file's reading waits for the
    // cancel to commit: on PostgreSQL a commit is a round trip, during which more files would be read).
    let reads = 0
    const extract = ExtractSandbox.prototype.extract
    const extracting = spyOn(ExtractSandbox.prototype, 'extract').mockImplementation(function (
      this: ExtractSandbox,
      ...args: Parameters<ExtractSandbox['extract']>
    ) {
      if (++reads === 20) return queue.repo.requestCancel(job!.id).then(() => extract.apply(this, args))
      return extract.apply(this, args)
    })
    let checks = 0
    const asked = queue.repo.cancelRequested
    queue.repo.cancelRequested = (id: string) => {
      checks++
      return asked.call(queue.repo, id)
    }
    try {
      await drain(t)
    } finally {
      extracting.mockRestore()
      queue.repo.cancelRequested = asked
    }
    expect((await queue.repo.get(job!.id))?.status).toBe('canceled')
    let extracted = 0
    for (const d of docs) if ((await row(d.id)).text_key !== null) extracted++
    expect(extracted).toBe(0)
    // Two checkpoints a document, read every 16th: the cancel is seen within 8 more documents.
    expect(reads).toBeGreaterThanOrEqual(20)
    expect(reads).toBeLessThanOrEqual(28)
    expect(checks).toBeLessThanOrEqual(8)
  })

  test('one file alone keeps its own job, about its document', async () => {
    const { t, token, admin } = f
    const base = await createBase(t, token, 'Alone')
    const res = await upload(t, token, base, notes(1))
    const [doc] = (await res.json()) as Doc[]
    const jobs = await extractionJobs(admin.workspaceId, base)
    expect(jobs.map((j) => JSON.parse(j.payload).document_id)).toEqual([doc!.id])
    await drain(t)
    expect((await row(doc!.id)).text_key).not.toBeNull()
  })
})
