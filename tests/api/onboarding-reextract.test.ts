import { afterEach, describe, expect, test } from 'bun:test'
import type { TestApp } from '../helpers/app'
import { upload } from '../helpers/ready-base'
import { authApp, bearer, expectError, rows, signUp } from './accounts.fixture'

// Documents extracted before the current extractor (PDFs before pages were kept, recorded as
// documents.extractor_version) are extracted again by a `force` run, which then onboards the new
// text: the PDF gets its pages back. The scheduler and the dispatcher are stepped by hand.

let t: TestApp
afterEach(() => t.close())

const PDF = 'tests/fixtures/data/docs/pdf/Unstructured-IO_unstructured__layout-parser-paper-fast.pdf'

// biome-ignore lint/suspicious/noExplicitAny: the bodies of several routes, read field by field
const get = async (token: string, path: string): Promise<any> =>
  (await t.request(path, { headers: bearer(token) })).json()

/** Runs due jobs and delivers the events they emitted, the clock moved past any retry's backoff. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await t.jobs.scheduler.drain()
    await t.events.dispatcher.drain()
    t.clock.advance(5 * 60_000)
    if ((await rows(t, 'jobs', "status IN ('pending', 'running')")) === 0) return
  }
}

const extractions = () => rows(t, 'jobs', "kind = 'ingest.extract'")
const version = async (id: string) =>
  (await t.sql.get<{ v: number | null; pages: string | null }>(
    'SELECT extractor_version AS v, page_ranges AS pages FROM documents WHERE id = ?',
    id,
  ))!

describe('extraction again', () => {
  test('a force run extracts again the documents an older extractor read, and a PDF gets its pages back', async () => {
    t = authApp()
    const admin = await signUp(t)
    const base = await (
      await t.request('/v1/corpora', {
        method: 'POST',
        headers: bearer(admin.token),
        json: { name: 'Papers' },
      })
    ).json()
    const form = new FormData()
    form.append(
      'files',
      new File([await Bun.file(PDF).arrayBuffer()], 'paper.pdf', { type: 'application/pdf' }),
    )
    const res = await t.request(`/v1/corpora/${base.id}/documents`, {
      method: 'POST',
      headers: bearer(admin.token),
      body: form,
    })
    const [pdf] = (await res.json()) as { id: string }[]
    const [note] = await upload(t, admin.token, base.id, [{ path: 'note.txt', text: 'A short note.' }])
    await settle()
    expect(await version(pdf!.id)).toMatchObject({ v: 1 })
    expect((await version(pdf!.id)).pages).not.toBeNull()
    await t.request(`/v1/corpora/${base.id}/train`, { method: 'POST', headers: bearer(admin.token) })
    await settle()
    const text = `/v1/corpora/${base.id}/documents/${pdf!.id}/text?limit=10`
    const pages = (await get(admin.token, text)).pages as unknown[]
    expect(pages.length).toBeGreaterThan(1)
    const sections = await rows(t, 'documents', `parent_id = '${pdf!.id}'`)

    // As a PDF extracted before pages were kept (and before versions were recorded) looks.
    await t.sql.run('UPDATE documents SET page_ranges = NULL, extractor_version = NULL WHERE id = ?', pdf!.id)
    expect((await get(admin.token, text)).pages).toBeNull()
    // A run that is not forced extracts nothing again: nothing is new.
    await expectError(
      await t.request(`/v1/corpora/${base.id}/train`, { method: 'POST', headers: bearer(admin.token) }),
      '/v1',
      409,
      'nothing_to_train',
    )
    const before = await extractions()
    const run = await (
      await t.request(`/v1/corpora/${base.id}/train?force=true`, {
        method: 'POST',
        headers: bearer(admin.token),
      })
    ).json()
    // The PDF is put back as its upload left it; the note, read by the current extractor, is not.
    expect(await extractions()).toBe(before + 1)
    expect(await rows(t, 'documents', `parent_id = '${pdf!.id}'`)).toBe(0)
    await settle()
    expect(await get(admin.token, `/v1/jobs/${run.id}`)).toMatchObject({ status: 'succeeded' })
    expect((await version(pdf!.id)).v).toBe(1)
    expect((await get(admin.token, text)).pages).toEqual(pages)
    expect(await rows(t, 'documents', `parent_id = '${pdf!.id}'`)).toBe(sections)
    expect(await get(admin.token, `/v1/corpora/${base.id}`)).toMatchObject({
      status: 'ready',
      documents_ready: 2,
      documents_pending: 0,
    })
    expect((await version(note!.id)).v).toBe(1)
    // Nothing is extracted again by the next force run: every document is current.
    await t.request(`/v1/corpora/${base.id}/train?force=true`, {
      method: 'POST',
      headers: bearer(admin.token),
    })
    await settle()
    expect(await extractions()).toBe(before + 1)
  }, 60_000)
})
