import { afterEach, describe, expect, test } from 'bun:test'
import { holdCaps } from '../../../src/features/ingest/ingest.caps'
import { IngestRepo, MAX_RUN_ERRORS } from '../../../src/features/ingest/ingest.repo'
import { EXTRACT_JOB, type ExtractPayload } from '../../../src/features/ingest/ingest.types'
import { UploadsRepo } from '../../../src/features/ingest/ingest.uploads.repo'
import { enqueueExtraction } from '../../../src/features/ingest/lib/extract-enqueue'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import type { Store } from '../../../src/platform/db/store'
import { Outbox } from '../../../src/platform/events/outbox'
import { JobQueue } from '../../../src/platform/jobs/queue'
import { untilWaiting } from '../../helpers/pg-locks'
import { engines, type OpenStore, seedTenants } from '../../helpers/stores'

// Ingest on the store, on SQLite and on a real PostgreSQL: sync runs and pending push uploads read
// back as written, a failed unit keeps nothing (neither rows nor the events and jobs added in it),
// a run's counters taken by two units at once lose no count and end the run once, a listing is
// closed once, and the plan caps' lock makes a second unit wait for the first (PostgreSQL).

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123 // ms: past what a 32-bit integer holds

function rig(store: Store, seed = 7) {
  const clock = new ManualClock(new Date(T0))
  const random = seededRandom(seed)
  const outbox = new Outbox(store.db, clock, random, store)
  const queue = new JobQueue(store.db, clock, random, store)
  return { outbox, queue, runs: new IngestRepo(store, outbox), uploads: new UploadsRepo(store) }
}

function openRun(id: string, at = T0) {
  return {
    id,
    workspaceId: 'ws_1',
    corpusId: 'crp_1',
    source: 'push' as const,
    sourceId: null,
    jobId: null,
    now: at,
  }
}

function extraction(i: number): ExtractPayload {
  return {
    corpus_id: 'crp_1',
    document_id: `doc_${i}`,
    raw_key: `k/${i}`,
    run_id: 'run_1',
    path: `f${i}.txt`,
  }
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`ingest's repositories on ${engine.name}`, () => {
    async function open() {
      const o = await engine.open()
      opened.push(o)
      await seedTenants(o.store, {
        workspaces: ['ws_1'],
        bases: [{ id: 'crp_1', workspaceId: 'ws_1' }],
        at: T0,
      })
      return { o, store: o.store, ...rig(o.store) }
    }

    /**
     * The repositories as a second flow sees them: another process's connections on PostgreSQL; on
     * SQLite the same store (one process has one writing connection; its units take turns).
     */
    async function second(o: OpenStore) {
      // Its own randomness, as another process has: ids it makes never collide with the first's.
      return rig(engine.name === 'postgres' ? (await o.another()).store : o.store, 8)
    }

    test('runs read back as written, newest first by keyset; a finished one is told as sync.finished', async () => {
      const { store, runs, outbox } = await open()
      await store.unit(async () => {
        await runs.openRun(openRun('run_a', T0))
        await runs.openRun(openRun('run_b', T0 + 5))
        await runs.insertRun({
          ...openRun('run_c', T0 + 5),
          source: 'upload',
          created: 2,
          updated: 0,
          unchanged: 1,
          deleted: 0,
          failed: 1,
          pending: 0,
          errors: [{ path: 'x.txt', document_id: null, error: 'bad' }],
        })
        await runs.setRunJob('run_a', 'job_1')
      })
      const a = await runs.run('crp_1', 'run_a')
      expect(a).toMatchObject({
        status: 'running',
        listing: 1,
        jobId: 'job_1',
        startedAt: T0,
        finishedAt: null,
      })
      expect(await runs.run('crp_1', 'run_c')).toMatchObject({
        status: 'partial',
        created: 2,
        failed: 1,
        finishedAt: T0 + 5,
        errors: '[{"path":"x.txt","document_id":null,"error":"bad"}]',
      })
      expect(await runs.countRuns('crp_1')).toBe(3)
      const all = await runs.runsPage('crp_1', null, null)
      expect(all.map((r) => r.id)).toEqual(['run_c', 'run_b', 'run_a'])
      const page = await runs.runsPage('crp_1', [T0 + 5, 'run_c'], 1)
      expect(page.map((r) => r.id)).toEqual(['run_b', 'run_a'])
      const told = (await outbox.pending()).filter((e) => e.type === 'sync.finished')
      expect(told.map((e) => e.payload)).toEqual([
        {
          corpusId: 'crp_1',
          runId: 'run_c',
          source: 'upload',
          status: 'partial',
          created: 2,
          updated: 0,
          deleted: 0,
          failed: 1,
        },
      ])
    })

    test('a unit that fails keeps no run, no upload, no event and no extraction job', async () => {
      const { store, runs, uploads, outbox, queue } = await open()
      await expect(
        store.unit(async () => {
          await runs.insertRun({
            ...openRun('run_x'),
            created: 1,
            updated: 0,
            unchanged: 0,
            deleted: 0,
            failed: 0,
            pending: 0,
            errors: [],
          })
          await uploads.insertUpload(upload('upl_x', 'sha_x', 'k/x', false, T0))
          await enqueueExtraction(queue, 'ws_1', [extraction(1), extraction(2)], [1, 1])
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      expect(await runs.countRuns('crp_1')).toBe(0)
      expect((await uploads.uploadsByShas('crp_1', ['sha_x'], T0)).size).toBe(0)
      expect(await outbox.pending()).toEqual([])
      expect(await queue.repo.listBySubject('ws_1', 'crp_1')).toEqual([])
    })

    test('extraction jobs are added in the registering unit, 64 documents a job', async () => {
      const { store, queue } = await open()
      const jobs = Array.from({ length: 100 }, (_, i) => extraction(i))
      await store.unit(() =>
        enqueueExtraction(
          queue,
          'ws_1',
          jobs,
          jobs.map(() => 10),
        ),
      )
      const added = await queue.repo.listBySubject('ws_1', 'crp_1')
      expect(added.map((j) => j.kind)).toEqual([EXTRACT_JOB, EXTRACT_JOB])
      const sizes = added.map((j) => (j.payload as { documents: unknown[] }).documents.length).sort()
      expect(sizes).toEqual([36, 64])
      await store.unit(() => enqueueExtraction(queue, 'ws_1', [extraction(7)], [1]))
      expect((await queue.repo.listBySubject('ws_1', 'doc_7'))[0]?.payload).toEqual({ ...extraction(7) })
    })

    test('two units settling one run at once lose no count, and only the last ends it, once', async () => {
      const { o, store, runs, outbox } = await open()
      const other = await second(o)
      await store.unit(async () => {
        await runs.openRun(openRun('run_1'))
        await runs.addToRun('run_1', { created: 3, updated: 0, unchanged: 0, deleted: 0, pending: 3 }, [])
      })
      expect(await runs.closeListing('run_1', T0 + 1)).toMatchObject({ pending: 3 })
      const failure = { path: 'b.txt', document_id: 'doc_b', error: 'unreadable' }
      const settled = await Promise.all([
        runs.settle('run_1', null, T0 + 2),
        other.runs.settle('run_1', failure, T0 + 2),
        other.runs.settleMany('run_1', 1, [], T0 + 3),
      ])
      expect(settled).toEqual([true, true, true])
      const run = await runs.run('crp_1', 'run_1')
      expect(run).toMatchObject({ status: 'partial', pending: 0, failed: 1 })
      expect(run!.finishedAt).toBeGreaterThanOrEqual(T0 + 2)
      expect(JSON.parse(run!.errors)).toEqual([failure])
      expect(await runs.settle('run_1', null, T0 + 4)).toBe(false)
      const ended = (await outbox.pending()).filter((e) => e.type === 'sync.finished')
      expect(ended).toHaveLength(1)
      expect(ended[0]!.payload).toMatchObject({ runId: 'run_1', status: 'partial', created: 3, failed: 1 })
    })

    test('a listing is closed once: of two closes at once one gets the run; a failed end keeps its reason', async () => {
      const { o, store, runs } = await open()
      const other = await second(o)
      await store.unit(async () => {
        await runs.openRun(openRun('run_1'))
        await runs.addToRun('run_1', { created: 1, updated: 0, unchanged: 0, deleted: 0, pending: 1 }, [])
        await runs.openRun(openRun('run_2'))
      })
      const end = { status: 'failed' as const, error: 'stopped' }
      const closes = await Promise.all([
        runs.closeListing('run_1', T0 + 1, end),
        other.runs.closeListing('run_1', T0 + 1, end),
      ])
      expect(closes.filter((r) => r !== null)).toHaveLength(1)
      expect(await runs.run('crp_1', 'run_1')).toMatchObject({
        status: 'failed',
        error: 'stopped',
        listing: 0,
        pending: 1,
      })
      // run_2's commit is open: listed as such, and ended once. An interrupted commit is ended only
      // while its listing is open: run_3's closed (its documents pending), so it runs on.
      await store.unit(async () => {
        await runs.openRun(openRun('run_3'))
        await runs.addToRun('run_3', { created: 1, updated: 0, unchanged: 0, deleted: 0, pending: 1 }, [])
      })
      expect((await runs.closeListing('run_3', T0 + 2))?.status).toBe('running')
      expect(await runs.openCommits()).toEqual(['run_2'])
      expect(await runs.closeListing('run_2', T0 + 2, end, { openOnly: true })).not.toBeNull()
      expect(await runs.closeListing('run_2', T0 + 3, end, { openOnly: true })).toBeNull()
      expect(await runs.closeListing('run_3', T0 + 3, end, { openOnly: true })).toBeNull()
      expect(await runs.openCommits()).toEqual([])
      expect(await runs.run('crp_1', 'run_2')).toMatchObject({ status: 'failed', finishedAt: T0 + 2 })
      expect(await runs.run('crp_1', 'run_3')).toMatchObject({ status: 'running', listing: 0 })
    })

    test('a run lists at most MAX_RUN_ERRORS errors and keeps counting failures', async () => {
      const { store, runs } = await open()
      const many = Array.from({ length: MAX_RUN_ERRORS + 5 }, (_, i) => ({
        path: `f${i}`,
        document_id: null,
        error: 'no',
      }))
      await store.unit(async () => {
        await runs.openRun(openRun('run_1'))
        await runs.addToRun('run_1', { created: 0, updated: 0, unchanged: 0, deleted: 0, pending: 1 }, many)
      })
      await runs.settle('run_1', { path: 'last', document_id: null, error: 'no' }, T0 + 1)
      const run = await runs.run('crp_1', 'run_1')
      expect(run?.failed).toBe(MAX_RUN_ERRORS + 6)
      expect(JSON.parse(run!.errors)).toHaveLength(MAX_RUN_ERRORS)
    })

    test('pending uploads: by content newest and verified first, held while live, swept once expired', async () => {
      const { store, uploads } = await open()
      await store.unit(async () => {
        await uploads.insertUpload(upload('upl_1', 'sha_a', 'k/1', false, T0))
        await uploads.insertUpload(upload('upl_2', 'sha_a', 'k/2', false, T0 + 1))
        await uploads.insertUpload(upload('upl_3', 'sha_a', 'k/3', true, T0))
        await uploads.insertUpload(upload('upl_4', 'sha_b', 'k/4', false, T0, T0 + 10))
      })
      const live = await uploads.uploadsByShas('crp_1', ['sha_a', 'sha_b', 'sha_c'], T0 + 5)
      expect(live.get('sha_a')?.map((u) => u.id)).toEqual(['upl_3', 'upl_2', 'upl_1'])
      expect(live.get('sha_b')?.[0]).toMatchObject({
        objectKey: 'k/4',
        size: 4,
        verified: 0,
        expiresAt: T0 + 10,
      })
      expect(live.has('sha_c')).toBe(false)
      expect(await uploads.uploadHolds('k/4', T0 + 5)).toBe(true)
      expect(await uploads.uploadHolds('k/4', T0 + 10)).toBe(false)
      await store.unit(() => uploads.deleteUploadsByKeys(['k/2', 'k/9']))
      expect((await uploads.uploadsByShas('crp_1', ['sha_a'], T0)).get('sha_a')?.map((u) => u.id)).toEqual([
        'upl_3',
        'upl_1',
      ])
      expect(await uploads.deleteExpiredUploads(T0 + 10)).toBe(1)
      expect(await uploads.deleteExpiredUploads(T0 + 10)).toBe(0)
    })

    test("the caps' lock: a second unit of the workspace holds it only once the first has committed", async () => {
      const { o, store, runs } = await open()
      if (engine.name === 'sqlite') {
        // No lock to take: a unit begun while another is open waits for the one write lock.
        const order: string[] = []
        const first = store.unit(async () => {
          await holdCaps(store, 'ws_1')
          order.push('first holds')
          await runs.countRuns('crp_1')
          order.push('first commits')
        })
        const waiting = store.unit(async () => {
          await holdCaps(store, 'ws_1')
          order.push('second holds')
        })
        await Promise.all([first, waiting])
        expect(order).toEqual(['first holds', 'first commits', 'second holds'])
        return
      }
      {
        const second = (await o.another()).store
        const watcher = (await o.another()).store
        const order: string[] = []
        let release!: () => void
        const held = new Promise<void>((r) => {
          release = r
        })
        let taken!: () => void
        const first = store.unit(async () => {
          await holdCaps(store, 'ws_1')
          order.push('first holds')
          taken()
          await held
          order.push('first commits')
        })
        await new Promise<void>((r) => {
          taken = r
        })
        const waiting = second.unit(async () => {
          await holdCaps(second, 'ws_1')
          order.push('second holds')
        })
        // PostgreSQL shows the second lock as waiting: the first still holds it.
        expect(await untilWaiting(watcher)).toBe(1)
        expect(order).toEqual(['first holds'])
        release()
        await Promise.all([first, waiting])
        expect(order).toEqual(['first holds', 'first commits', 'second holds'])
      }
    })
  })
}

function upload(
  id: string,
  sha256: string,
  key: string,
  verified: boolean,
  at: number,
  expiresAt = at + 86_400_000,
) {
  return { id, workspaceId: 'ws_1', corpusId: 'crp_1', sha256, size: 4, key, verified, now: at, expiresAt }
}
