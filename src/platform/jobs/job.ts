// What a job is: its statuses, its decoded form, and the row it is stored as. Shared by the queue
// (enqueue, reads, cancel, aggregates) and the leases (claims, heartbeats, recovery).
import type { jobs } from './jobs.tables'

/** A job's place in its public lifecycle; the last three are terminal. */
export type JobStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'canceled'

/** A `jobs` row as stored (payload and result as JSON text). */
export type JobRow = typeof jobs.$inferSelect

/** A job as the queue sees it: its `jobs` row with payload and result decoded. */
export type Job = Omit<JobRow, 'payload' | 'result'> & {
  payload: Record<string, unknown>
  result: unknown
}

/**
 * Job kinds a feature lets callers follow by id (`GET /jobs/{job_id}`, a route of onboarding's),
 * and the base a job of them works on: null when it is gone, and the job with it.
 */
export interface ReadableJobs {
  kinds: readonly string[]
  corpusOf(job: Job): string | null | Promise<string | null>
}

/** What a new job needs; aggregates are created `running` and never claimed. */
export interface NewJob {
  workspaceId: string
  kind: string
  subjectId?: string | null
  parentId?: string | null
  payload?: Record<string, unknown>
  maxAttempts?: number
  unitsTotal?: number
  detail?: string | null
  /** `running` for an aggregate that only tracks children. */
  status?: 'pending' | 'running'
  /** When the job becomes due (epoch ms); now by default (a scheduled sync: later). */
  runAt?: number
}

const TERMINAL: readonly JobStatus[] = ['succeeded', 'failed', 'canceled']

/** True for a status a job never leaves. */
export function isTerminal(s: JobStatus): boolean {
  return TERMINAL.includes(s)
}
