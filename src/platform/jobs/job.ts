// What a job is: its statuses, its decoded form, and the row it is stored as. Shared by the queue
// (enqueue, reads, cancel, aggregates) and the leases (claims, heartbeats, recovery).
import type { jobs } from './jobs.tables'

/** A job's place in its public lifecycle; the last three are terminal. */
export type JobStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'canceled'

/** A job as the queue sees it: its `jobs` row with payload and result decoded. */
export type Job = Omit<typeof jobs.$inferSelect, 'payload' | 'result'> & {
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

/**
 * A `jobs` row as the queue's statements read it (`SELECT ${JOB_COLUMNS}`): payload and result still
 * JSON text, and the boolean column as SQLite stores it (0 or 1), which bun:sqlite does not convert.
 */
export type JobRow = Omit<typeof jobs.$inferSelect, 'cancelRequested'> & { cancelRequested: number }

/** The columns of a `jobs` row under their JS keys (jobs.tables.ts), as JobRow reads them. */
export const JOB_COLUMNS = `id, workspace_id AS workspaceId, subject_id AS subjectId, parent_id AS parentId, kind, status,
  payload, result, detail, error, units_done AS unitsDone, units_total AS unitsTotal, attempts,
  max_attempts AS maxAttempts, run_at AS runAt, lease_owner AS leaseOwner, lease_until AS leaseUntil,
  cancel_requested AS cancelRequested, created_at AS createdAt, started_at AS startedAt,
  finished_at AS finishedAt, updated_at AS updatedAt`

const TERMINAL: readonly JobStatus[] = ['succeeded', 'failed', 'canceled']

/** True for a status a job never leaves. */
export function isTerminal(s: JobStatus): boolean {
  return TERMINAL.includes(s)
}

/** The job a row stores, payload and result decoded. */
export function decode(r: JobRow): Job {
  return {
    ...r,
    payload: JSON.parse(r.payload) as Record<string, unknown>,
    result: r.result === null ? null : JSON.parse(r.result),
    cancelRequested: r.cancelRequested === 1,
  }
}
