import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { auditRows, bearer, expectError, mintKey, mounts, signUp } from './accounts.fixture'
import {
  countRows,
  createBase,
  type Doc,
  drain,
  footprint,
  ingestSetup,
  listDocs,
  longMarkdown,
  objectKeys,
  upload,
} from './ingest.fixture'

let f: Awaited<ReturnType<typeof ingestSetup>>
beforeAll(async () => {
  f = await ingestSetup()
})
afterAll(() => f.t.close())

/** Every row anywhere that names one of these ids or the base. */
async function traces(ids: string[], base: string) {
  const marks = ids.map(() => '?').join(',')
  return {
    documents: await countRows(
      f.t,
      'documents',
      `id IN (${marks}) OR parent_id IN (${marks})`,
      ...ids,
      ...ids,
    ),
    jobs: await countRows(f.t, 'jobs', `subject_id IN (${marks})`, ...ids),
    runs: await countRows(f.t, 'sync_runs', 'corpus_id = ?', base),
    uploads: await countRows(f.t, 'ingest_uploads', 'corpus_id = ?', base),
  }
}

describe('DELETE /corpora/{id}/documents/{document_id}', () => {
  for (const prefix of ['/v1', '']) {
    test(`${prefix || 'frozen'}: removes the raw object, the sidecar, the sections, the jobs and the rows`, async () => {
      const { t, token } = f
      const base = await createBase(t, token)
      const docs = (await (
        await upload(t, token, base, [
          // CRLF line ends, which extraction changes: the handbook's text is a sidecar.
          { filename: 'handbook.md', content: longMarkdown(8).replaceAll('\n', '\r\n') },
          // Its text is the file itself: no sidecar.
          { filename: 'keep.txt', content: 'this one stays' },
        ])
      ).json()) as Doc[]
      await drain(t)
      const [big, keep] = docs as [Doc, Doc]
      const sections = (await listDocs(t, token, base, true)).filter((d) => d.parent_id === big.id)
      expect(sections.length).toBeGreaterThan(1)
      const prefixKey = `${f.admin.workspaceId}/corpora/${base}/`
      expect(await objectKeys(t, prefixKey)).toHaveLength(3)
      const bigKeys = (await t.sql.get<{ raw_key: string; text_key: string }>(
        'SELECT raw_key, text_key FROM documents WHERE id = ?',
        big.id,
      ))!
      expect(await objectKeys(t, prefixKey)).toContain(bigKeys.text_key)

      const res = await t.request(`${prefix}/corpora/${base}/documents/${big.id}`, {
        method: 'DELETE',
        headers: bearer(token),
      })
      expect(res.status).toBe(204)
      expect(await res.text()).toBe('')
      const left = await objectKeys(t, prefixKey)
      expect(left).toHaveLength(1) // keep.txt's raw object, which is its text
      expect(left).not.toContain(bigKeys.text_key)
      expect(left).not.toContain(bigKeys.raw_key)
      const ids = [big.id, ...sections.map((s) => s.id)]
      expect(await traces(ids, base)).toMatchObject({ documents: 0, jobs: 0 })
      expect((await listDocs(t, token, base, true)).map((d) => d.id)).toEqual([keep.id])
      const again = await t.request(`/v1/corpora/${base}/documents/${big.id}`, {
        method: 'DELETE',
        headers: bearer(token),
      })
      await expectError(again, '/v1', 404, 'not_found', 'Document not found.')
    })
  }

  test('deleting a section deletes its whole file', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const doc = (
      (await (
        await upload(t, token, base, [{ filename: 'long.md', content: longMarkdown(6) }])
      ).json()) as Doc[]
    )[0]!
    await drain(t)
    const section = (await listDocs(t, token, base, true)).find((d) => d.parent_id === doc.id)!
    const res = await t.request(`/v1/corpora/${base}/documents/${section.id}`, {
      method: 'DELETE',
      headers: bearer(token),
    })
    expect(res.status).toBe(204)
    expect(await countRows(t, 'documents', 'corpus_id = ?', base)).toBe(0)
    expect(await objectKeys(t, `${f.admin.workspaceId}/corpora/${base}/`)).toEqual([])
  })

  test('a document of another base or another workspace is a 404 and nothing is deleted', async () => {
    const { t, token } = f
    const a = await createBase(t, token)
    const b = await createBase(t, token)
    const doc = (
      (await (await upload(t, token, a, [{ filename: 'x.txt', content: 'mine' }])).json()) as Doc[]
    )[0]!
    const other = await signUp(t, { workspace_name: 'Neighbours' })
    const otherBase = await createBase(t, other.token)
    const before = await footprint(t)
    for (const path of mounts(`/corpora/${b}/documents/${doc.id}`)) {
      await expectError(
        await t.request(path, { method: 'DELETE', headers: bearer(token) }),
        path,
        404,
        'not_found',
      )
    }
    for (const path of [
      ...mounts(`/corpora/${a}/documents/${doc.id}`),
      ...mounts(`/corpora/${otherBase}/documents/${doc.id}`),
    ]) {
      await expectError(
        await t.request(path, { method: 'DELETE', headers: bearer(other.token) }),
        path,
        404,
        'not_found',
      )
    }
    expect(await footprint(t)).toEqual(before)
  })

  test('needs a credential and the ingest scope', async () => {
    const { t, token, queryKey, ingestKey } = f
    const base = await createBase(t, token)
    const doc = (
      (await (await upload(t, token, base, [{ filename: 'x.txt', content: 'scoped' }])).json()) as Doc[]
    )[0]!
    for (const path of mounts(`/corpora/${base}/documents/${doc.id}`)) {
      await expectError(await t.request(path, { method: 'DELETE' }), path, 401, 'unauthorized')
      await expectError(
        await t.request(path, { method: 'DELETE', headers: bearer(queryKey) }),
        path,
        403,
        'missing_scope',
        'API key missing required scope: ingest',
      )
    }
    expect(await countRows(t, 'documents', 'corpus_id = ?', base)).toBe(1)
    const ok = await t.request(`/v1/corpora/${base}/documents/${doc.id}`, {
      method: 'DELETE',
      headers: bearer(ingestKey),
    })
    expect(ok.status).toBe(204)
  })
})

describe('DELETE /corpora/{id}', () => {
  test('removes every object, document, section, sync run, upload and job of the base, and only of it', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const neighbour = await createBase(t, token)
    await upload(t, token, neighbour, [{ filename: 'n.txt', content: 'neighbour content' }])
    const docs = (await (
      await upload(t, token, base, [
        { filename: 'long.md', content: longMarkdown(5) },
        { filename: 'pending.txt', content: 'not yet extracted' },
      ])
    ).json()) as Doc[]
    await t.jobs.scheduler.drain()
    await upload(t, token, base, [{ filename: 'late.txt', content: 'still pending' }])
    const raw = `/v1/corpora/${base}/documents/raw?path=w.txt&sha256=${new Bun.CryptoHasher('sha256').update('waiting').digest('hex')}`
    expect((await t.request(raw, { method: 'PUT', headers: bearer(token), body: 'waiting' })).status).toBe(
      200,
    )
    const ids = (await listDocs(t, token, base, true)).map((d) => d.id)
    expect(ids.length).toBeGreaterThan(docs.length)
    const neighbourBefore = await objectKeys(t, `${f.admin.workspaceId}/corpora/${neighbour}/`)

    const res = await t.request(`/corpora/${base}`, { method: 'DELETE', headers: bearer(token) })
    expect(res.status).toBe(204)
    expect(await objectKeys(t, `${f.admin.workspaceId}/corpora/${base}/`)).toEqual([])
    expect(await traces(ids, base)).toEqual({ documents: 0, jobs: 0, runs: 0, uploads: 0 })
    expect(await countRows(t, 'documents', 'corpus_id = ?', base)).toBe(0)
    expect(await countRows(t, 'corpora', 'id = ?', base)).toBe(0)
    expect(await objectKeys(t, `${f.admin.workspaceId}/corpora/${neighbour}/`)).toEqual(neighbourBefore)
    expect(await countRows(t, 'documents', 'corpus_id = ?', neighbour)).toBe(1)
    await expectError(
      await t.request(`/v1/corpora/${base}`, { headers: bearer(token) }),
      '/v1',
      404,
      'not_found',
    )
    await drain(t) // nothing left to run for it
    expect(await objectKeys(t, `${f.admin.workspaceId}/corpora/${base}/`)).toEqual([])
  })

  test('another workspace cannot delete the base: 404, nothing removed', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    await upload(t, token, base, [{ filename: 'x.txt', content: 'safe' }])
    const other = await signUp(t, { workspace_name: 'Intruders' })
    const key = (await mintKey(t, other.token, ['ingest'])).key
    const before = await footprint(t)
    for (const path of mounts(`/corpora/${base}`)) {
      await expectError(
        await t.request(path, { method: 'DELETE', headers: bearer(key) }),
        path,
        404,
        'not_found',
      )
    }
    expect(await footprint(t)).toEqual(before)
  })
})

describe('deletion receipts', () => {
  /** Audit rows of an action written since `from`, details parsed. */
  const receipts = async (action: string, from: number) =>
    (await auditRows(f.t, action))
      .slice(from)
      .map((r) => ({ ...r, details: JSON.parse(r.details) as Record<string, unknown> }))

  test('a document deleted through the API leaves one receipt naming the file, even when a section is named', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const key = await mintKey(t, token, ['ingest'])
    const doc = (
      (await (
        await upload(t, token, base, [{ filename: 'long.md', content: longMarkdown(6) }])
      ).json()) as Doc[]
    )[0]!
    await drain(t)
    const sections = (await listDocs(t, token, base, true)).filter((d) => d.parent_id === doc.id)
    const from = (await auditRows(t, 'document.deleted')).length
    const res = await t.request(`/v1/corpora/${base}/documents/${sections[1]!.id}`, {
      method: 'DELETE',
      headers: { ...bearer(key.key), 'x-request-id': 'req-delete-1' },
    })
    expect(res.status).toBe(204)
    expect(res.headers.get('x-build-running')).toBeNull()
    expect(await receipts('document.deleted', from)).toEqual([
      {
        workspace_id: f.admin.workspaceId,
        actor_type: 'api_key',
        actor_id: key.id,
        target_id: doc.id,
        details: {
          corpus_id: base,
          filename: 'long.md',
          rows: 1 + sections.length,
          via: 'api',
          build_running: false,
        },
      },
    ])
  })

  test('a document deleted while a build runs says so in its receipt and its response', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const docs = (await (
      await upload(t, token, base, [
        { filename: 'a.txt', content: 'alpha text for the build' },
        { filename: 'b.txt', content: 'bravo text for the build' },
      ])
    ).json()) as Doc[]
    await drain(t)
    // Started, not yet run: the build is in flight.
    const train = await t.request(`/v1/corpora/${base}/train`, { method: 'POST', headers: bearer(token) })
    expect(train.status).toBe(200)
    const from = (await auditRows(t, 'document.deleted')).length
    const res = await t.request(`/v1/corpora/${base}/documents/${docs[0]!.id}`, {
      method: 'DELETE',
      headers: bearer(token),
    })
    expect(res.status).toBe(204)
    expect(res.headers.get('x-build-running')).toBe('true')
    expect(
      (await receipts('document.deleted', from)).map((r) => [r.actor_type, r.target_id, r.details]),
    ).toEqual([
      ['user', docs[0]!.id, { corpus_id: base, filename: 'a.txt', rows: 1, via: 'api', build_running: true }],
    ])
    await drain(t)
  })

  test('a deleted base leaves one receipt with what it held', async () => {
    const { t, token } = f
    const base = await createBase(t, token, 'Receipts')
    await upload(t, token, base, [
      { filename: 'long.md', content: longMarkdown(3) },
      { filename: 'x.txt', content: 'small' },
    ])
    await drain(t)
    const rows = await countRows(t, 'documents', 'corpus_id = ?', base)
    const bytes = (await t.sql.get<{ s: number }>(
      'SELECT storage_bytes AS s FROM corpora WHERE id = ?',
      base,
    ))!.s
    expect(bytes).toBeGreaterThan(0)
    const from = (await auditRows(t, 'corpus.deleted')).length
    const docFrom = (await auditRows(t, 'document.deleted')).length
    expect(
      (await t.request(`/v1/corpora/${base}`, { method: 'DELETE', headers: bearer(token) })).status,
    ).toBe(204)
    expect(await receipts('corpus.deleted', from)).toEqual([
      {
        workspace_id: f.admin.workspaceId,
        actor_type: 'user',
        actor_id: f.admin.userId,
        target_id: base,
        details: { name: 'Receipts', documents: 2, rows, storage_bytes: bytes, build_running: false },
      },
    ])
    // The base's receipt covers its documents; no row per document.
    expect(await auditRows(t, 'document.deleted')).toHaveLength(docFrom)
  })

  test('a refused delete writes no receipt', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const other = await signUp(t, { workspace_name: 'No receipts' })
    const before = [
      (await auditRows(t, 'document.deleted')).length,
      (await auditRows(t, 'corpus.deleted')).length,
    ]
    await expectError(
      await t.request(`/v1/corpora/${base}/documents/doc_nope`, { method: 'DELETE', headers: bearer(token) }),
      '/v1',
      404,
      'not_found',
    )
    await expectError(
      await t.request(`/v1/corpora/${base}`, { method: 'DELETE', headers: bearer(other.token) }),
      '/v1',
      404,
      'not_found',
    )
    expect([
      (await auditRows(t, 'document.deleted')).length,
      (await auditRows(t, 'corpus.deleted')).length,
    ]).toEqual(before)
  })
})

describe('GET /corpora/{id}/documents/manifest.csv', () => {
  test('lists uploaded documents for any credential of the workspace, and refuses another source', async () => {
    const { t, token, queryKey, ingestKey } = f
    const base = await createBase(t, token)
    await upload(t, token, base, [
      { filename: 'b.txt', content: 'bee' },
      { filename: '=cmd.txt', content: 'formula-looking name' },
    ])
    await t.request(`/v1/corpora/${base}/documents/upsert`, {
      method: 'POST',
      headers: bearer(token),
      json: { path: 'pushed.txt', content: 'not in the manifest' },
    })
    for (const cred of [token, queryKey, ingestKey]) {
      for (const path of mounts(`/corpora/${base}/documents/manifest.csv`)) {
        const res = await t.request(path, { headers: bearer(cred) })
        expect(res.status).toBe(200)
        expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
        const lines = (await res.text()).trim().split('\r\n')
        expect(lines[0]).toBe('filename,size,sha256,content_type,status,document_id,updated_at')
        expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(['"\'=cmd.txt"', '"b.txt"'])
      }
    }
    for (const path of mounts(`/corpora/${base}/documents/manifest.csv?source=push`)) {
      await expectError(await t.request(path, { headers: bearer(queryKey) }), path, 422, 'validation_error')
    }
    const other = await signUp(t, { workspace_name: 'Readers' })
    await expectError(
      await t.request(`/v1/corpora/${base}/documents/manifest.csv`, { headers: bearer(other.token) }),
      '/v1',
      404,
      'not_found',
    )
  })
})

describe('the orphan sweep', () => {
  test('removes objects of the corpora area no row uses, and spares everything else', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    await upload(t, token, base, [{ filename: 'live.txt', content: 'referenced' }])
    await drain(t)
    const ws = f.admin.workspaceId
    const objects = t.deps.objects
    const live = await objectKeys(t, `${ws}/corpora/${base}/`)
    // A crash between storing a file and committing its row, a base whose rows are gone, and an
    // object outside the corpora area that is not ours to judge.
    await objects.put(`${ws}/corpora/${base}/blobs/blob_crashed`, 'half a request')
    await objects.put(`${ws}/corpora/cor_gone/blobs/blob_x`, 'of a deleted base')
    await objects.put(`${ws}/cartridges/cart_1`, 'someone else')
    // No grace for age (the sweep's own tests have it): these leftovers were written just now.
    const swept = await t.services.ingest.sweepOrphans({ graceMs: 0 })
    expect(swept.removed).toBe(2)
    expect(await objectKeys(t, `${ws}/corpora/`)).toEqual(
      (await objectKeys(t, `${ws}/corpora/`)).filter(
        (k) => !k.includes('blob_crashed') && !k.includes('cor_gone'),
      ),
    )
    for (const k of live) expect(await objects.head(k)).not.toBeNull()
    expect(await objects.head(`${ws}/cartridges/cart_1`)).not.toBeNull()
    expect(await objects.head(`${ws}/corpora/${base}/blobs/blob_crashed`)).toBeNull()
    expect(await objects.head(`${ws}/corpora/cor_gone/blobs/blob_x`)).toBeNull()
    await objects.delete(`${ws}/cartridges/cart_1`)
  })
})
