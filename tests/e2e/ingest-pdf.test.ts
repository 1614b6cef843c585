import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { binaryForFile, signUpOn } from '../helpers/binary'
import { FIXTURE_DOCS } from '../helpers/fixture-data'

// PDF extraction in the compiled executable: the reader runs in a child process, the executable
// started as `engram __extract-child` (extract.sandbox.ts), with its memory capped. The server is
// run from an empty directory, so the child can only come from the binary; the server must keep
// answering requests while a large PDF is read, and must not fall back to reading in process.
const DOCS = resolve(FIXTURE_DOCS, 'pdf')
const MANUAL = 'Unstructured-IO_unstructured__DA-619p.pdf'
const ENCRYPTED = 'Unstructured-IO_unstructured__password.pdf'

const binary = binaryForFile('engram-pdf-')

interface Doc {
  id: string
  filename: string
  status: string
  error: string | null
  section_count: number
  parent_id: string | null
  title: string | null
}

test('the executable extracts an uploaded PDF in its capped child process and keeps answering meanwhile', async () => {
  const api = (path: string, init: RequestInit = {}) => fetch(`${binary().url}${path}`, init)
  const auth = await signUpOn(binary().url, 'pdf@example.com', 'PDF')
  const base = await api('/v1/corpora', {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Manuals' }),
  })
  const corpusId = ((await base.json()) as { id: string }).id

  const form = new FormData()
  for (const name of [MANUAL, ENCRYPTED]) {
    form.append('files', new Blob([readFileSync(join(DOCS, name))], { type: 'application/pdf' }), name)
  }
  const up = await api(`/v1/corpora/${corpusId}/documents`, { method: 'POST', headers: auth, body: form })
  expect(up.status).toBe(200)
  const uploaded = performance.now()
  const runId = up.headers.get('x-sync-run-id')

  // Poll the sync run until both extractions settled; every poll is also a probe of how long the
  // server takes to answer while the 619-page manual is being read.
  let slowest = 0
  let run: { status: string; failed: number } = { status: 'running', failed: 0 }
  for (let i = 0; run.status === 'running'; i++) {
    if (i > 20_000) throw new Error('the sync run never finished')
    const asked = performance.now()
    const res = await api(`/v1/corpora/${corpusId}/sync-runs/${runId}`, { headers: auth })
    slowest = Math.max(slowest, performance.now() - asked)
    expect(res.status).toBe(200)
    run = (await res.json()) as typeof run
    if (run.status === 'running') await Bun.sleep(5)
  }
  const extraction = performance.now() - uploaded
  console.log(
    `619-page PDF in the binary: extracted within ${extraction.toFixed(0)} ms, slowest poll ${slowest.toFixed(0)} ms`,
  )
  expect(run).toMatchObject({ status: 'partial', failed: 1 })
  // Read on the server's main thread, pdf.js would hold every request for most of the extraction.
  expect(slowest).toBeLessThan(extraction / 4)

  const list = await api(`/corpora/${corpusId}/documents?sections=true`, { headers: auth })
  const docs = (await list.json()) as Doc[]
  const manual = docs.find((d) => d.filename === MANUAL && d.parent_id === null)!
  expect(manual.error).toBeNull()
  expect(manual.section_count).toBeGreaterThan(60)
  const sections = docs.filter((d) => d.parent_id === manual.id)
  expect(sections).toHaveLength(manual.section_count)
  expect(sections.map((d) => d.title)).toContain('Codex DAO')
  expect(
    binary().lines.filter((l) => String(l.msg).startsWith('extraction child processes cannot start')),
  ).toEqual([])
  expect(docs.find((d) => d.filename === ENCRYPTED)).toMatchObject({
    status: 'failed',
    error: 'The PDF is password-protected. Remove the password and upload it again.',
  })
}, 180_000)
