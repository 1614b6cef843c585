import { describe, expect, test } from 'bun:test'
import { BATCH_KIND, RUN_KIND } from '../../src/features/onboarding/onboarding.jobs'
import { jobResp } from '../../src/features/onboarding/onboarding.schemas'
import type { Job } from '../../src/platform/jobs/job'
import type { JobQueue } from '../../src/platform/jobs/queue'

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
  }
}

/** A queue holding a run's batches, counting how often their rows are read. */
function queueOf(batches: Job[]) {
  const reads = { children: 0 }
  const ended = (j: Job) => ['succeeded', 'failed', 'canceled'].includes(j.status)
  const queue = {
    children: () => {
      reads.children++
      return batches
    },
    childTotals: () => ({
      children: batches.length,
      ended: batches.filter(ended).length,
      unitsTotal: 10 * batches.length,
      unitsDone: 0,
    }),
  } as unknown as JobQueue
  return { queue, reads }
}

describe("a run's job as polled", () => {
  test("counts the failed units of its ended batches, reading the batches' rows again only when another ends", () => {
    const batches = [
      job('b1', BATCH_KIND, 'succeeded', { failed: 2 }),
      job('b2', BATCH_KIND, 'running'),
      job('b3', BATCH_KIND, 'pending'),
    ]
    const { queue, reads } = queueOf(batches)
    const run = job(`job_run_${crypto.randomUUID()}`, RUN_KIND, 'running')
    for (let poll = 0; poll < 5; poll++) expect(jobResp(queue, run, 1000, 'cor_1').units_failed).toBe(2)
    expect(reads.children).toBe(1)
    batches[1] = job('b2', BATCH_KIND, 'succeeded', { failed: 1 })
    expect(jobResp(queue, run, 2000, 'cor_1').units_failed).toBe(3)
    expect(jobResp(queue, run, 2000, 'cor_1').units_failed).toBe(3)
    expect(reads.children).toBe(2)
    // Once the run has ended its own figures say it.
    const ended = { ...run, status: 'succeeded' as const, result: { failed: 4 } }
    expect(jobResp(queue, ended, 3000, 'cor_1').units_failed).toBe(4)
  })
})
