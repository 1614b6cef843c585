import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { bearer, expectError, mintKey, mounts, signUp } from './accounts.fixture'
import {
  countRows,
  createBase,
  type Doc,
  drain,
  footprint,
  ingestSetup,
  multipart,
  multipartType,
  objectKeys,
  sha256,
  streamed,
  upload,
} from './ingest.fixture'

const JPG = new Uint8Array(readFileSync(resolve(import.meta.dir, '../unit/extract/fixtures/example.jpg')))
/** The start of a Windows executable: "MZ", then the PE header it points to. */
function exe(): Uint8Array {
  const b = new Uint8Array(1024)
  b.set([0x4d, 0x5a])
  new DataView(b.buffer).setUint32(0x3c, 0x80, true)
  b.set([0x50, 0x45, 0, 0], 0x80)
  return b
}

let f: Awaited<ReturnType<typeof ingestSetup>>
beforeAll(async () => {
  f = await ingestSetup()
})
afterAll(() => f.t.close())

describe('POST /corpora/{id}/documents', () => {
  for (const prefix of ['/v1', '']) {
    test(`${prefix || 'frozen'}: stores several files of one request and answers their documents in order`, async () => {
      const { t, token } = f
      const base = await createBase(t, token)
      const files = [
        { filename: 'notes.txt', content: 'Quarterly notes: revenue grew.' },
        { filename: 'guide.md', content: '# Guide\n\nInstall it, then run it.' },
        { filename: 'table.csv', content: 'name,age\nAda,36\nAlan,41\n' },
      ]
      const res = await upload(t, token, base, files, prefix)
      expect(res.status).toBe(200)
      const docs = (await res.json()) as Doc[]
      expect(docs.map((d) => d.filename)).toEqual(['notes.txt', 'guide.md', 'table.csv'])
      expect(docs.map((d) => d.content_type)).toEqual(['text/plain', 'text/markdown', 'text/csv'])
      for (const [i, d] of docs.entries()) {
        const content = files[i]!.content
        expect(d).toMatchObject({
          corpus_id: base,
          size: Buffer.byteLength(content),
          sha256: sha256(content),
          status: 'pending',
          error: null,
          section_count: 1,
          parent_id: null,
          source: 'upload',
        })
        expect(d.id).toMatch(/^doc_/)
      }
      expect(res.headers.get('x-sync-run-id')).toMatch(/^run_/)
      expect(await countRows(t, 'documents', 'corpus_id = ?', base)).toBe(3)
      const keys = await objectKeys(t, `${f.admin.workspaceId}/corpora/${base}/`)
      const rows = await t.sql.all<{ raw_key: string; text_key: string | null }>(
        'SELECT raw_key, text_key FROM documents WHERE corpus_id = ?',
        base,
      )
      for (const r of rows) expect(r.raw_key).toMatch(/\/blobs\/blob_[A-Za-z0-9]+$/)
      // Each file was read as it came: its text is the file itself or a sidecar next to it.
      for (const r of rows) expect([r.raw_key, `${r.raw_key}.txt`]).toContain(r.text_key!)
      expect(keys.toSorted()).toEqual([...new Set(rows.flatMap((r) => [r.raw_key, r.text_key!]))].sort())
      // The bytes stored are the bytes sent.
      const stored = await t.deps.objects.getText(
        (await t.sql.get<{ raw_key: string }>('SELECT raw_key FROM documents WHERE id = ?', docs[0]!.id))!
          .raw_key,
      )
      expect(stored).toBe(files[0]!.content)
    })
  }

  test('counts the upload as a sync run, which leaves the base last_synced_at (no sync has run)', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const before = await (await t.request(`/v1/corpora/${base}`, { headers: bearer(token) })).json()
    expect(before.last_synced_at).toBeNull()
    // HTML is read by an extraction job: the run waits for it.
    const res = await upload(t, token, base, [{ filename: 'a.html', content: '<p>alpha beta gamma</p>' }])
    const runId = res.headers.get('x-sync-run-id')!
    const after = await (await t.request(`/v1/corpora/${base}`, { headers: bearer(token) })).json()
    // "Last synced" beside "no syncs or imports yet" was wrong: only a source's sync or an import moves it.
    expect(after.last_synced_at).toBeNull()
    const runOf = async (id: string) =>
      (await t.request(`/v1/corpora/${base}/sync-runs/${id}`, { headers: bearer(token) })).json()
    const run = await runOf(runId)
    expect(run).toMatchObject({ source: 'upload', status: 'running', created: 1, updated: 0, pending: 1 })
    await drain(t)
    expect(await runOf(runId)).toMatchObject({ status: 'succeeded', pending: 0, failed: 0, errors: [] })
    // A small plain file is read as it is uploaded: its run has ended when the upload answers.
    const plain = await upload(t, token, base, [{ filename: 'b.txt', content: 'alpha beta gamma\n' }])
    expect(await runOf(plain.headers.get('x-sync-run-id')!)).toMatchObject({
      status: 'succeeded',
      created: 1,
      pending: 0,
      failed: 0,
    })
  })

  test('keeps folder paths, reading backslashes as slashes, dropping empty and dot segments, in NFC', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const res = await upload(t, token, base, [
      { filename: 'reports\\2024\\q1.txt', content: 'one' },
      { filename: './notes//today.md', content: 'two' },
      { filename: 'cafe\u0301.txt', content: 'three' },
    ])
    expect(res.status).toBe(200)
    const docs = (await res.json()) as Doc[]
    expect(docs.map((d) => d.filename)).toEqual(['reports/2024/q1.txt', 'notes/today.md', 'caf\u00e9.txt'])
  })

  for (const [name, bad] of [
    ['a parent segment', '../../etc/passwd'],
    ['a parent segment inside', 'docs/../../secret.txt'],
    ['an absolute path', '/etc/passwd'],
    ['a drive letter', 'C:\\Windows\\win.ini'],
    ['a control character', 'bad\u0007name.txt'],
  ] as const) {
    test(`refuses ${name} with 422 invalid_path on both mounts and keeps nothing`, async () => {
      const { t, token } = f
      const base = await createBase(t, token)
      const before = await footprint(t)
      for (const path of mounts(`/corpora/${base}/documents`)) {
        const res = await t.request(path, {
          ...multipart([
            { filename: 'fine.txt', content: 'a fine file' },
            { filename: bad, content: 'what the path points at', encoded: true },
          ]),
          headers: { ...bearer(token), 'content-type': multipartType() },
        })
        const msg = await expectError(res, path, 422, 'invalid_path')
        expect(msg).toContain(JSON.stringify(bad).slice(1, 12))
      }
      expect(await footprint(t)).toEqual(before)
    })
  }

  test('refuses a path given twice in one request', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const before = await footprint(t)
    const res = await upload(t, token, base, [
      { filename: 'same.txt', content: 'first' },
      { filename: 'same.txt', content: 'second' },
    ])
    await expectError(
      res,
      '/v1',
      422,
      'invalid_path',
      'The path "same.txt" appears more than once in the request.',
    )
    expect(await footprint(t)).toEqual(before)
  })

  for (const [name, filename, content, type] of [
    ['an executable', 'setup.exe', exe(), 'Windows executable (application/x-msdownload)'],
    ['an image', 'photo.jpg', JPG, 'JPG image (image/jpeg)'],
  ] as const) {
    test(`refuses ${name} with 415 naming its type and keeps none of the request`, async () => {
      const { t, token } = f
      const base = await createBase(t, token)
      const before = await footprint(t)
      for (const path of mounts(`/corpora/${base}/documents`)) {
        const res = await t.request(path, {
          ...multipart([
            { filename: 'ok.txt', content: 'an acceptable text file' },
            { filename, content },
          ]),
          headers: { ...bearer(token), 'content-type': multipartType() },
        })
        const message = `Unsupported file type: ${type}. Supported types: PDF, Word (.docx), PowerPoint (.pptx), Excel (.xlsx), HTML, Markdown, CSV/TSV, JSON and plain text.`
        if (path.startsWith('/v1')) {
          expect(res.status).toBe(415)
          const body = (await res.json()) as { error: Record<string, unknown> }
          expect(body.error).toMatchObject({
            code: 'unsupported_media_type',
            status: 415,
            message,
            details: { filename, type },
          })
        } else await expectError(res, path, 415, 'unsupported_media_type', message)
      }
      expect(await footprint(t)).toEqual(before)
    })
  }

  test('answers 415 for a body that is not multipart, 422 for one without files, 400 for a broken one', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const before = await footprint(t)
    const path = `/v1/corpora/${base}/documents`
    const json = await t.request(path, { method: 'POST', headers: bearer(token), json: { files: [] } })
    await expectError(
      json,
      path,
      415,
      'unsupported_media_type',
      'Expected multipart/form-data with one "files" part per file, got application/json.',
    )
    const empty = await t.request(path, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': multipartType() },
      body: '--engram-test-boundary-7MA4YWxkTrZu0gW--\r\n',
    })
    await expectError(
      empty,
      path,
      422,
      'validation_error',
      'No files in the request: send each file as a "files" part.',
    )
    const whole = multipart([{ filename: 'cut.txt', content: 'x'.repeat(5000) }]).body as Uint8Array
    const cut = await t.request(path, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': multipartType() },
      body: whole.slice(0, 3000),
    })
    await expectError(cut, path, 400, 'bad_request')
    expect(await footprint(t)).toEqual(before)
  })

  test('needs a credential, the ingest scope, and a base of the caller workspace', async () => {
    const { t, token, queryKey, ingestKey } = f
    const base = await createBase(t, token)
    const parts = [{ filename: 'a.txt', content: 'hello there' }]
    const init = (h: Record<string, string>) => ({
      ...multipart(parts),
      headers: { ...h, 'content-type': multipartType() },
    })
    for (const path of mounts(`/corpora/${base}/documents`)) {
      await expectError(await t.request(path, init({})), path, 401, 'unauthorized')
      await expectError(
        await t.request(path, init(bearer(queryKey))),
        path,
        403,
        'missing_scope',
        'API key missing required scope: ingest',
      )
    }
    const other = await signUp(t, { workspace_name: 'Other' })
    const otherKey = (await mintKey(t, other.token, ['ingest'])).key
    for (const path of mounts(`/corpora/${base}/documents`)) {
      await expectError(await t.request(path, init(bearer(otherKey))), path, 404, 'not_found')
    }
    await expectError(
      await t.request('/v1/corpora/cor_missing/documents', init(bearer(ingestKey))),
      '/v1',
      404,
      'not_found',
    )
    expect(await countRows(t, 'documents', 'corpus_id = ?', base)).toBe(0)
    const ok = await t.request(`/v1/corpora/${base}/documents`, init(bearer(ingestKey)))
    expect(ok.status).toBe(200)
  })
})

describe('replacing and sharing content', () => {
  test('a re-uploaded path keeps its id, takes the new content and loses the old objects', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    // CRLF line ends, which extraction changes: each version's text is a sidecar.
    const first = (
      (await (
        await upload(t, token, base, [{ filename: 'plan.txt', content: 'version one\r\n' }])
      ).json()) as Doc[]
    )[0]!
    await drain(t)
    const prefix = `${f.admin.workspaceId}/corpora/${base}/`
    const oldKeys = await objectKeys(t, prefix)
    expect(oldKeys).toHaveLength(2) // raw object and its text sidecar (read as it was uploaded)
    expect(oldKeys[1]).toBe(`${oldKeys[0]}.txt`)
    expect(first.id).toMatch(/^doc_/)

    const res = await upload(t, token, base, [{ filename: 'plan.txt', content: 'version two, longer\r\n' }])
    const second = ((await res.json()) as Doc[])[0]!
    expect(second.id).toBe(first.id)
    expect(second.sha256).toBe(sha256('version two, longer\r\n'))
    expect(second.status).toBe('pending')
    expect(await countRows(t, 'documents', 'corpus_id = ?', base)).toBe(1)
    const newKeys = await objectKeys(t, prefix)
    expect(newKeys).toHaveLength(2) // read as it was uploaded too
    for (const k of newKeys) expect(oldKeys).not.toContain(k)
    const run = await (
      await t.request(`/v1/corpora/${base}/sync-runs/${res.headers.get('x-sync-run-id')}`, {
        headers: bearer(token),
      })
    ).json()
    expect(run).toMatchObject({ created: 0, updated: 1, unchanged: 0 })
    await drain(t)
    const sidecar = (await objectKeys(t, prefix)).find((k) => k.endsWith('.txt'))!
    expect(await t.deps.objects.getText(sidecar)).toBe('version two, longer')
  })

  test('the same content uploaded again is unchanged and nothing new is stored', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const first = (
      (await (await upload(t, token, base, [{ filename: 'same.txt', content: 'steady' }])).json()) as Doc[]
    )[0]!
    await drain(t)
    const before = await footprint(t)
    const res = await upload(t, token, base, [{ filename: 'same.txt', content: 'steady' }])
    expect(((await res.json()) as Doc[])[0]!.id).toBe(first.id)
    const after = await footprint(t)
    expect(after.objects).toEqual(before.objects)
    expect(after.jobs).toBe(before.jobs)
    const run = await (
      await t.request(`/v1/corpora/${base}/sync-runs/${res.headers.get('x-sync-run-id')}`, {
        headers: bearer(token),
      })
    ).json()
    expect(run).toMatchObject({ status: 'succeeded', created: 0, updated: 0, unchanged: 1, pending: 0 })
  })

  test('identical files at two paths share one stored object, kept until neither uses it', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const docs = (await (
      await upload(t, token, base, [
        // CRLF line ends, which extraction changes: each document's text is a sidecar.
        { filename: 'a/copy.txt', content: 'duplicated content\r\n' },
        { filename: 'b/copy.txt', content: 'duplicated content\r\n' },
      ])
    ).json()) as Doc[]
    const prefix = `${f.admin.workspaceId}/corpora/${base}/`
    expect((await objectKeys(t, prefix)).filter((k) => !k.endsWith('.txt'))).toHaveLength(1)
    await drain(t)
    const del = (id: string) =>
      t.request(`/v1/corpora/${base}/documents/${id}`, { method: 'DELETE', headers: bearer(token) })
    expect((await del(docs[0]!.id)).status).toBe(204)
    const left = await objectKeys(t, prefix)
    expect(left).toHaveLength(2) // the shared raw object and the other document's sidecar
    const kept = await t.sql.get<{ raw_key: string; text_key: string }>(
      'SELECT raw_key, text_key FROM documents WHERE id = ?',
      docs[1]!.id,
    )
    expect(left.toSorted()).toEqual([kept!.raw_key, kept!.text_key].sort())
    expect((await del(docs[1]!.id)).status).toBe(204)
    expect(await objectKeys(t, prefix)).toEqual([])
  })
})

describe('size limits', () => {
  let s: Awaited<ReturnType<typeof ingestSetup>>
  beforeAll(async () => {
    s = await ingestSetup({
      env: { ENGRAM_INGEST_MAX_FILE_BYTES: '4096', ENGRAM_INGEST_MAX_REQUEST_BYTES: '7000' },
    })
  })
  afterAll(() => s.t.close())

  for (const how of ['declared', 'streamed'] as const) {
    test(`a file over the per-file limit is a 413 and nothing is kept (${how} length)`, async () => {
      const { t, token, base } = s
      const before = await footprint(t)
      for (const path of mounts(`/corpora/${base}/documents`)) {
        const init = multipart([
          { filename: 'small.txt', content: 'fits easily' },
          { filename: 'big.txt', content: 'b'.repeat(4097) },
        ])
        const res = await t.request(path, {
          ...(how === 'streamed' ? streamed(init) : init),
          headers: { ...bearer(token), 'content-type': multipartType() },
        })
        const message = 'The file "big.txt" exceeds the limit of 4096 bytes per file.'
        if (path.startsWith('/v1')) {
          const body = (await res.json()) as { error: Record<string, unknown> }
          expect(res.status).toBe(413)
          expect(body.error).toMatchObject({
            code: 'payload_too_large',
            message,
            details: { limit: 4096, filename: 'big.txt' },
          })
        } else await expectError(res, path, 413, 'payload_too_large', message)
      }
      expect(await footprint(t)).toEqual(before)
    })

    test(`a request over the per-request limit is a 413 and nothing is kept (${how} length)`, async () => {
      const { t, token, base } = s
      const before = await footprint(t)
      const init = multipart([
        { filename: 'one.txt', content: '1'.repeat(3500) },
        { filename: 'two.txt', content: '2'.repeat(3500) },
      ])
      const headers: Record<string, string> = { ...bearer(token), 'content-type': multipartType() }
      if (how === 'declared') headers['content-length'] = String((init.body as Uint8Array).byteLength)
      for (const path of mounts(`/corpora/${base}/documents`)) {
        const res = await t.request(path, { ...(how === 'streamed' ? streamed(init) : init), headers })
        await expectError(
          res,
          path,
          413,
          'payload_too_large',
          'The request exceeds the limit of 7000 bytes per upload request.',
        )
      }
      expect(await footprint(t)).toEqual(before)
    })
  }

  test('files within both limits are taken', async () => {
    const { t, token, base } = s
    const res = await upload(t, token, base, [{ filename: 'ok.txt', content: 'o'.repeat(4096) }])
    expect(res.status).toBe(200)
    expect(await countRows(t, 'documents', 'corpus_id = ?', base)).toBe(1)
  })
})
