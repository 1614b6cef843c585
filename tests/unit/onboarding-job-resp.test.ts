import { describe, expect, test } from 'bun:test'
import { migrations } from '../../migrations/index'
import { BATCH_KIND, RUN_KIND } from '../../src/features/onboarding/onboarding.jobs'
import { jobResp } from '../../src/features/onboarding/onboarding.schemas'
import { ManualClock } from '../../src/platform/clock/clock'
import { seededRandom } from '../../src/platform/crypto/random'
import { openDatabase } from '../../src/platform/db/db'
import { migrate } from '../../src/platform/db/migrate'
import type { Job } from '../../src/platform/jobs/job'
import { JobQueue } from '../../src/platform/jobs/queue'

/** A job as the queue gives it. */
function job(id: string, kind: string, status: Job['status'], result: unknown = null): Job {
  return {
    id,
    workspaceId: 'ws_1',
    subjectId: 'cor_1',
    parentId: kind === BATCH_KIND ? 'job_run' : null,
    kind,
    status,
    payload: {},
    result,
    detail: null,
    error: null,
    unitsDone: 0,
    unitsTotal: 10,
    attempts: 1,
    maxAttempts: 3,
    runAt: 0,
    leaseOwner: null,
    leaseUntil: null,
    cancelRequested: false,
    createdAt: 0,
    startedAt: 0,
    finishedAt: null,
    updatedAt: 0,
    seq: 1,
  }
}

/** A queue holding a run's batches, counting how often their rows are read. */
function queueOf(batches: Job[]) {
  const reads = { children: 0 }
  const ended = (j: Job) => ['succeeded', 'failed', 'canceled'].includes(j.status)
  const repo = {
    children: async () => {
      reads.children++
      return batches
    },
    childTotals: async (_: string, field?: string) => ({
      children: batches.length,
      ended: batches.filter(ended).length,
      unitsTotal: 10 * batches.length,
      unitsDone: 0,
      resultSum: field
        ? batches.reduce((n, b) => n + Number((b.result as Record<string, number> | null)?.[field] ?? 0), 0)
        : 0,
    }),
  }
  const queue = { repo } as unknown as JobQueue
  return { queue, reads }
}

describe("a run's job as polled", () => {
  test("counts the failed units of its ended batches without reading the batches' rows (their units' ids)", async () => {
    const batches = [
      job('b1', BATCH_KIND, 'succeeded', { failed: 2 }),
      job('b2', BATCH_KIND, 'running'),
      job('b3', BATCH_KIND, 'pending'),
    ]
    const { queue, reads } = queueOf(batches)
    const run = job(`job_run_${crypto.randomUUID()}`, RUN_KIND, 'running')
    for (let poll = 0; poll < 5; poll++)
      expect((await jobResp(queue, run, 1000, 'cor_1')).units_failed).toBe(2)
    expect(reads.children).toBe(0)
    batches[1] = job('b2', BATCH_KIND, 'succeeded', { failed: 1 })
    expect((await jobResp(queue, run, 2000, 'cor_1')).units_failed).toBe(3)
    expect((await jobResp(queue, run, 2000, 'cor_1')).units_failed).toBe(3)
    expect(reads.children).toBe(0)
    // Once the run has ended its own figures say it.
    const ended = { ...run, status: 'succeeded' as const, result: { failed: 4 } }
    expect((await jobResp(queue, ended, 3000, 'cor_1')).units_failed).toBe(4)
  })
})

describe("a queue's sums over an aggregate's children", () => {
  test('sum a field of their results in the query, as decoding each result would (none, or one without it, counts 0)', async () => {
    const db = openDatabase(':memory:')
    migrate(db, migrations)
    const queue = new JobQueue(db, new ManualClock('2026-05-01T00:00:00Z'), seededRandom(1))
    const run = await queue.store.unit(() =>
      queue.add({ workspaceId: 'ws_1', subjectId: 'cor_1', kind: RUN_KIND, payload: {} }),
    )
    const results = [{ failed: 2, units: 5 }, { units: 3 }, null, { failed: 1 }]
    for (const [i, result] of results.entries()) {
      const child = await queue.store.unit(() =>
        queue.add({
          workspaceId: 'ws_1',
          subjectId: 'cor_1',
          kind: BATCH_KIND,
          payload: { i },
          parentId: run.id,
        }),
      )
      if (result)
        db.$client.query('UPDATE jobs SET result = ? WHERE id = ?').run(JSON.stringify(result), child.id)
    }
    const decoded = (await queue.repo.children(run.id)).reduce(
      (n, c) => n + Number((c.result as { failed?: number } | null)?.failed ?? 0),
      0,
    )
    expect((await queue.repo.childTotals(run.id, 'failed')).resultSum).toBe(decoded)
    expect(decoded).toBe(3)
    expect(await queue.repo.childTotals(run.id)).toMatchObject({ children: 4, resultSum: 0 })
    expect(await queue.repo.childTotals('job_none', 'failed')).toMatchObject({
      children: 0,
      ended: 0,
      resultSum: 0,
    })
  })
})
