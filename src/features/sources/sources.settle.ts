// The sync job's settle hook: the scheduler awaits it (jobs/run-job.ts), so it ends the run as
// endRun does, in a unit on the store (the run, the source and its next scheduled sync together).

import type { Job } from '../../platform/jobs/queue'
import { endRun, type SyncDeps, type SyncPayload } from './sources.sync'

/** A sync that failed for good or was canceled ends its run with the reason. */
export async function settleSync(d: SyncDeps, job: Job): Promise<void> {
  if (job.status !== 'failed' && job.status !== 'canceled') return
  const p = job.payload as unknown as SyncPayload
  const source = await d.repo.sourceById(p.source_id)
  if (!source) return
  const runId = p.run_id ?? source.currentRunId
  const run = runId ? await d.ingest.runById(source.corpusId, runId) : null
  if (!runId || run?.listing !== 1 || run.jobId !== job.id) return
  await endRun(d, source.id, runId, {
    status: job.status,
    error: job.status === 'canceled' ? 'The sync was canceled.' : (job.error ?? 'The sync failed.'),
  })
}
