import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { generateKeyPairSync } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from 'minio'
import type { TestApp } from '../helpers/app'
import { DriveStandin } from '../helpers/standins/drive-standin'
import { GraphStandin } from '../helpers/standins/graph-standin'
import { type S3Standin, startS3rver } from '../helpers/standins/s3rver'
import { authApp, bearer, expectError, rows, signUp } from './accounts.fixture'
import { createBase } from './ingest.fixture'
import { call, connection, paths, type RunBody, source, syncNow } from './sources.fixture'

// Each kind of source end to end through the API: the production connector, its client library
// unchanged, talking over HTTP to a loopback stand-in that speaks the service's protocol.

const keys = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
})
const EMAIL = 'engram@project.iam.gserviceaccount.com'
const DOCX = readFileSync(
  join(import.meta.dir, '../fixtures/data/docs/docx/Unstructured-IO_unstructured__docx-tables.docx'),
)

let t: TestApp
let s3: S3Standin
let bucket: Client
let drive: DriveStandin
let graph: GraphStandin
let token: string

beforeAll(async () => {
  s3 = await startS3rver()
  const url = new URL(s3.endpoint)
  bucket = new Client({
    endPoint: url.hostname,
    port: Number(url.port),
    useSSL: false,
    accessKey: s3.accessKey,
    secretKey: s3.secretKey,
    region: 'us-east-1',
  })
  await bucket.makeBucket('team-docs', 'us-east-1')
  drive = DriveStandin.start()
  drive.addServiceAccount(EMAIL, keys.publicKey)
  graph = new GraphStandin({ pageSize: 2 })
  t = authApp({
    env: {
      // The stand-ins listen on loopback, which workspaces' endpoints reach only when allowed.
      ENGRAM_SOURCES_ALLOW_LOOPBACK: 'true',
      ENGRAM_SOURCES_GDRIVE_API_URL: drive.url,
      ENGRAM_SOURCES_GOOGLE_TOKEN_URL: drive.tokenUrl,
      ENGRAM_SOURCES_GRAPH_API_URL: graph.url,
      ENGRAM_SOURCES_MICROSOFT_LOGIN_URL: graph.loginUrl,
    },
  })
  token = (await signUp(t)).token
})

afterAll(async () => {
  t.close()
  drive.stop()
  graph.stop()
  await s3.stop()
})

const put = (key: string, text: string) => bucket.putObject('team-docs', key, Buffer.from(text))

/** A base with a source of the connection on `folder`, validated. */
async function sourced(conn: Record<string, unknown>, folder: string) {
  const base = await createBase(t, token)
  const id = await source(t, token, base, { connection_id: await connection(t, token, conn), folder })
  const valid = await call(t, token, 'POST', `/v1/corpora/${base}/sources/${id}/validate`)
  expect(valid).toMatchObject({ status: 200, body: { ok: true } })
  return { base, id }
}

/** Starts a sync and steps the queue until the job is waiting on the source's Retry-After. */
async function syncIntoRetry(base: string, id: string): Promise<RunBody> {
  const started = await call<RunBody>(t, token, 'POST', `/v1/corpora/${base}/sources/${id}/sync`)
  await t.jobs.scheduler.drain()
  const run = (await call<RunBody>(t, token, 'GET', `/v1/corpora/${base}/sync-runs/${started.body.id}`)).body
  expect(run.status).toBe('running')
  const job = (await t.jobs.queue.repo.get(run.job_id!))!
  expect(job.status).toBe('pending')
  expect(job.runAt - t.clock.now().getTime()).toBe(30_000)
  return run
}

describe('s3: a bucket prefix', () => {
  const conn = () => ({
    kind: 's3',
    name: 'Team bucket',
    settings: { endpoint: s3.endpoint, bucket: 'team-docs' },
    secrets: { access_key: s3.accessKey, secret_key: s3.secretKey },
  })

  test('first sync, then by ETag: only what changed is fetched; deletions reach the base', async () => {
    for (let i = 0; i < 5; i++) await put(`policies/p${i}.txt`, `Policy number ${i} says something.`)
    await put('policies/travel/europe.md', '# Europe\n\nTrains are preferred.')
    await put('elsewhere/x.txt', 'Not under the prefix.')
    const { base, id } = await sourced(conn(), 'policies')
    expect(await syncNow(t, token, base, id)).toMatchObject({ status: 'succeeded', created: 6 })
    expect(await paths(t, token, base)).toContain('travel/europe.md')
    await put('policies/p0.txt', 'Policy number 0 was rewritten.')
    await bucket.removeObject('team-docs', 'policies/p1.txt')
    await put('policies/p9.txt', 'A new policy.')
    expect(await syncNow(t, token, base, id)).toMatchObject({
      created: 1,
      updated: 1,
      unchanged: 4,
      deleted: 1,
      failed: 0,
    })
    expect(await paths(t, token, base)).not.toContain('p1.txt')
  })

  test('a metadata endpoint is refused before anything is stored; a wrong secret is named by validate', async () => {
    const before = await rows(t, 'connections')
    const res = await t.request('/v1/connections', {
      method: 'POST',
      headers: bearer(token),
      json: { ...conn(), settings: { endpoint: 'http://169.254.169.254', bucket: 'team-docs' } },
    })
    await expectError(res, '/v1', 422, 'egress_denied')
    expect(await rows(t, 'connections')).toBe(before)
    const base = await createBase(t, token)
    const missing = await source(t, token, base, {
      connection_id: await connection(t, token, {
        ...conn(),
        settings: { endpoint: s3.endpoint, bucket: 'no-such-bucket' },
      }),
      folder: '',
    })
    const check = await t.request(`/v1/corpora/${base}/sources/${missing}/validate`, {
      method: 'POST',
      headers: bearer(token),
    })
    await expectError(check, '/v1', 422, 'source_folder_not_found')
    const down = await source(t, token, base, {
      connection_id: await connection(t, token, {
        ...conn(),
        settings: { endpoint: 'http://127.0.0.1:9', bucket: 'bucket' },
      }),
      folder: '',
    })
    const unreachable = await t.request(`/v1/corpora/${base}/sources/${down}/validate`, {
      method: 'POST',
      headers: bearer(token),
    })
    await expectError(unreachable, '/v1', 502, 'source_unreachable')
    // A sync of an unreachable source is retried with backoff, then ends failed with the reason.
    const started = await call<RunBody>(t, token, 'POST', `/v1/corpora/${base}/sources/${down}/sync`)
    for (let attempt = 0; attempt < 5; attempt++) {
      await t.jobs.scheduler.drain()
      t.clock.advance(10 * 60_000)
    }
    const run = (await call<RunBody>(t, token, 'GET', `/v1/corpora/${base}/sync-runs/${started.body.id}`))
      .body
    expect(run).toMatchObject({ status: 'failed', created: 0 })
    expect(run.error).toContain('reach')
    expect(await t.jobs.queue.repo.get(run.job_id!)).toMatchObject({ status: 'failed', attempts: 5 })
  })
})

describe('gdrive: a Drive folder', () => {
  const conn = {
    kind: 'gdrive',
    name: 'Company Drive',
    settings: { auth: 'service_account', client_email: EMAIL },
    secrets: { private_key: keys.privateKey },
  }

  test('a full listing, then the changes feed: edits, deletions, trash and exports', async () => {
    const folder = drive.addFolder('Handbook')
    const teams = drive.addFolder('Teams', folder)
    const intro = drive.addFile('intro.txt', folder, 'Welcome to the handbook.')
    const gone = drive.addFile('old.txt', folder, 'This page will be deleted.')
    drive.addFile('eng.md', teams, '# Engineering\n\nWe review every change.')
    drive.addNative('Plan', folder, 'document', DOCX)
    const { base, id } = await sourced(conn, folder)
    expect(await syncNow(t, token, base, id)).toMatchObject({ status: 'succeeded', created: 4, failed: 0 })
    expect(await paths(t, token, base)).toEqual(['Plan.docx', 'Teams/eng.md', 'intro.txt', 'old.txt'])
    drive.update(intro, 'Welcome to the second edition of the handbook.')
    drive.remove(gone)
    drive.addFile('new.txt', teams, 'A new page.')
    expect(await syncNow(t, token, base, id)).toMatchObject({ created: 1, updated: 1, deleted: 1, failed: 0 })
    expect(await paths(t, token, base)).toEqual(['Plan.docx', 'Teams/eng.md', 'Teams/new.txt', 'intro.txt'])
    drive.trash(teams)
    expect(await syncNow(t, token, base, id)).toMatchObject({ deleted: 2 })
    expect(await paths(t, token, base)).toEqual(['Plan.docx', 'intro.txt'])
    // A rename keeps the file's id: its document follows it to the new path, none is left behind.
    drive.rename(intro, 'welcome.txt')
    expect(await syncNow(t, token, base, id)).toMatchObject({ created: 1, deleted: 1, failed: 0 })
    expect(await paths(t, token, base)).toEqual(['Plan.docx', 'welcome.txt'])
  })

  test('a 429 with Retry-After holds the sync that long, then it resumes and finishes', async () => {
    const folder = drive.addFolder('Busy')
    drive.addFile('a.txt', folder, 'First.')
    drive.addFile('b.txt', folder, 'Second.')
    const { base, id } = await sourced(conn, folder)
    drive.failNext(429, { retryAfter: '30' })
    const run = await syncIntoRetry(base, id)
    t.clock.advance(30_000)
    await t.jobs.scheduler.drain()
    const done = (await call<RunBody>(t, token, 'GET', `/v1/corpora/${base}/sync-runs/${run.id}`)).body
    expect(done).toMatchObject({ status: 'succeeded', created: 2 })
  })
})

describe('sharepoint: a document library folder', () => {
  const conn = () => ({
    kind: 'sharepoint',
    name: 'Contoso',
    settings: { tenant_id: graph.tenantId, client_id: graph.clientId, drive_id: graph.driveId },
    secrets: { client_secret: graph.clientSecret },
  })

  test('the delta query: a first listing over pages, then only the changes', async () => {
    graph.putFile('Shared/Policies/leave.txt', 'Leave policy: 25 days.')
    graph.putFile('Shared/Policies/travel/europe.txt', 'Travel in Europe by train.')
    graph.putFile('Shared/Policies/remote.md', '# Remote\n\nTwo days a week.')
    graph.putFile('Shared/Other/skip.txt', 'Outside the folder.')
    const { base, id } = await sourced(conn(), 'Shared/Policies')
    expect(await syncNow(t, token, base, id)).toMatchObject({ status: 'succeeded', created: 3 })
    graph.putFile('Shared/Policies/leave.txt', 'Leave policy: 27 days.')
    graph.delete('Shared/Policies/remote.md')
    graph.putFile('Shared/Policies/travel/asia.txt', 'Travel in Asia.')
    expect(await syncNow(t, token, base, id)).toMatchObject({ created: 1, updated: 1, deleted: 1, failed: 0 })
    expect(await paths(t, token, base)).toEqual(['leave.txt', 'travel/asia.txt', 'travel/europe.txt'])
  })

  test('an expired token is renewed; a 429 with Retry-After is honoured; a wrong secret is named', async () => {
    graph.putFile('Busy/a.txt', 'Alpha.')
    const { base, id } = await sourced(conn(), 'Busy')
    graph.expireTokens()
    graph.failNext(429, { 'Retry-After': '30' })
    const run = await syncIntoRetry(base, id)
    t.clock.advance(30_000)
    await t.jobs.scheduler.drain()
    expect(
      (await call<RunBody>(t, token, 'GET', `/v1/corpora/${base}/sync-runs/${run.id}`)).body,
    ).toMatchObject({
      status: 'succeeded',
      created: 1,
    })
    const wrong = await source(t, token, base, {
      connection_id: await connection(t, token, { ...conn(), secrets: { client_secret: 'not-the-secret' } }),
      folder: 'Busy',
    })
    const res = await t.request(`/v1/corpora/${base}/sources/${wrong}/validate`, {
      method: 'POST',
      headers: bearer(token),
    })
    const message = await expectError(res, '/v1', 422, 'source_credentials_rejected')
    expect(message).not.toContain('not-the-secret')
    // A sync with refused credentials ends failed at once, with the reason.
    const failed = await syncNow(t, token, base, wrong)
    expect(failed.status).toBe('failed')
    expect(failed.error).toBeTruthy()
  })
})
