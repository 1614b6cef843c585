// The rows of ingest's tables as bun:sqlite returns them.

/** A sync run row. */
export interface SyncRunRow {
  id: string
  workspace_id: string
  corpus_id: string
  source: string
  status: 'running' | 'succeeded' | 'partial' | 'failed' | 'canceled'
  source_id: string | null
  job_id: string | null
  listing: number
  error: string | null
  created: number
  updated: number
  unchanged: number
  deleted: number
  failed: number
  pending: number
  errors: string
  started_at: number
  finished_at: number | null
}

/** A push upload waiting for its commit. */
export interface UploadRow {
  id: string
  workspace_id: string
  corpus_id: string
  sha256: string
  size: number
  object_key: string
  verified: number
  created_at: number
  expires_at: number
}

/** One per-document failure listed on a run. */
export interface RunError {
  path: string
  document_id: string | null
  error: string
  /** Why, as an error code, when one applies (`plan_limit_reached`: the plan's cap left the file out). */
  code?: string
}
