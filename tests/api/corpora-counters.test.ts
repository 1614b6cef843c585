import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { drizzle } from 'drizzle-orm/bun-sql'
import { migrations } from '../../migrations/index'
import { CorporaRepo } from '../../src/features/corpora/corpora.repo'
import { type Db, openDatabase } from '../../src/platform/db/db'
import { migrate } from '../../src/platform/db/migrate'
import { PostgresStore } from '../../src/platform/db/store.postgres'
import type { TestApp } from '../helpers/app'
import { watchedStore } from '../helpers/watched-store'
import { bearer } from './accounts.fixture'
import {
  countRows,
  createBase,
  drain,
  ingestSetup,
  longMarkdown,
  objectKeys,
  type Part,
  sha256,
  upload,
} from './ingest.fixture'

// A base's counters (n_documents, documents_ready/onboarding/pending/failed, storage_bytes) are stored and
// kept by triggers. These tests hold them to a fresh count after long random sequences of every
// kind of change, and show that reading bases no longer reads the documents table.

let f: Awaited<ReturnType<typeof ingestSetup>>
beforeAll(async () => {
  f = await ingestSetup()
})
afterAll(() => f.t.close())

/** The counters as the old correlated count(*) computed them, and the stored bytes from the rows. */
async function fresh(t: TestApp, corpusId: string) {
  const n = (where: string) => countRows(t, 'documents', `corpus_id = ? AND ${where}`, corpusId)
  const sum = async (query: string) => (await t.sql.get<{ n: number | null }>(query, corpusId))?.n ?? 0
  const raw = await sum(
    `SELECT sum(size) AS n FROM (SELECT DISTINCT raw_key, size FROM documents
       WHERE corpus_id = ? AND raw_key IS NOT NULL) AS objects`,
  )
  const text = await sum(
    'SELECT sum(text_bytes) AS n FROM documents WHERE corpus_id = ? AND parent_id IS NULL AND text_key IS NOT NULL',
  )
  return {
    n_documents: await n('parent_id IS NULL'),
    documents_ready: await n("parent_id IS NULL AND status = 'ready'"),
    documents_onboarding: await n("parent_id IS NULL AND status = 'onboarding'"),
    documents_failed: await n("parent_id IS NULL AND status = 'failed'"),
    documents_pending: await n("parent_id IS NULL AND status = 'pending'"),
    rows: await n('1 = 1'),
    storage_bytes: raw + text,
  }
}

/** What the API says of a base, and the total of its sections listing. */
async function served(t: TestApp, token: string, corpusId: string) {
  const res = await t.request(`/v1/corpora/${corpusId}`, { headers: bearer(token) })
  expect(res.status).toBe(200)
  const b = (await res.json()) as Record<string, number>
  const list = await t.request(`/v1/corpora/${corpusId}/documents?sections=true&limit=1`, {
    headers: bearer(token),
  })
  const stored = (await t.sql.get<{ s: number }>(
    'SELECT storage_bytes AS s FROM corpora WHERE id = ?',
    corpusId,
  ))!.s
  return {
    n_documents: b.n_documents,
    documents_ready: b.documents_ready,
    documents_onboarding: b.documents_onboarding,
    documents_failed: b.documents_failed,
    documents_pending: b.documents_pending,
    rows: Number(list.headers.get('x-total-count')),
    storage_bytes: stored,
  }
}

/**
 * Bytes of every object under a base's prefix in the store, but for pushed content still waiting
 * for a commit that would use it (staged uploads are not the base's until committed, and go when
 * they expire).
 */
async function storeBytes(t: TestApp, workspaceId: string, corpusId: string): Promise<number> {
  const staged = new Set(
    (
      await t.sql.all<{ k: string }>(
        'SELECT object_key AS k FROM ingest_uploads WHERE corpus_id = ?',
        corpusId,
      )
    ).map((u) => u.k),
  )
  let n = 0
  for await (const o of t.deps.objects.list(`${workspaceId}/corpora/${corpusId}/`)) {
    if (!staged.has(o.key)) n += o.size
  }
  return n
}

/** xorshift32: the sequence of operations is fixed by the seed. */
function rng(seed: number) {
  let s = seed >>> 0 || 1
  const next = () => {
    s ^= s << 13
    s ^= s >>> 17
    s ^= s << 5
    return (s >>> 0) / 2 ** 32
  }
  return {
    int: (n: number) => Math.floor(next() * n),
    pick<T>(xs: readonly T[]): T {
      return xs[Math.floor(next() * xs.length)]!
    },
  }
}

const PATHS = ['a.txt', 'b.md', 'dir/c.txt', 'dir/d.md', 'e.csv', 'long.md', 'f.txt', 'g.md']
// Short texts, a duplicate (shared raw object), texts that split into sections, one with no text
// (extraction fails) and one with multi-byte characters (bytes differ from characters).
const CONTENTS = [
  'alpha document about oil',
  'bravo document about plague',
  'alpha document about oil',
  longMarkdown(3, 'Part'),
  longMarkdown(5, 'Chapter'),
  '   ',
  'Größe, Maß und Übermaß: ünïcödé text ✓',
  'k,v\n1,2\n3,4\n',
]

describe('stored base counters', () => {
  for (const seed of [1, 2, 3]) {
    test(`equal a fresh count after a long random sequence of changes (seed ${seed})`, async () => {
      const { t, token } = f
      const ws = f.admin.workspaceId
      const r = rng(seed)
      const bases = [await createBase(t, token), await createBase(t, token)]
      const post = (base: string, route: string, json: unknown) =>
        t.request(`/v1/corpora/${base}/documents/${route}`, { method: 'POST', headers: bearer(token), json })
      const kinds: Record<string, number> = {}
      const seen = new Set<string>()
      for (let step = 0; step < 80; step++) {
        const base = r.pick(bases)
        const op = r.pick([
          'upload',
          'upload',
          'upsert',
          'push',
          'drain',
          'drain',
          'train',
          'delete',
          'delete_section',
          'delete_base',
        ] as const)
        kinds[op] = (kinds[op] ?? 0) + 1
        if (op === 'upload') {
          const paths = [...new Set([r.pick(PATHS), r.pick(PATHS)])]
          const parts: Part[] = paths.map((p) => ({ filename: p, content: r.pick(CONTENTS) }))
          expect((await upload(t, token, base, parts)).status).toBe(200)
        } else if (op === 'upsert') {
          const res = await post(base, 'upsert', { path: r.pick(PATHS), content: r.pick(CONTENTS) })
          expect(res.status).toBe(200)
        } else if (op === 'push') {
          const files = [...new Set([r.pick(PATHS), r.pick(PATHS), r.pick(PATHS)])].map((path) => {
            const content = r.pick(CONTENTS)
            return { path, sha256: sha256(content), size: Buffer.byteLength(content), content }
          })
          const manifest = files.map(({ content: _, ...e }) => e)
          const plan = (await (await post(base, 'upload-urls', { files: manifest })).json()) as {
            uploads: { path: string; upload: boolean; url: string; headers?: Record<string, string> }[]
          }
          for (const u of plan.uploads.filter((x) => x.upload)) {
            const body = files.find((x) => x.path === u.path)!.content
            // The raw route on local storage; on S3 a presigned URL of the bucket, signed, without the bearer.
            const put = u.url.startsWith('/')
              ? await t.request(u.url, { method: 'PUT', headers: bearer(token), body })
              : await fetch(u.url, { method: 'PUT', headers: u.headers, body })
            expect(put.status).toBe(200)
          }
          const commit = await post(base, 'commit', { files: manifest, delete_missing: r.int(2) === 1 })
          expect(commit.status).toBe(202)
        } else if (op === 'drain') {
          await drain(t)
        } else if (op === 'train') {
          await drain(t)
          const res = await t.request(`/v1/corpora/${base}/train`, { method: 'POST', headers: bearer(token) })
          expect([200, 409]).toContain(res.status)
          await drain(t)
        } else if (op === 'delete' || op === 'delete_section') {
          const rows = await t.sql.all<{ id: string }>(
            `SELECT id FROM documents WHERE corpus_id = ? AND parent_id IS ${op === 'delete' ? '' : 'NOT'} NULL ORDER BY id`,
            base,
          )
          if (rows.length === 0) continue
          const res = await t.request(`/v1/corpora/${base}/documents/${r.pick(rows).id}`, {
            method: 'DELETE',
            headers: bearer(token),
          })
          expect(res.status).toBe(204)
        } else {
          const res = await t.request(`/v1/corpora/${base}`, { method: 'DELETE', headers: bearer(token) })
          expect(res.status).toBe(204)
          bases[bases.indexOf(base)] = await createBase(t, token)
        }
        for (const b of bases) {
          const want = await fresh(t, b)
          if (want.documents_ready > 0) seen.add('ready')
          if (want.documents_failed > 0) seen.add('failed')
          if (want.rows > want.n_documents) seen.add('sections')
          if (want.storage_bytes > 0) seen.add('bytes')
          expect({ step, op, ...(await served(t, token, b)) }).toEqual({ step, op, ...want })
          // The store holds exactly what the counter says.
          expect({ step, op, bytes: await storeBytes(t, ws, b) }).toEqual({
            step,
            op,
            bytes: want.storage_bytes,
          })
        }
      }
      // The sequence did exercise every kind of change and state (a check of the generator).
      expect([...seen].sort()).toEqual(['bytes', 'failed', 'ready', 'sections'])
      expect(Object.keys(kinds).sort()).toEqual(
        ['delete', 'delete_base', 'delete_section', 'drain', 'push', 'train', 'upload', 'upsert'].sort(),
      )
    }, 120_000)
  }

  test('a base listing agrees with the single reads', async () => {
    const { t, token } = f
    const base = await createBase(t, token)
    await upload(t, token, base, [
      { filename: 'x.txt', content: 'one' },
      { filename: 'y.md', content: longMarkdown(3) },
    ])
    await drain(t)
    const list = (await (await t.request('/v1/corpora?limit=100', { headers: bearer(token) })).json()) as {
      items: { id: string; n_documents: number; documents_onboarding: number; documents_pending: number }[]
    }
    const item = list.items.find((b) => b.id === base)!
    // Extracted and waiting: pending, not onboarding (no run has started).
    expect(item).toMatchObject({ n_documents: 2, documents_onboarding: 0, documents_pending: 2 })
    // Two raw objects: each text is its file (no sidecars).
    expect(await objectKeys(t, `${f.admin.workspaceId}/corpora/${base}/`)).toHaveLength(2)
  })
})

/**
 * A CorporaRepo on the test app's database whose statements report the SQL they run and its
 * parameters, so a test can ask the engine how each is executed: SQLite's `EXPLAIN QUERY PLAN` on
 * the data dir's file, or PostgreSQL's `EXPLAIN` on the app's database (a store of its own on it,
 * whose drizzle logs each query).
 */
async function recordingRepo(t: TestApp) {
  const ran = new Map<string, unknown[]>()
  if (t.sql.engine === 'sqlite') {
    const repo = new CorporaRepo(watchedStore(t.db, (sql) => ran.set(sql, [])))
    return { repo, ran, close: async () => {} }
  }
  const client = new SQL({ url: t.databaseUrl!, max: 1 })
  const logger = { logQuery: (sql: string, params: unknown[]) => ran.set(sql, params) }
  const repo = new CorporaRepo(new PostgresStore(drizzle({ client, logger }) as unknown as Db))
  return { repo, ran, close: () => client.close() }
}

/** The steps of a statement's plan that read the documents table, on the app's engine. */
async function documentsSteps(t: TestApp, sql: string, params: unknown[]): Promise<string[]> {
  if (t.sql.engine === 'sqlite') {
    const plan = t.db.$client
      .query<{ detail: string }, (string | number)[]>(`EXPLAIN QUERY PLAN ${sql}`)
      .all(...Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => ''))
    return plan.map((p) => p.detail).filter((d) => /\bdocuments\b|\bd\b/.test(d))
  }
  // PostgreSQL's placeholders are $1, $2 ...: the plan of the statement with the values it ran with.
  const query = sql.replace(/\$(\d+)/g, (_, i: string) => `?${i}`)
  const plan = await t.sql.all<{ 'QUERY PLAN': string }>(`EXPLAIN ${query}`, ...(params as string[]))
  return plan.map((p) => p['QUERY PLAN']).filter((d) => /\bon documents\b/.test(d))
}

describe('reading bases', () => {
  test('reading, listing and serving a base never reads the documents table, whatever its size', async () => {
    const { t, token } = f
    const ws = f.admin.workspaceId
    const base = await createBase(t, token)
    // 2,000 documents, inserted directly: only their number matters here.
    for (let from = 0; from < 2000; from += 500) {
      const rows = Array.from({ length: 500 }, (_, j) => from + j)
      await t.sql.run(
        `INSERT INTO documents (id, workspace_id, corpus_id, path, size, status, raw_key, created_at, updated_at)
         VALUES ${rows.map(() => '(?, ?, ?, ?, 10, ?, ?, 1, 1)').join(', ')}`,
        ...rows.flatMap((i) => [
          `doc_many${i}`,
          ws,
          base,
          `n/${i}.txt`,
          i % 3 ? 'pending' : 'ready',
          `k/${i}`,
        ]),
      )
    }
    const { repo, ran, close } = await recordingRepo(t)
    try {
      const row = (await repo.get(ws, base))!
      expect(row).toMatchObject({
        n_documents: 2000,
        documents_ready: 667,
        documents_onboarding: 0,
        documents_pending: 1333,
      })
      expect(row.storage_bytes).toBe(20_000)
      expect((await repo.listPage(ws, null, 50)).some((b) => b.id === base)).toBe(true)
      expect((await repo.listAll(ws)).some((b) => b.id === base)).toBe(true)
      expect(await repo.servingState(ws, base)).toEqual({ status: 'new', anyReady: true })
      expect(await repo.countDocuments(base, false)).toBe(2000)
      expect(ran.size).toBeGreaterThanOrEqual(4)
      for (const [sql, params] of ran) {
        expect({ sql, plan: await documentsSteps(t, sql, params) }).toEqual({ sql, plan: [] })
      }
    } finally {
      await close()
    }
  })
})

describe('the counters migration', () => {
  // The two tests below hold SQLite's migrations (their back-fills of rows written before them); on
  // PostgreSQL a database starts from its baseline with the triggers in place (0002), and this one
  // holds the triggers of the app's engine to the same counts.
  test("the app's engine keeps the counters the migrations back-fill, as rows are written and deleted", async () => {
    const { t, token } = f
    const ws = f.admin.workspaceId
    const counters = async (base: string) =>
      (await t.sql.get(
        `SELECT n_documents, documents_ready, documents_onboarding, documents_pending, documents_failed, n_rows,
           storage_bytes FROM corpora WHERE id = ?`,
        base,
      ))!
    const doc = (base: string, ...[id, parent, path, size, status, raw, text, bytes]: Values) =>
      t.sql.run(
        `INSERT INTO documents (id, workspace_id, corpus_id, parent_id, path, size, status, raw_key, text_key,
           text_bytes, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, 1)`,
        `${base}_${id}`,
        ws,
        base,
        parent === null ? null : `${base}_${parent}`,
        path,
        size,
        status,
        raw,
        text,
        bytes,
      )
    type Values = [string, string | null, string, number, string, string | null, string | null, number]
    // As the first migration test: two files sharing one raw object (100 bytes), one of them split in
    // two sections, its sidecar of 72 bytes; a failed file of 7 bytes with a text of 5.
    const one = await createBase(t, token)
    await doc(one, 'a', null, 'a.md', 100, 'ready', `${one}/raw/1`, `${one}/raw/1.a.txt`, 72)
    await doc(one, 'a1', 'a', 'a.md', 30, 'ready', null, `${one}/raw/1.a.txt`, 0)
    await doc(one, 'a2', 'a', 'a.md', 40, 'pending', null, `${one}/raw/1.a.txt`, 0)
    await doc(one, 'b', null, 'b.md', 100, 'pending', `${one}/raw/1`, null, 0)
    await doc(one, 'c', null, 'c.txt', 7, 'failed', `${one}/raw/2`, `${one}/raw/2.c.txt`, 5)
    expect(await counters(one)).toEqual({
      n_documents: 3,
      documents_ready: 1,
      documents_onboarding: 0,
      documents_pending: 1,
      documents_failed: 1,
      n_rows: 5,
      storage_bytes: 100 + 7 + 72 + 5,
    })
    // The shared object goes with its last row; a file's sections go with it.
    await t.sql.run('DELETE FROM documents WHERE id = ?', `${one}_a`)
    expect(await counters(one)).toMatchObject({ n_documents: 2, n_rows: 2, storage_bytes: 100 + 7 + 5 })
    await t.sql.run('DELETE FROM documents WHERE id = ?', `${one}_b`)
    expect(await counters(one)).toMatchObject({ storage_bytes: 12 })
    // As the second: waiting documents are counted apart from those in a run.
    const two = await createBase(t, token)
    await doc(two, 'p1', null, 'p1.txt', 0, 'pending', null, null, 0)
    await doc(two, 'p2', null, 'p2.txt', 0, 'pending', null, null, 0)
    await doc(two, 'o', null, 'o.txt', 0, 'onboarding', null, null, 0)
    await doc(two, 'r', null, 'r.txt', 0, 'ready', null, null, 0)
    expect(await counters(two)).toMatchObject({
      documents_onboarding: 1,
      documents_pending: 2,
      documents_ready: 1,
    })
    await t.sql.run("UPDATE documents SET status = 'onboarding' WHERE id = ?", `${two}_p1`)
    await t.sql.run('DELETE FROM documents WHERE id = ?', `${two}_p2`)
    await t.sql.run("UPDATE documents SET status = 'ready' WHERE id = ?", `${two}_o`)
    expect(await counters(two)).toMatchObject({
      documents_onboarding: 1,
      documents_pending: 0,
      documents_ready: 2,
    })
  })

  test('back-fills the counters, sidecar sizes and push ownership of documents stored before it', () => {
    const db = openDatabase(':memory:')
    const at = migrations.findIndex((m) => m.tag === '0011_document_counters')
    migrate(db, migrations.slice(0, at))
    const c = db.$client
    c.run(
      "INSERT INTO corpora (id, workspace_id, name, created_at, updated_at) VALUES ('cor_1', 'ws_1', 'B', 1, 1)",
    )
    const doc = c.query(
      `INSERT INTO documents (id, workspace_id, corpus_id, parent_id, path, size, status, source, raw_key, text_key,
         text_chars, section_count, created_at, updated_at)
       VALUES (?, 'ws_1', 'cor_1', ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, 1)`,
    )
    // Two files sharing one raw object (100 bytes), one of them split in two sections of 30 and 40
    // bytes (sidecar 30 + 2 + 40); a failed pushed file of 7 bytes with a one-section text of 5.
    doc.run('doc_a', null, 'a.md', 100, 'ready', 'upload', 'raw/1', 'raw/1.doc_a.txt', 70, 2)
    doc.run('doc_a1', 'doc_a', 'a.md', 30, 'ready', 'upload', null, 'raw/1.doc_a.txt', 30, 1)
    doc.run('doc_a2', 'doc_a', 'a.md', 40, 'pending', 'upload', null, 'raw/1.doc_a.txt', 40, 1)
    doc.run('doc_b', null, 'b.md', 100, 'pending', 'upload', 'raw/1', null, 0, 1)
    doc.run('doc_c', null, 'c.txt', 7, 'failed', 'push', 'raw/2', 'raw/2.doc_c.txt', 5, 1)
    migrate(db, migrations)
    expect(
      c
        .query(
          'SELECT n_documents, documents_ready, documents_onboarding, documents_pending, documents_failed, n_rows, storage_bytes FROM corpora',
        )
        .get(),
    ).toEqual({
      n_documents: 3,
      documents_ready: 1,
      // 0018 counts the waiting document apart from those in a run.
      documents_onboarding: 0,
      documents_pending: 1,
      documents_failed: 1,
      n_rows: 5,
      storage_bytes: 100 + 7 + 72 + 5,
    })
    expect(c.query('SELECT id, managed_by FROM documents WHERE parent_id IS NULL ORDER BY id').all()).toEqual(
      [
        { id: 'doc_a', managed_by: null },
        { id: 'doc_b', managed_by: null },
        { id: 'doc_c', managed_by: 'push' },
      ],
    )
    // From here on the triggers keep them: the shared object goes with its last row.
    c.run("DELETE FROM documents WHERE id = 'doc_a'")
    expect(c.query('SELECT n_documents, n_rows, storage_bytes FROM corpora').get()).toEqual({
      n_documents: 2,
      n_rows: 2,
      storage_bytes: 100 + 7 + 5,
    })
    c.run("DELETE FROM documents WHERE id = 'doc_b'")
    expect(c.query('SELECT storage_bytes AS s FROM corpora').get()).toEqual({ s: 12 })
    db.$client.close()
  })

  test('0018 counts waiting documents apart from those in a run, and last_synced_at only from syncs and imports', () => {
    const db = openDatabase(':memory:')
    const at = migrations.findIndex((m) => m.tag === '0018_auto_onboard')
    migrate(db, migrations.slice(0, at))
    const c = db.$client
    // Two bases that moved last_synced_at the old way: one by an upload only, one by a source's sync.
    c.run(`INSERT INTO corpora (id, workspace_id, name, last_synced_at, created_at, updated_at)
           VALUES ('cor_up', 'ws_1', 'Uploaded', 500, 1, 1), ('cor_src', 'ws_1', 'Synced', 900, 1, 1)`)
    const doc = c.query(
      `INSERT INTO documents (id, workspace_id, corpus_id, path, status, created_at, updated_at)
       VALUES (?, 'ws_1', 'cor_up', ?, ?, 1, 1)`,
    )
    doc.run('doc_p1', 'p1.txt', 'pending')
    doc.run('doc_p2', 'p2.txt', 'pending')
    doc.run('doc_o', 'o.txt', 'onboarding')
    doc.run('doc_r', 'r.txt', 'ready')
    const run = c.query(
      `INSERT INTO sync_runs (id, workspace_id, corpus_id, source, status, source_id, started_at, finished_at)
       VALUES (?, 'ws_1', ?, ?, ?, ?, ?, ?)`,
    )
    run.run('run_u', 'cor_up', 'upload', 'succeeded', null, 400, 500)
    run.run('run_s1', 'cor_src', 'sync', 'partial', 'src_1', 600, 700)
    run.run('run_s2', 'cor_src', 'sync', 'failed', 'src_1', 800, 900)
    const counters = () =>
      c
        .query<Record<string, number | string | null>, []>(
          `SELECT id, documents_onboarding, documents_pending, documents_ready, last_synced_at, auto_onboard
           FROM corpora ORDER BY id`,
        )
        .all()
    // Before: the old triggers count the waiting documents as onboarding.
    expect(c.query("SELECT documents_onboarding AS n FROM corpora WHERE id = 'cor_up'").get()).toEqual({
      n: 3,
    })
    migrate(db, migrations)
    expect(counters()).toEqual([
      // The last sync that listed its folder to the end (the failed one did not).
      {
        id: 'cor_src',
        documents_onboarding: 0,
        documents_pending: 0,
        documents_ready: 0,
        last_synced_at: 700,
        auto_onboard: 1,
      },
      // An upload is no sync: never synced.
      {
        id: 'cor_up',
        documents_onboarding: 1,
        documents_pending: 2,
        documents_ready: 1,
        last_synced_at: null,
        auto_onboard: 1,
      },
    ])
    // From here on the new triggers keep them apart.
    c.run("UPDATE documents SET status = 'onboarding' WHERE id = 'doc_p1'")
    c.run("DELETE FROM documents WHERE id = 'doc_p2'")
    c.run("UPDATE documents SET status = 'ready' WHERE id = 'doc_o'")
    expect(counters()[1]).toMatchObject({ documents_onboarding: 1, documents_pending: 0, documents_ready: 2 })
    db.$client.close()
  })
})
