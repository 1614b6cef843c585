// The sync job's settle hook, kept synchronous SQLite: the platform calls a settle hook without
// awaiting it (jobs/run-job.ts), so its reads and writes must land before it returns. It writes what
// endRun and scheduleNext (sources.sync.ts) write, on the synchronous connection and queue.

import type { Job } from '../../platform/jobs/queue'
import type { SourceRow } from './sources.repo'
import { nextSyncJob, type SyncDeps, type SyncPayload } from './sources.sync'

/** A sync that failed for good or was canceled ends its run with the reason. */
export function settleSync(d: SyncDeps, job: Job): void {
  if (job.status !== 'failed' && job.status !== 'canceled') return
  const p = job.payload as unknown as SyncPayload
  const source = d.repo.sourceByIdNow(p.source_id)
  if (!source) return
  const runId = p.run_id ?? source.currentRunId
  const run = runId ? d.ingest.runById(source.corpusId, runId) : null
  if (!runId || run?.listing !== 1 || run.jobId !== job.id) return
  d.ingest.closeSourceRun(runId, {
    status: job.status,
    error: job.status === 'canceled' ? 'The sync was canceled.' : (job.error ?? 'The sync failed.'),
  })
  const fresh = d.repo.sourceByIdNow(source.id)
  if (!fresh) return
  const next = { ...fresh, lastRunId: runId, updatedAt: d.clock.now().getTime() }
  if (fresh.currentRunId === runId) next.currentRunId = null
  scheduleNextNow(d, next)
}

/** scheduleNext on the synchronous queue and connection. */
function scheduleNextNow(d: SyncDeps, source: SourceRow): void {
  let next = source
  if (source.mode === 'sync') {
    if (source.nextJobId) {
      const queued = d.queue.get(source.nextJobId)
      if (queued?.status === 'pending') d.queue.requestCancel(queued.id)
    }
    next = { ...source, nextJobId: null, nextSyncAt: null }
    const spec = nextSyncJob(source, d.clock.now().getTime())
    if (spec) next = { ...next, nextJobId: d.queue.enqueue(spec).id, nextSyncAt: spec.runAt }
  }
  d.repo.updateSourceNow(next)
}
