import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { addMember, bearer } from '../api/accounts.fixture'
import { THREE_TOPICS } from '../api/texts.fixture'
import { type TestApp, testApp } from '../helpers/app'
import { testPostgres } from '../helpers/postgres'
import { readyBase } from '../helpers/ready-base'
import { type S3Standin, startS3rver } from '../helpers/standins/s3rver'

// `engram export-data` moves a single-binary data dir (SQLite and local files) into PostgreSQL and an
// S3 bucket, and `engram import-data` moves it back, each with its counts checked: a base with
// documents, keys, members and audit rows answers the same question with the same answer and sources
// before, on PostgreSQL and S3, and after coming back; the same key signs in everywhere.

const ROOT = resolve(import.meta.dir, '../..')
const pg = await testPostgres()
const dir = mkdtempSync(join(tmpdir(), 'engram-data-copy-'))
const dataDir = join(dir, 'data')
let s3: S3Standin
afterAll(async () => {
  await s3?.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** Runs the CLI; asynchronously, since the S3 server it talks to runs in this process. */
async function engram(args: string[], env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, 'run', join(ROOT, 'src/main.ts'), ...args], {
    cwd: dir,
    env: { PATH: Bun.env.PATH ?? '', ENGRAM_DATA_DIR: dataDir, ENGRAM_LOG_LEVEL: 'error', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  return { code, out, err }
}

const QUESTION = 'How did the oil embargo of 1973 affect the price of oil?'

/** What the same question, key and base give on an app: the answer, its sources, and what else is kept. */
async function observe(t: TestApp, b: { corpusId: string; adminToken: string; query: string }) {
  const ask = async (strategy: string) => {
    const res = await t.request(`/v1/corpora/${b.corpusId}/chat`, {
      method: 'POST',
      headers: bearer(b.query),
      json: { question: QUESTION, strategy, k: 5 },
    })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { answer: string; sources: { document_id: string; snippet: string }[] }
    return { answer: body.answer, sources: body.sources.map((s) => [s.document_id, s.snippet]) }
  }
  const list = async (path: string) => {
    const res = await t.request(path, { headers: bearer(b.adminToken) })
    expect(res.status).toBe(200)
    return res.json()
  }
  const names = (rows: { id: string }[]) => rows.map((r) => r.id).sort()
  return {
    rag: await ask('rag'),
    cart: await ask('cart'),
    documents: names(
      ((await list(`/v1/corpora/${b.corpusId}/documents?limit=100`)) as { items: { id: string }[] }).items,
    ),
    keys: names(((await list('/v1/api-keys')) as { items: { id: string }[] }).items),
    members: ((await list('/v1/admin/members')) as { members: { email: string }[] }).members
      .map((m) => m.email)
      .sort(),
    audit: (await t.sql.get<{ n: number }>('SELECT count(*) AS n FROM audit_events'))!.n,
  }
}

describe.skipIf(!pg.available)('moving a data dir to PostgreSQL and S3 and back', () => {
  let url = ''
  let env: Record<string, string> = {}
  beforeAll(async () => {
    if (!pg.available) return
    url = await pg.freshDatabase()
    s3 = await startS3rver()
    env = {
      ENGRAM_DATABASE_URL: url,
      ENGRAM_STORAGE: 's3',
      ENGRAM_S3_ENDPOINT: s3.endpoint,
      ENGRAM_S3_BUCKET: 'engram-moved',
      ENGRAM_S3_ACCESS_KEY: s3.accessKey,
      ENGRAM_S3_SECRET_KEY: s3.secretKey,
    }
  })

  test('the same answers, documents, keys, members and audit rows on each side, counts checked', async () => {
    // The single binary's state is in its SQLite file, whatever engine the other tests run on.
    const single = testApp({ dataDir, postgresUrl: null, env: { ENGRAM_RATE_LIMITS: 'off' } })
    const base = await readyBase(single, THREE_TOPICS)
    await addMember(single, base.adminToken)
    const b = { corpusId: base.corpusId, adminToken: base.adminToken, query: base.keys.query }
    const before = await observe(single, b)
    expect(before.documents.length).toBe(THREE_TOPICS.length)
    expect(before.members.length).toBe(2)
    expect(before.audit).toBeGreaterThan(0)
    single.close()
    // A single binary's generated secret: the export says every server on the database needs it.
    writeFileSync(join(dataDir, 'secret'), `${'s'.repeat(64)}\n`, { mode: 0o600 })

    const exported = await engram(['export-data'], env)
    expect(exported.err).toBe('')
    expect(exported.code).toBe(0)
    expect(exported.out).toMatch(/every count the same on both sides/)
    expect(exported.out).toContain(
      `secret: start every server on the database with ENGRAM_SECRET set to the contents of ${join(dataDir, 'secret')}`,
    )
    expect(exported.out).not.toContain('s'.repeat(64))
    expect(exported.out).toMatch(/^documents +\d+ read +\d+ written$/m)
    expect(exported.out).toMatch(
      /objects: ([1-9]\d*) \((\d+) bytes\) copied, \1 \(\2 bytes\) found at the target/,
    )

    // Exporting again into a database that has the rows is refused, and changes nothing.
    const again = await engram(['export-data'], env)
    expect(again.code).not.toBe(0)
    expect(again.err).toContain('the target already has rows')

    const { S3ObjectStore } = await import('../../src/platform/storage/s3-store')
    const bucket = new S3ObjectStore({
      endpoint: s3.endpoint,
      bucket: 'engram-moved',
      accessKey: s3.accessKey,
      secretKey: s3.secretKey,
      region: 'us-east-1',
    })
    // Another seed for each app: the same seed would make the ids the first app made (events, jobs) again.
    const moved = testApp({
      dataDir,
      postgresUrl: url,
      objects: bucket,
      seed: 11,
      env: { ENGRAM_RATE_LIMITS: 'off' },
    })
    expect(moved.sql.engine).toBe('postgres')
    expect(await observe(moved, b)).toEqual(before)
    moved.close()

    const imported = await engram(['import-data'], env)
    expect(imported.err).toBe('')
    expect(imported.code).toBe(0)
    expect(imported.out).toMatch(/every count the same on both sides/)

    const back = testApp({ dataDir, postgresUrl: null, seed: 13, env: { ENGRAM_RATE_LIMITS: 'off' } })
    expect(await observe(back, b)).toEqual(before)
    back.close()
  }, 120_000)
})
