// The API's shapes of document bases, their documents and onboarding jobs (snake_case, as on the
// wire: src/features/corpora/corpora.schemas.ts and src/features/onboarding/onboarding.schemas.ts).

/** A document base (`CorpusResp`). */
export interface Corpus {
  id: string
  name: string
  source_type: string
  /** `new`, `training`, `ready` or `failed`. */
  status: string
  n_documents: number
  documents_ready: number
  documents_onboarding: number
  documents_failed: number
  last_synced_at: string | null
  description: string | null
  created_at: string
  updated_at: string
}

/** A file of a base, or one of its sections (`parent_id` set) (`DocumentResp`). */
export interface Doc {
  id: string
  corpus_id: string
  /** Relative path of the file in the base. */
  filename: string
  size: number
  content_type: string | null
  sha256: string | null
  /** `pending`, `onboarding`, `ready` or `failed`. */
  status: string
  error: string | null
  section_count: number
  parent_id: string | null
  cart_id: string | null
  title: string | null
  /** `upload`, `push` or `import`. */
  source: string
  created_at: string
  updated_at: string
}

/** An onboarding run (`train`), one of its batches (`train_batch`) or an `embed` job (`JobResp`). */
export interface Job {
  id: string
  corpus_id: string
  parent_id: string | null
  kind: string
  /** `pending`, `running`, `succeeded`, `failed` or `canceled`. */
  status: string
  /** 0..1 */
  progress: number
  /** Estimated seconds left; null until measurable. */
  eta_seconds: number | null
  detail: string | null
  error: string | null
  created_at: string
  started_at: string | null
  finished_at: string | null
}

/** A job that will not change any more. */
export function isFinished(job: Job): boolean {
  return job.status === 'succeeded' || job.status === 'failed' || job.status === 'canceled'
}
