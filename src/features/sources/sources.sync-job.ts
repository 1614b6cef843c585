import type { JobDefinition } from '../../platform/feature/feature'
import { settleSync } from './sources.settle'
import { runSync, SYNC_JOB, type SyncDeps } from './sources.sync'

/**
 * The sync job with its settle hook. It runs in the bulk lane (a listing can take hours, so it never
 * takes the slots kept for extraction and onboarding) and within `sources.max_run_minutes`.
 */
export function syncJob(d: SyncDeps): JobDefinition {
  const minutes = d.config.max_run_minutes
  return {
    kind: SYNC_JOB,
    run: (ctx) => runSync(d, ctx),
    onSettled: (job) => settleSync(d, job),
    lane: 'bulk',
    budget: {
      ms: minutes * 60_000,
      message: `The run took longer than its time budget of ${minutes} minutes (sources.max_run_minutes) and was stopped; the files it took are kept, and the next sync goes on from there.`,
    },
  }
}
