import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import type { TestApp } from '../helpers/app'
import { type EndlessS3, startEndlessS3 } from '../helpers/standins/endless-s3'
import { authApp, signUp } from './accounts.fixture'
import { createBase, upload } from './ingest.fixture'
import { call, connection, type RunBody, source } from './sources.fixture'

// Issue 32, item 3: an S3 endpoint whose listing never ends (every page empty, "more to come"),
// synced three times by one workspace, held another workspace's extraction pending for minutes, and
// neither cancel nor deleting the source stopped the runs. Here the same bucket, on loopback, with
// the test answering its pages one by one: another workspace's upload is extracted while the syncs
// run, cancel and delete stop a run within one page, and the listing that goes nowhere ends failed.

let t: TestApp
let s3: EndlessS3
let tenant: Awaited<ReturnType<typeof signUp>>

// A server and a bucket of its own for each test, so that no test depends on another's runs ending.
beforeEach(async () => {
  s3 = startEndlessS3()
  t = authApp({
    env: {
      // Two slots, as the server attacked had: one workspace could hold both.
      ENGRAM_JOB_WORKERS: '2',
      ENGRAM_SOURCES_MAX_RUN_MINUTES: '1',
      // The stand-in is on loopback, which workspace endpoints may not reach by default.
      ENGRAM_SOURCES_ALLOW_LOOPBACK: 'true',
    },
  })
  tenant = await signUp(t)
})

afterEach(() => {
  t.close()
  s3.stop()
})

const scheduler = () => t.jobs.scheduler

/** A base of the tenant with `n` sources on the endless bucket. */
async function endlessSources(n: number): Promise<{ base: string; ids: string[] }> {
  const base = await createBase(t, tenant.token)
  const conn = await connection(t, tenant.token, {
    kind: 's3',
    name: 'Endless bucket',
    settings: { endpoint: s3.endpoint, bucket: 'endless' },
    secrets: { access_key: 'AKIAENDLESS', secret_key: 'endless-secret-0123456789' },
  })
  const ids: string[] = []
  for (let i = 0; i < n; i++)
    ids.push(await source(t, tenant.token, base, { connection_id: conn, folder: '' }))
  return { base, ids }
}

async function startSync(base: string, id: string): Promise<RunBody> {
  const started = await call<RunBody>(t, tenant.token, 'POST', `/v1/corpora/${base}/sources/${id}/sync`)
  expect(started.status).toBe(202)
  return started.body
}

async function runOf(base: string, runId: string): Promise<RunBody> {
  return (await call<RunBody>(t, tenant.token, 'GET', `/v1/corpora/${base}/sync-runs/${runId}`)).body
}

/** Starts a sync and steps the queue until its listing waits on its first page. */
async function listing(base: string, id: string): Promise<RunBody> {
  s3.hold()
  const run = await startSync(base, id)
  expect((await scheduler().step()).map((j) => j.id)).toContain(run.job_id!)
  await s3.page(1)
  return run
}

describe('a sync of a bucket whose listing never ends', () => {
  test("another workspace's upload is extracted while one workspace's three syncs run", async () => {
    s3.hold()
    const { base, ids } = await endlessSources(3)
    const runs = []
    for (const id of ids) runs.push(await startSync(base, id))
    const other = await signUp(t)
    const otherBase = await createBase(t, other.token)
    // HTML, which its extraction job reads (a small plain file would be read as it was uploaded).
    const res = await upload(t, other.token, otherBase, [
      { filename: 'policy.html', content: '<h1>Leave</h1><p>Everyone gets 25 days of leave.</p>' },
    ])
    expect(res.status).toBeLessThan(300)
    const extraction = (await t.sql.get<{ id: string }>(
      "SELECT id FROM jobs WHERE workspace_id = ? AND kind = 'ingest.extract'",
      other.workspaceId,
    ))!.id
    // The syncs were queued first; the upload's extraction still gets a slot at the first tick.
    const started = (await scheduler().step()).map((j) => j.id)
    expect(started).toContain(extraction)
    await scheduler().whenSettled(extraction)
    expect(await t.jobs.queue.repo.get(extraction)).toMatchObject({
      status: 'succeeded',
      result: { outcome: 'extracted' },
    })
    // Meanwhile a sync of the tenant is listing, and it holds no more than its share.
    await s3.page(1)
    const statuses = await Promise.all(runs.map((r) => t.jobs.queue.repo.get(r.job_id!)))
    expect(statuses.map((j) => j!.status)).toEqual(['running', 'pending', 'pending'])
    expect(s3.pages).toBe(1)
    for (const id of ids) {
      expect((await call(t, tenant.token, 'POST', `/v1/corpora/${base}/sources/${id}/cancel`)).status).toBe(
        200,
      )
    }
    s3.open()
    await scheduler().drain()
    for (const r of runs) expect((await runOf(base, r.id)).status).toBe('canceled')
  }, 10_000)

  test('cancel stops the run at once: the page it waits for is abandoned and no other is asked for', async () => {
    const { base, ids } = await endlessSources(1)
    const run = await listing(base, ids[0]!)
    const asked = s3.pages
    expect((await call(t, tenant.token, 'POST', `/v1/corpora/${base}/sources/${ids[0]}/cancel`)).status).toBe(
      200,
    )
    // The next tick sees the cancel and aborts the request in flight; the bucket never answers it.
    await scheduler().step()
    await scheduler().whenSettled(run.job_id!)
    expect(s3.pages).toBe(asked)
    expect((await t.jobs.queue.repo.get(run.job_id!))!.status).toBe('canceled')
    expect(await runOf(base, run.id)).toMatchObject({ status: 'canceled', error: 'The sync was canceled.' })
  })

  test('deleting the source stops its run within one page', async () => {
    const { base, ids } = await endlessSources(1)
    const run = await listing(base, ids[0]!)
    const asked = s3.pages
    expect((await call(t, tenant.token, 'DELETE', `/v1/corpora/${base}/sources/${ids[0]}`)).status).toBe(200)
    // The page in flight is answered; the run stops at its checkpoint before asking for the next.
    s3.release()
    await scheduler().whenSettled(run.job_id!)
    expect(s3.pages).toBe(asked)
    expect((await t.jobs.queue.repo.get(run.job_id!))!.status).toBe('canceled')
  })

  test('a listing that makes no progress ends failed, with what happened in its error', async () => {
    const { base, ids } = await endlessSources(1)
    const run = await startSync(base, ids[0]!)
    await scheduler().drain()
    expect(s3.pages).toBe(100)
    expect(await runOf(base, run.id)).toMatchObject({
      status: 'failed',
      error: "The bucket's listing made no progress after 100 pages.",
    })
  })

  test('a run past sources.max_run_minutes ends failed, saying so', async () => {
    const { base, ids } = await endlessSources(1)
    const run = await listing(base, ids[0]!)
    // The ticks renew the run's lease; its budget counts from its start all the same.
    for (const step of [30_000, 30_000]) {
      t.clock.advance(step)
      await scheduler().step()
    }
    expect((await t.jobs.queue.repo.get(run.job_id!))!.status).toBe('running')
    t.clock.advance(1)
    await scheduler().step()
    await scheduler().whenSettled(run.job_id!)
    expect(await runOf(base, run.id)).toMatchObject({
      status: 'failed',
      error:
        'The run took longer than its time budget of 1 minutes (sources.max_run_minutes) and was stopped; the files it took are kept, and the next sync goes on from there.',
    })
  })
})
