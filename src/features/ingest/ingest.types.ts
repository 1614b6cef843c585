import type { Clock } from '../../platform/clock/clock'
import type { Config } from '../../platform/config/config.load'
import type { Random } from '../../platform/crypto/random'
import type { Store } from '../../platform/db/store'
import type { Outbox } from '../../platform/events/outbox'
import type { JobQueue } from '../../platform/jobs/queue'
import type { Logger } from '../../platform/log/log'
import type { ObjectStore } from '../../platform/storage/object-store'
import type { CorporaService, DocumentRow, TextAtUpload } from '../corpora/corpora.service'
import type { PlansService } from '../plans/plans.service'
import type { ExtractInput, ExtractResult } from './extract/extract'
import type { SyncRunRow } from './ingest.repo'

/** The job kind that extracts the text of one document. */
export const EXTRACT_JOB = 'ingest.extract'

/** What an extraction job is given. */
export interface ExtractPayload {
  corpus_id: string
  document_id: string
  raw_key: string
  run_id: string
  path: string
}

/**
 * What an extraction job of several documents is given: those one request (or batch) registered
 * into one run, extracted together with one flush of their sidecars and one transaction.
 */
export interface ExtractBatchPayload {
  corpus_id: string
  run_id: string
  documents: { document_id: string; raw_key: string; path: string }[]
}

export interface IngestDeps {
  /** Where ingest's rows live (either engine); every write is a unit on it. */
  store: Store
  clock: Clock
  random: Random
  log: Logger
  config: Config['ingest']
  objects: ObjectStore
  corpora: CorporaService
  queue: JobQueue
  /** Documents created and updated, and sync runs that end, are told as domain events. */
  events: Outbox
  /** Documents and stored bytes are held to the workspace's plan (ingest.caps.ts). */
  plans: Pick<PlansService, 'capsOf' | 'ensureRoom'>
  /** Where documents are extracted; by default child processes capped at `config.extract_memory_mb`. */
  extractor?: Extractor
}

/** Extracts one document's text (an `ExtractSandbox`, or a stand-in in tests). */
export interface Extractor {
  extract(input: ExtractInput): Promise<ExtractResult>
  /**
   * Extracts a file now when it is read in this process anyway (a small plain file), else null: an
   * upload reads those as it stores them (lib/extract-steps.ts `readOnUpload`).
   */
  extractHere?(input: ExtractInput): Promise<ExtractResult | null>
}

/** A file whose bytes are stored, ready to be registered as a document. */
export interface Incoming {
  path: string
  sha256: string
  size: number
  contentType: string | null
  rawKey: string
  /** Its text, read as it was uploaded (lib/extract-steps.ts `readOnUpload`): registered extracted, no job. */
  text?: UploadText
}

/** A small file's text read as it was uploaded: what its row records (`TextAtUpload`). */
export type UploadText = Omit<TextAtUpload, 'key'> & {
  /** Where the text is: its sidecar; null when it is the file itself (the row's raw key serves). */
  key: string | null
}

/** What registering a batch did. */
export interface Registered {
  /** The parent row of each incoming file, in order. */
  docs: DocumentRow[]
  /** What happened to each incoming file, in order. */
  results: ('created' | 'updated' | 'unchanged')[]
  run: SyncRunRow
}

/** A small file's text read as it was uploaded, and its sidecar's bytes (null: the text is the file). */
export interface ReadOnUpload {
  text: Omit<UploadText, 'key' | 'bytes'>
  sidecar: Uint8Array | null
  /** Its cartridge id is the file's (one section, the file itself), from the SHA-256 its write computes. */
  cartOfFile: boolean
}
