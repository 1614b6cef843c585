// The API's shapes of connections, sources, their sync runs and imports (snake_case, as on the
// wire: src/features/sources/sources.schemas.ts and src/features/ingest/ingest.schemas.ts).

/** Workspace-level credentials for one kind of source (`ConnectionResp`); secrets never come back. */
export interface Connection {
  id: string
  kind: string
  name: string
  settings: Record<string, unknown>
  /** Secret fields that hold a value (their values are write-only). */
  secrets_set: string[]
  /** Sources and imports using it. */
  sources: number
  created_at: string
  updated_at: string
}

/** One file a run could not take (`RunError`). */
export interface RunError {
  path: string
  document_id: string | null
  error: string
}

/** A sync run: of a source, an import, an upload or a push (`SyncRunResp`). */
export interface SyncRun {
  id: string
  corpus_id: string
  /** `upload`, `push`, `sync` or `import`. */
  source: string
  /** `running`, `succeeded`, `partial`, `failed` or `canceled`. */
  status: string
  created: number
  updated: number
  unchanged: number
  deleted: number
  failed: number
  pending: number
  errors: RunError[]
  error: string | null
  source_id: string | null
  job_id: string | null
  started_at: string
  finished_at: string | null
}

/** A base kept in step with a folder through a connection (`SourceResp`). */
export interface Source {
  id: string
  corpus_id: string
  connection_id: string
  kind: string
  name: string
  folder: string
  path_prefix: string
  interval_minutes: number | null
  next_sync_at: string | null
  /** A sync is listing the source now. */
  syncing: boolean
  current_run: SyncRun | null
  last_run: SyncRun | null
  created_at: string
  updated_at: string
}

/** `POST .../validate` when a sync could run. */
export interface ValidateResp {
  ok: true
  kind: string
  folder: string
  checked_at: string
}

/** The base's latest import (`ImportStatusResp`); `state: none` before any. */
export interface ImportStatus {
  /** `none`, `running`, `succeeded`, `partial`, `failed` or `canceled`. */
  state: string
  id?: string
  connection_id?: string
  kind?: string
  folder?: string
  run?: SyncRun | null
  started_at?: string
  finished_at?: string | null
}

/** A run that will not change any more. */
export function runEnded(run: SyncRun | null | undefined): boolean {
  return !!run && run.status !== 'running'
}
