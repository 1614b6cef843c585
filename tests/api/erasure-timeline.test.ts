import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { erasureTimeline } from '../../src/features/platform-info/platform-info.erasure'
import { loadConfig } from '../../src/platform/config/config.load'
import type { TestApp } from '../helpers/app'
import { readyBase } from '../helpers/ready-base'
import { addMember, authApp, bearer, expectError, mintKey, signUp } from './accounts.fixture'
import { countRows, objectKeys } from './ingest.fixture'

// Issue 36: GET /v1/platform/erasure-timeline tells, for each kind of stored data, when a deletion
// makes it unreachable and when it is physically gone. Each claim of it is checked here against what
// a real delete does.

interface Timeline {
  storage: string
  kinds: {
    kind: string
    what: string
    unreachable: { when: string; after_seconds: number | null }
    physically_gone: { when: string; after_seconds: number | null }
  }[]
  notes: string[]
}

let t: TestApp
beforeAll(() => {
  // The timeline of local storage (an S3 bucket's is the test below): local in either pass.
  t = authApp({ env: { ENGRAM_IDEMPOTENCY_TTL_HOURS: '12', ENGRAM_STORAGE: 'local' } })
})
afterAll(() => t.close())

async function timeline(token: string): Promise<Timeline> {
  const res = await t.request('/v1/platform/erasure-timeline', { headers: bearer(token) })
  expect(res.status).toBe(200)
  return (await res.json()) as Timeline
}

const kindOf = (tl: Timeline, kind: string) => tl.kinds.find((k) => k.kind === kind)!

describe('the timeline', () => {
  test('names every kind of data a document leaves, with both moments, for this configuration', async () => {
    const a = await signUp(t)
    const tl = await timeline(a.token)
    expect(tl.storage).toBe('local')
    expect(tl.kinds.map((k) => k.kind)).toEqual([
      'document_rows',
      'raw_objects',
      'text_sidecars',
      'search_index',
      'cartridges',
      'extraction_jobs',
      'domain_events',
      'webhook_deliveries',
      'idempotency_records',
      'answer_feedback',
      'audit_log',
      'backups',
    ])
    for (const k of tl.kinds) {
      expect(k.what.length).toBeGreaterThan(10)
      expect(k.unreachable.when.length).toBeGreaterThan(10)
      expect(k.physically_gone.when.length).toBeGreaterThan(10)
    }
    expect(kindOf(tl, 'raw_objects').physically_gone.after_seconds).toBe(0)
    expect(kindOf(tl, 'domain_events').physically_gone.after_seconds).toBe(7 * 86_400 + 3600)
    expect(kindOf(tl, 'idempotency_records').unreachable).toEqual({
      when: 'Replayed only to the same key for 12 hours.',
      after_seconds: 12 * 3600,
    })
    expect(kindOf(tl, 'audit_log').physically_gone.after_seconds).toBeNull()
    expect(kindOf(tl, 'document_rows').physically_gone.when).toContain('free pages')
    expect(tl.notes.join(' ')).toContain('customer-managed key')
  })

  test('with an S3 bucket, objects are gone from it at once but old versions are the bucket’s', () => {
    const config = loadConfig({
      env: {
        ENGRAM_DATA_DIR: '/tmp/unused',
        ENGRAM_STORAGE: 's3',
        ENGRAM_S3_ENDPOINT: 'https://s3.example.com',
        ENGRAM_S3_BUCKET: 'docs',
        ENGRAM_S3_ACCESS_KEY: 'AKIAEXAMPLE',
        ENGRAM_S3_SECRET_KEY: 'secret-secret-secret',
        ENGRAM_S3_REGION: 'eu-west-1',
      },
      readFile: () => null,
    })
    const tl = erasureTimeline(config)
    expect(tl.storage).toBe('s3')
    const raw = tl.kinds.find((k) => k.kind === 'raw_objects')!
    expect(raw.physically_gone.after_seconds).toBeNull()
    expect(raw.physically_gone.when).toContain('versioned bucket')
    expect(JSON.stringify(tl)).not.toContain('secret-secret-secret')
    // Without a shared index there are no published files to tell of; with one, they are a kind of their own.
    expect(tl.kinds.map((k) => k.kind)).not.toContain('published_index')
    const shared = erasureTimeline({ ...config, engine: { ...config.engine, shared_index: true } })
    const published = shared.kinds.find((k) => k.kind === 'published_index')!
    expect(published.unreachable.after_seconds).toBe(0)
    expect(published.physically_gone.when).toContain('versioned bucket')
  })

  test('admins only', async () => {
    const a = await signUp(t)
    const member = await addMember(t, a.token)
    const key = await mintKey(t, a.token, ['query', 'ingest'])
    const path = '/v1/platform/erasure-timeline'
    await expectError(await t.request(path, { headers: bearer(member.token) }), path, 403, 'admin_required')
    await expectError(await t.request(path, { headers: bearer(key.key) }), path, 403, 'missing_scope')
    await expectError(await t.request(path), path, 401, 'unauthorized')
  })
})

describe('what a delete really does, as the timeline says', () => {
  test('before the delete answers: rows, objects, sidecar, index and jobs are gone; the events wait a week; the receipt stays', async () => {
    const base = await readyBase(t, [
      { path: 'keep.txt', text: 'The harbour opens at dawn. Ferries leave every hour.' },
      { path: 'secret.txt', text: 'The vault combination is written in the blue ledger.' },
    ])
    const doc = base.docs['secret.txt']!
    const before = await objectKeys(t, base.workspaceId)
    const sectionIds = (
      await t.sql.all<{ id: string }>('SELECT id FROM documents WHERE id = ? OR parent_id = ?', doc, doc)
    ).map((r) => r.id)
    // The engine's index is in the SQLite file on both engines (docs/data-layer.md).
    const passages = () =>
      sectionIds.reduce(
        (n, id) =>
          n +
          t.db.$client
            .query<{ n: number }, [string]>('SELECT count(*) AS n FROM engine_passages WHERE section_id = ?')
            .get(id)!.n,
        0,
      )
    expect(passages()).toBeGreaterThan(0)
    const keysOf = (await t.sql.get<{ raw_key: string | null; text_key: string | null }>(
      'SELECT raw_key, text_key FROM documents WHERE id = ?',
      doc,
    ))!

    const del = await t.request(`/v1/corpora/${base.corpusId}/documents/${doc}`, {
      method: 'DELETE',
      headers: bearer(base.adminToken),
    })
    expect(del.status).toBe(204)

    // document_rows, extraction_jobs: unreachable and deleted at once.
    expect(await countRows(t, 'documents', 'id = ? OR parent_id = ?', doc, doc)).toBe(0)
    expect(await countRows(t, 'jobs', 'subject_id = ?', doc)).toBe(0)
    for (const path of ['/text', '/raw']) {
      const res = await t.request(`/v1/corpora/${base.corpusId}/documents/${doc}${path}`, {
        headers: bearer(base.adminToken),
      })
      expect(res.status).toBe(404)
    }
    // raw_objects, text_sidecars: out of the store before the answer.
    const after = await objectKeys(t, base.workspaceId)
    for (const key of [keysOf.raw_key, keysOf.text_key]) {
      expect(before).toContain(key!)
      expect(after).not.toContain(key!)
    }
    // search_index: no passage left, no answer from it.
    expect(passages()).toBe(0)
    const ask = await t.request(`/v1/corpora/${base.corpusId}/chat`, {
      method: 'POST',
      headers: bearer(base.keys.query),
      json: { message: 'What is the vault combination written in?' },
    })
    expect(await ask.text()).not.toContain('blue ledger')

    // audit_log: the receipt stays, with the file name and never the content.
    const receipt = (await t.sql.get<{ details: string }>(
      "SELECT details FROM audit_events WHERE action = 'document.deleted' AND target_id = ?",
      doc,
    ))!
    expect(JSON.parse(receipt.details)).toMatchObject({ filename: 'secret.txt', via: 'api' })
    expect(receipt.details).not.toContain('ledger')

    // domain_events: the delivered deletion event is kept a week, then pruned within the hour.
    const told = () =>
      countRows(t, 'domain_events', "type = 'document.deleted' AND payload LIKE ?", `%${doc}%`)
    expect(await told()).toBe(1)
    t.clock.advance(7 * 86_400_000 - 60_000)
    await t.events.dispatcher.tick()
    expect(await told()).toBe(1)
    t.clock.advance(3_600_000 + 60_000)
    await t.events.dispatcher.tick()
    expect(await told()).toBe(0)
  })
})
