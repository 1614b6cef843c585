import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { addMember, bearer, expectError, issues, mounts, signUp } from './accounts.fixture'
import { countRows, createBase, type Doc, drain, ingestSetup, upload } from './ingest.fixture'

let f: Awaited<ReturnType<typeof ingestSetup>>
beforeAll(async () => {
  f = await ingestSetup()
})
afterAll(() => f.t.close())

describe('document bases', () => {
  test('a new base is empty, of source upload and status new, on both mounts', async () => {
    const { t, token } = f
    for (const path of mounts('/corpora')) {
      const res = await t.request(path, {
        method: 'POST',
        headers: bearer(token),
        json: { name: '  Handbooks ' },
      })
      expect(res.status).toBe(200)
      const body = await res.json()
      expect(body).toEqual({
        id: expect.stringMatching(/^cor_/),
        name: 'Handbooks',
        source_type: 'upload',
        status: 'new',
        n_documents: 0,
        documents_ready: 0,
        documents_onboarding: 0,
        documents_failed: 0,
        documents_pending: 0,
        auto_onboard: true,
        auto_onboard_paused: false,
        cart_status: 'none',
        last_synced_at: null,
        description: null,
        created_at: t.clock.now().toISOString(),
        updated_at: t.clock.now().toISOString(),
      })
      const got = await t.request(`${path}/${body.id}`, { headers: bearer(f.queryKey) })
      expect(await got.json()).toEqual(body)
    }
  })

  test('refuses an empty name with 422 and creates nothing', async () => {
    const { t, token } = f
    const before = await countRows(t, 'corpora')
    for (const path of mounts('/corpora')) {
      for (const name of ['', '   ']) {
        const res = await t.request(path, { method: 'POST', headers: bearer(token), json: { name } })
        expect((await issues(res, path))[0]!.loc).toEqual(['body', 'name'])
      }
    }
    expect(await countRows(t, 'corpora')).toBe(before)
  })

  test('creating needs the ingest scope; reading needs any credential', async () => {
    const { t, queryKey } = f
    for (const path of mounts('/corpora')) {
      await expectError(
        await t.request(path, { method: 'POST', headers: bearer(queryKey), json: { name: 'x' } }),
        path,
        403,
        'missing_scope',
        'API key missing required scope: ingest',
      )
      await expectError(await t.request(path), path, 401, 'unauthorized')
      expect((await t.request(path, { headers: bearer(queryKey) })).status).toBe(200)
    }
  })

  test("deleting a base is any member's (spec: bearer), and a key's with the ingest scope", async () => {
    const { t, token, queryKey, ingestKey } = f
    const member = await addMember(t, token)
    for (const path of mounts('/corpora')) {
      const [byMember, byKey] = [await createBase(t, token), await createBase(t, token)]
      await expectError(
        await t.request(`${path}/${byKey}`, { method: 'DELETE', headers: bearer(queryKey) }),
        `${path}/${byKey}`,
        403,
        'missing_scope',
        'API key missing required scope: ingest',
      )
      const res = await t.request(`${path}/${byMember}`, { method: 'DELETE', headers: bearer(member.token) })
      expect(res.status).toBe(204)
      expect(
        (await t.request(`${path}/${byKey}`, { method: 'DELETE', headers: bearer(ingestKey) })).status,
      ).toBe(204)
      expect(await countRows(t, 'corpora', 'id IN (?, ?)', byMember, byKey)).toBe(0)
    }
  })

  test('lists the workspace bases newest first: the whole array unversioned, pages under /v1', async () => {
    const own = await ingestSetup()
    const { t, token } = own
    const ids = [own.base]
    for (const n of [1, 2]) {
      t.clock.advance(1000)
      ids.push(await createBase(t, token, `base ${n}`))
    }
    const other = await signUp(t, { workspace_name: 'Elsewhere' })
    await createBase(t, other.token, 'not yours')
    const all = (await (await t.request('/corpora', { headers: bearer(token) })).json()) as { id: string }[]
    expect(all.map((b) => b.id)).toEqual([...ids].reverse())
    const p1 = await t.request('/v1/corpora?limit=2', { headers: bearer(token) })
    expect(p1.headers.get('x-total-count')).toBe('3')
    const b1 = (await p1.json()) as { items: { id: string }[]; next_cursor: string }
    expect(b1.items.map((b) => b.id)).toEqual([ids[2]!, ids[1]!])
    const b2 = await (
      await t.request(`/v1/corpora?limit=2&cursor=${b1.next_cursor}`, { headers: bearer(token) })
    ).json()
    expect(b2.items.map((b: { id: string }) => b.id)).toEqual([ids[0]])
    expect(b2.next_cursor).toBeNull()
    // A cursor of another shape (numbers where an id goes, or the reverse) is refused, on either
    // engine, before it reaches a query (PostgreSQL refused to compare a number with a text id).
    for (const forged of [
      [0, 0],
      ['x', 'y'],
      [1.5, 'id'],
      [1, 'a', 2],
    ]) {
      const cursor = Buffer.from(JSON.stringify(forged)).toString('base64url')
      for (const path of [
        `/v1/corpora?cursor=${cursor}`,
        `/v1/corpora/${own.base}/documents?cursor=${cursor}`,
        `/v1/corpora/${own.base}/sync-runs?cursor=${cursor}`,
        `/v1/corpora/${own.base}/scale-runs?cursor=${cursor}`,
      ]) {
        await expectError(await t.request(path, { headers: bearer(token) }), '/v1', 422, 'invalid_cursor')
      }
    }
    own.t.close()
  })

  test('another workspace sees a 404 for the base, its documents and its import status', async () => {
    const { t, token, base } = f
    const other = await signUp(t, { workspace_name: 'Strangers' })
    for (const suffix of ['', '/documents', '/documents/manifest.csv', '/import-status']) {
      for (const path of mounts(`/corpora/${base}${suffix}`)) {
        await expectError(await t.request(path, { headers: bearer(other.token) }), path, 404, 'not_found')
      }
    }
    expect((await t.request(`/v1/corpora/${base}`, { headers: bearer(token) })).status).toBe(200)
  })

  test('import-status answers state none before any import', async () => {
    const { t, base, queryKey } = f
    for (const path of mounts(`/corpora/${base}/import-status`)) {
      const res = await t.request(path, { headers: bearer(queryKey) })
      expect(await res.json()).toEqual({ state: 'none' })
    }
  })

  test('counters follow the documents: waiting (pending) until a run takes them, failed with a reason', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    await upload(t, token, base, [
      { filename: 'ok.txt', content: 'a readable text' },
      { filename: 'empty.md', content: '   \n\n  ' },
    ])
    const pending = await (await t.request(`/v1/corpora/${base}`, { headers: bearer(token) })).json()
    // No run has started: nothing is onboarding ("Onboarding 2" before onboarding was wrong).
    expect(pending).toMatchObject({
      n_documents: 2,
      documents_pending: 2,
      documents_onboarding: 0,
      documents_failed: 0,
      documents_ready: 0,
    })
    await drain(t)
    const after = await (await t.request(`/v1/corpora/${base}`, { headers: bearer(token) })).json()
    expect(after).toMatchObject({
      n_documents: 2,
      documents_pending: 1,
      documents_onboarding: 0,
      documents_failed: 1,
    })
  })

  test('the document listing pages under /v1 and answers the whole array unversioned', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    const files = Array.from({ length: 5 }, (_, i) => ({
      filename: `f${i}.txt`,
      content: `file number ${i}`,
    }))
    const docs = (await (await upload(t, token, base, files)).json()) as Doc[]
    const whole = (await (
      await t.request(`/corpora/${base}/documents`, { headers: bearer(token) })
    ).json()) as Doc[]
    expect(whole.map((d) => d.id).sort()).toEqual(docs.map((d) => d.id).sort())
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const q: string = cursor ? `&cursor=${cursor}` : ''
      const res = await t.request(`/v1/corpora/${base}/documents?limit=2${q}`, { headers: bearer(token) })
      expect(res.headers.get('x-total-count')).toBe('5')
      const body = (await res.json()) as { items: Doc[]; next_cursor: string | null }
      seen.push(...body.items.map((d) => d.id))
      cursor = body.next_cursor
    } while (cursor)
    expect(seen.sort()).toEqual(docs.map((d) => d.id).sort())
    const bad = await t.request(`/v1/corpora/${base}/documents?sections=maybe`, { headers: bearer(token) })
    expect((await issues(bad, '/v1'))[0]!.loc).toEqual(['query', 'sections'])
  })
})
