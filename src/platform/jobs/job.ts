// What a job is: its statuses, its decoded form, and the row it is stored as. Shared by the queue
// (enqueue, reads, cancel, aggregates) and the leases (claims, heartbeats, recovery).

/** A job's place in its public lifecycle; the last three are terminal. */
export type JobStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'canceled'

/** A job as the queue sees it (payload and result decoded). */
export interface Job {
  id: string
  workspaceId: string
  subjectId: string | null
  parentId: string | null
  kind: string
  status: JobStatus
  payload: Record<string, unknown>
  result: unknown
  detail: string | null
  error: string | null
  unitsDone: number
  unitsTotal: number
  attempts: number
  maxAttempts: number
  runAt: number
  leaseOwner: string | null
  leaseUntil: number | null
  cancelRequested: boolean
  createdAt: number
  startedAt: number | null
  finishedAt: number | null
  updatedAt: number
}

/**
 * Job kinds a feature lets callers follow by id (`GET /jobs/{job_id}`, a route of onboarding's),
 * and the base a job of them works on: null when it is gone, and the job with it.
 */
export interface ReadableJobs {
  kinds: readonly string[]
  corpusOf(job: Job): string | null
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

/** A `jobs` row as bun:sqlite returns it (payload and result still JSON text). */
export interface Row {
  id: string
  workspace_id: string
  subject_id: string | null
  parent_id: string | null
  kind: string
  status: JobStatus
  payload: string
  result: string | null
  detail: string | null
  error: string | null
  units_done: number
  units_total: number
  attempts: number
  max_attempts: number
  run_at: number
  lease_owner: string | null
  lease_until: number | null
  cancel_requested: number
  created_at: number
  started_at: number | null
  finished_at: number | null
  updated_at: number
}

const TERMINAL: readonly JobStatus[] = ['succeeded', 'failed', 'canceled']

/** True for a status a job never leaves. */
export function isTerminal(s: JobStatus): boolean {
  return TERMINAL.includes(s)
}

/** The job a row stores, payload and result decoded. */
export function decode(r: Row): Job {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    subjectId: r.subject_id,
    parentId: r.parent_id,
    kind: r.kind,
    status: r.status,
    payload: JSON.parse(r.payload) as Record<string, unknown>,
    result: r.result === null ? null : JSON.parse(r.result),
    detail: r.detail,
    error: r.error,
    unitsDone: r.units_done,
    unitsTotal: r.units_total,
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    runAt: r.run_at,
    leaseOwner: r.lease_owner,
    leaseUntil: r.lease_until,
    cancelRequested: r.cancel_requested === 1,
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    updatedAt: r.updated_at,
  }
}
