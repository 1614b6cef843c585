import type { Actor } from '../../platform/auth/principal'
import { iso } from '../../platform/clock/clock'
import { newId } from '../../platform/crypto/random'
import { notFound } from '../../platform/errors/errors'
import type { JobDefinition } from '../../platform/feature/feature'
import { keysetPage, type PageRequest } from '../../platform/paging/paging'
import type { DocumentPurger } from '../corpora/corpora.service'
import { type AcceptedType, acceptedTypes } from './extract/extract.detect'
import { ExtractSandbox } from './extract/extract.sandbox'
import { ensureRoomAhead } from './ingest.caps'
import { extractionJob } from './ingest.jobs'
import { type RegisterBatch, Registrar } from './ingest.registrar'
import type { RunError, SyncRunRow } from './ingest.repo'
import type { Extractor, IngestDeps, Registered } from './ingest.types'
import { closeInterruptedCommits } from './lib/commit-leases'
import { normalizePrefix } from './lib/paths'
import { pushProtocol } from './lib/push'
import type { PushProtocol } from './lib/push-manifest'
import { type DocumentText, type RawFile, readRaw, readText } from './lib/reading'
import { reextractStale } from './lib/reextract'
import { SourceFiles } from './lib/source-files'
import { type OrphanSweep, type OrphanSweepOptions, objectsPurger, sweepOrphans } from './lib/sweep'
import { uploadFiles } from './lib/upload'
import { type UpsertBody, upsertDocument } from './lib/upsert'

export type { SyncRunRow }

/** The wire shape of a sync run. */
export function syncRunResp(r: SyncRunRow) {
  return {
    id: r.id,
    corpus_id: r.corpusId,
    source: r.source,
    status: r.status,
    created: r.created,
    updated: r.updated,
    unchanged: r.unchanged,
    deleted: r.deleted,
    failed: r.failed,
    pending: r.pending,
    errors: JSON.parse(r.errors) as RunError[],
    error: r.error,
    source_id: r.sourceId,
    job_id: r.jobId,
    started_at: iso(new Date(r.startedAt)),
    finished_at: r.finishedAt === null ? null : iso(new Date(r.finishedAt)),
  }
}

/**
 * Ingestion, the feature's face: uploads, the push protocol and upserts store raw files and
 * register documents (through the `Registrar`, which they share with the extraction job); each new
 * content gets an extraction job; sync runs count what happened.
 */
export class IngestService {
  readonly push: PushProtocol
  /** The extraction job and its settle hook, for the scheduler. */
  readonly extraction: JobDefinition
  /** Forgets deleted documents' objects, sidecars and extraction jobs (corpora calls it on delete). */
  readonly purger: DocumentPurger
  private readonly registrar: Registrar
  /** What the upload, push, upsert and sweep modules work with. */
  private readonly context: IngestDeps & { registrar: Registrar; extractor: Extractor }
  /** Told as each upload begins (onUpload). */
  private readonly uploadListeners: ((workspaceId: string, corpusId: string) => void)[] = []

  constructor(private readonly deps: IngestDeps) {
    this.registrar = new Registrar(deps)
    const extractor = deps.extractor ?? defaultExtractor(deps)
    this.context = { ...deps, registrar: this.registrar, extractor }
    this.push = pushProtocol(this.context)
    this.extraction = extractionJob({ ...this.context, maxExtractBytes: deps.config.max_extract_bytes })
    this.purger = objectsPurger(this.context)
  }

  /** Every kind of file extraction reads, with its content type and file name endings. */
  acceptedTypes(): AcceptedType[] {
    return acceptedTypes()
  }

  /**
   * Calls `listener` as each upload to a base begins, before its bytes are read: onboarding readies
   * the engine for the run that follows while the files are stored and extracted.
   */
  onUpload(listener: (workspaceId: string, corpusId: string) => void): void {
    this.uploadListeners.push(listener)
  }

  /** `POST /corpora/{id}/documents`: stores every file of a multipart request, then registers them all. */
  async upload(workspaceId: string, corpusId: string, request: Request): Promise<Registered> {
    await this.deps.corpora.get(workspaceId, corpusId)
    for (const listener of this.uploadListeners) listener(workspaceId, corpusId)
    return uploadFiles(this.context, workspaceId, corpusId, request)
  }

  /** `POST /v1/corpora/{id}/documents/upsert`: one document by path with its content in the body. */
  async upsert(workspaceId: string, corpusId: string, body: UpsertBody): Promise<Registered> {
    await this.deps.corpora.get(workspaceId, corpusId)
    return upsertDocument(this.context, workspaceId, corpusId, body)
  }

  /**
   * A window of a document's extracted text (by its id or a section's) with its pages and sections;
   * 409 `document_not_ready` while it has none.
   */
  readText(
    workspaceId: string,
    corpusId: string,
    documentId: string,
    window: { offset?: number; limit?: number },
  ): Promise<DocumentText> {
    return readText(this.deps, workspaceId, corpusId, documentId, window)
  }

  /** A document's original file as a stream; the download is told as `document.downloaded` (audit). */
  readRaw(workspaceId: string, corpusId: string, documentId: string, actor: Actor): Promise<RawFile> {
    return readRaw(this.deps, workspaceId, corpusId, documentId, actor)
  }

  /** Sync runs of a base, newest first (page null: all). */
  async runs(workspaceId: string, corpusId: string, page: PageRequest | null) {
    await this.deps.corpora.get(workspaceId, corpusId)
    const total = await this.registrar.repo.countRuns(corpusId)
    const rows = await this.registrar.repo.runsPage(corpusId, page?.after ?? null, page?.limit ?? null)
    if (!page) return { items: rows.map(syncRunResp), total, nextCursor: null }
    return keysetPage(rows, page.limit, (r) => [r.startedAt, r.id], syncRunResp, total)
  }

  /** One sync run of a base; another base's or workspace's run is a 404. */
  async run(workspaceId: string, corpusId: string, runId: string): Promise<SyncRunRow> {
    await this.deps.corpora.get(workspaceId, corpusId)
    const run = await this.registrar.repo.run(corpusId, runId)
    if (!run) throw notFound('Sync run')
    return run
  }

  /** Opens the run of a source's sync (or import); it stays running until `closeSourceRun`. A unit. */
  openSourceRun(
    workspaceId: string,
    corpusId: string,
    r: { sourceId: string; jobId: string | null; mode: 'sync' | 'import' },
  ): Promise<SyncRunRow> {
    const id = newId(this.deps.random, 'run')
    return this.deps.store.unit(async () => {
      await this.registrar.repo.openRun({
        ...r,
        id,
        workspaceId,
        corpusId,
        source: r.mode,
        now: this.registrar.now(),
      })
      return (await this.registrar.repo.run(corpusId, id))!
    })
  }

  /** Names the job that lists a source for its run (a run opened before its job was queued). A unit. */
  attachRunJob(runId: string, jobId: string): Promise<void> {
    return this.deps.store.unit(() => this.registrar.repo.setRunJob(runId, jobId))
  }

  /** The canonical form of a path prefix in the base ('' or ending in `/`); 422 `invalid_path` otherwise. */
  documentPrefix(raw: string | undefined): string {
    return normalizePrefix(raw)
  }

  /** Where a batch of a source's sync stores the files it fetched (packs of small files, one flush). */
  sourceFiles(workspaceId: string, corpusId: string): SourceFiles {
    return new SourceFiles(this.context, workspaceId, corpusId)
  }

  /**
   * Refuses (403 `plan_limit_reached`) when the workspace is at its plan's documents or storage cap
   * already: an import is refused before it starts, since no new file would fit.
   */
  ensureNotFull(workspaceId: string): Promise<void> {
    return ensureRoomAhead(this.deps, workspaceId, { documents: 1, bytes: 1 })
  }

  /** Registers a batch of a source's stored files into its open run (`batch.into`), with its deletions. */
  registerSourceBatch(workspaceId: string, corpusId: string, batch: RegisterBatch): Promise<Registered> {
    return this.registrar.registerOrDiscard(workspaceId, corpusId, batch)
  }

  /**
   * Ends a source's listing: its run ends once its documents are extracted, or now when it failed.
   * A listing read to the end is what the base's `last_synced_at` tells (uploads and pushes do not
   * move it: a base fed by hand has never synced).
   */
  async closeSourceRun(
    runId: string,
    end?: { status: 'failed' | 'canceled'; error: string | null },
  ): Promise<void> {
    const now = this.registrar.now()
    await this.deps.store.unit(async () => {
      const run = await this.registrar.repo.closeListing(runId, now, end)
      if (run && !end && run.sourceId !== null) {
        await this.deps.corpora.touchSynced(run.workspaceId, run.corpusId, now)
      }
    })
  }

  /** A run of a base by id (no workspace check: for the feature that holds the id). */
  runById(corpusId: string, runId: string): Promise<SyncRunRow | null> {
    return this.registrar.repo.run(corpusId, runId)
  }

  /** Removes objects of the corpora area that nothing references; run at start-up (sweep.ts). */
  sweepOrphans(opts?: OrphanSweepOptions): Promise<OrphanSweep> {
    return sweepOrphans(this.context, opts)
  }

  /** Ends the push commits no live process is registering (commit-leases.ts); part of the sweep. */
  closeInterruptedCommits(): Promise<{ closed: number; heldUntil: number | null }> {
    return closeInterruptedCommits(this.context)
  }

  /** Puts the documents of a base extracted by an older extractor back for extraction (a `force` run asks); how many. */
  reextract(workspaceId: string, corpusId: string): Promise<number> {
    return reextractStale(this.context, workspaceId, corpusId)
  }
}

/** Extraction in child processes within the operator's memory budget (in process if they cannot start). */
function defaultExtractor(deps: IngestDeps): Extractor {
  return new ExtractSandbox({
    memoryMb: deps.config.extract_memory_mb,
    timeoutMs: deps.config.extract_timeout_seconds * 1000,
    onFallback: (reason) =>
      deps.log.warn(
        'extraction child processes cannot start; documents are extracted in the server process, without a memory cap',
        { reason },
      ),
  })
}
