import { type Clock, iso } from '../../platform/clock/clock'
import type { Config } from '../../platform/config/config.load'
import { sha256Hex } from '../../platform/crypto/hash'
import { newId, type Random } from '../../platform/crypto/random'
import type { Db } from '../../platform/db/db'
import { fail, notFound } from '../../platform/http/errors'
import { keysetPage, type PageRequest } from '../../platform/http/pagination'
import type { JobQueue } from '../../platform/jobs/queue'
import type { Logger } from '../../platform/log/log'
import type { ObjectStore } from '../../platform/storage/object-store'
import type { CorporaService, DeletedBy, DocumentRow } from '../corpora/corpora.service'
import { detectType, type ExtractInput, type ExtractResult } from './extract/extract'
import { ExtractSandbox } from './extract/extract.sandbox'
import { IngestRepo, type RunError, type SyncRunRow } from './ingest.repo'
import { blobKey } from './lib/keys'
import { normalizePath } from './lib/paths'
import { type PushProtocol, pushProtocol } from './lib/push'
import { objectsPurger, sweepOrphans } from './lib/sweep'
import { uploadFiles } from './lib/upload'

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

export interface IngestDeps {
  db: Db
  clock: Clock
  random: Random
  log: Logger
  config: Config['ingest']
  objects: ObjectStore
  corpora: CorporaService
  queue: JobQueue
  /** Where documents are extracted; by default child processes capped at `config.extract_memory_mb`. */
  extractor?: Extractor
}

/** Extracts one document's text (an `ExtractSandbox`, or a stand-in in tests). */
export interface Extractor {
  extract(input: ExtractInput): Promise<ExtractResult>
}

/** A file whose bytes are stored, ready to be registered as a document. */
export interface Incoming {
  path: string
  sha256: string
  size: number
  contentType: string | null
  rawKey: string
}

/** What registering a batch did. */
export interface Registered {
  /** The parent row of each incoming file, in order. */
  docs: DocumentRow[]
  /** What happened to each incoming file, in order. */
  results: ('created' | 'updated' | 'unchanged')[]
  run: SyncRunRow
}

/** The wire shape of a sync run. */
export function syncRunResp(r: SyncRunRow) {
  return {
    id: r.id,
    corpus_id: r.corpus_id,
    source: r.source,
    status: r.status,
    created: r.created,
    updated: r.updated,
    unchanged: r.unchanged,
    deleted: r.deleted,
    failed: r.failed,
    pending: r.pending,
    errors: JSON.parse(r.errors) as RunError[],
    started_at: iso(new Date(r.started_at)),
    finished_at: r.finished_at === null ? null : iso(new Date(r.finished_at)),
  }
}

/**
 * Ingestion: uploads, the push protocol and upserts store raw files and register documents; each
 * new content gets an extraction job; sync runs count what happened. Objects written by a request
 * are "in flight" until their rows are committed, so the orphan sweep never takes them.
 */
export class IngestService {
  readonly repo: IngestRepo
  readonly push: PushProtocol
  /** Object keys written but not yet referenced by a committed row. */
  readonly inflight = new Set<string>()
  /** Extracts documents within the operator's memory budget. */
  readonly extractor: Extractor

  constructor(readonly deps: IngestDeps) {
    this.repo = new IngestRepo(deps.db)
    this.extractor =
      deps.extractor ??
      new ExtractSandbox({
        memoryMb: deps.config.extract_memory_mb,
        timeoutMs: deps.config.extract_timeout_seconds * 1000,
        onFallback: (reason) =>
          deps.log.warn(
            'extraction child processes cannot start; documents are extracted in the server process, without a memory cap',
            { reason },
          ),
      })
    this.push = pushProtocol(this)
    deps.corpora.addPurger(objectsPurger(this))
  }

  /** Now, in epoch milliseconds, from the injected clock. */
  now(): number {
    return this.deps.clock.now().getTime()
  }

  /** A fresh object key for raw content of a base. */
  newBlobKey(workspaceId: string, corpusId: string): string {
    return blobKey(workspaceId, corpusId, newId(this.deps.random, 'blob'))
  }

  /** `POST /corpora/{id}/documents`: stores every file of a multipart request, then registers them all. */
  async upload(workspaceId: string, corpusId: string, request: Request): Promise<Registered> {
    this.deps.corpora.get(workspaceId, corpusId)
    return uploadFiles(this, workspaceId, corpusId, request)
  }

  /** `POST /v1/corpora/{id}/documents/upsert`: one document by path with its content in the body. */
  async upsert(
    workspaceId: string,
    corpusId: string,
    body: { path: string; content: string; encoding?: 'utf8' | 'base64'; content_type?: string },
  ): Promise<Registered> {
    this.deps.corpora.get(workspaceId, corpusId)
    const path = normalizePath(body.path)
    let bytes: Uint8Array
    if (body.encoding === 'base64') {
      const clean = body.content.replace(/\s+/g, '')
      if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(clean) || clean.length % 4 === 1) {
        throw fail('validation_error', 'The content is not valid base64.', [
          { loc: ['body', 'content'], msg: 'Invalid base64', type: 'base64_decode' },
        ])
      }
      bytes = new Uint8Array(Buffer.from(clean, 'base64'))
    } else bytes = new TextEncoder().encode(body.content)
    const limit = this.deps.config.max_file_bytes
    if (bytes.byteLength > limit) {
      throw fail('payload_too_large', `The file "${path}" exceeds the limit of ${limit} bytes per file.`, {
        limit,
        filename: path,
      })
    }
    const detection = await detectType(path, bytes, body.content_type)
    if (!detection.supported) {
      throw fail('unsupported_media_type', detection.message, { filename: path, type: detection.typeName })
    }
    const sha256 = sha256Hex(bytes)
    const existing = this.deps.corpora.content.rawKeyBySha(corpusId, sha256)
    const key = existing ?? this.newBlobKey(workspaceId, corpusId)
    if (!existing) {
      this.inflight.add(key)
      try {
        await this.deps.objects.put(key, bytes, { contentType: detection.contentType })
      } catch (e) {
        this.inflight.delete(key)
        throw e
      }
    }
    const contentType = body.content_type ?? detection.contentType
    const item = { path, sha256, size: bytes.byteLength, contentType, rawKey: key }
    // An upsert writes one document by hand: a push never deletes it (it is not push-managed).
    return this.registerOrDiscard(workspaceId, corpusId, 'push', [item], existing ? [] : [key])
  }

  /**
   * `register` for objects this request just wrote (`fresh`, marked in flight): if registering
   * fails (the base was deleted meanwhile), they are removed rather than left for the sweep.
   */
  async registerOrDiscard(
    workspaceId: string,
    corpusId: string,
    source: 'upload' | 'push',
    items: Incoming[],
    fresh: string[],
  ): Promise<Registered> {
    try {
      return await this.register(workspaceId, corpusId, { source, items, fresh })
    } catch (e) {
      for (const key of fresh) {
        this.inflight.delete(key)
        // Only what no committed row took: a failure after the commit must not lose content.
        await this.dropIfUnused(key).catch(() => {})
      }
      throw e
    } finally {
      for (const key of fresh) this.inflight.delete(key)
    }
  }

  /**
   * Registers stored files as documents and deletes `deletions` (with their receipts), in one
   * transaction with the sync run and the extraction jobs; then forgets what the old contents left
   * behind. A path already in the base keeps its id and gets the new content; the same content
   * again is left unchanged. `fresh` lists keys this request wrote: those no row ended up using
   * are removed. `managedBy: 'push'` (a push commit) makes the files it writes push's to delete.
   */
  async register(
    workspaceId: string,
    corpusId: string,
    batch: {
      source: 'upload' | 'push'
      items: Incoming[]
      fresh: string[]
      managedBy?: 'push'
      deletions?: { rows: DocumentRow[]; by: DeletedBy }
    },
  ): Promise<Registered> {
    const { source, items, fresh } = batch
    const deletions = batch.deletions?.rows ?? []
    const { corpora, queue, db } = this.deps
    const repo = corpora.repo
    const now = this.now()
    const runId = newId(this.deps.random, 'run')
    const ids: string[] = []
    const results: Registered['results'] = []
    const stale: DocumentRow[] = []
    let removed: DocumentRow[] = []
    db.$client.transaction(() => {
      if (!repo.get(workspaceId, corpusId)) throw notFound('Document base')
      const jobs: ExtractPayload[] = []
      for (const item of items) {
        // Identical content already in the base is shared rather than stored twice.
        const rawKey = corpora.content.rawKeyBySha(corpusId, item.sha256) ?? item.rawKey
        const fields = { ...item, rawKey, source, managedBy: batch.managedBy ?? null, now }
        const existing = repo.documentByPath(corpusId, item.path)
        if (existing && existing.sha256 === item.sha256) {
          ids.push(existing.id)
          results.push('unchanged')
          continue
        }
        let id: string
        if (existing) {
          stale.push(existing, ...repo.sections(existing.id))
          corpora.content.replaceContent(existing.id, fields)
          id = existing.id
          results.push('updated')
        } else {
          id = newId(this.deps.random, 'doc')
          corpora.content.insertParent({ ...fields, id, workspaceId, corpusId, path: item.path })
          results.push('created')
        }
        ids.push(id)
        this.repo.deleteUploadsByKey(rawKey)
        jobs.push({ corpus_id: corpusId, document_id: id, raw_key: rawKey, run_id: runId, path: item.path })
      }
      if (batch.deletions) removed = corpora.detach(workspaceId, corpusId, deletions, batch.deletions.by)
      for (const payload of jobs) {
        queue.enqueue({
          workspaceId,
          kind: EXTRACT_JOB,
          subjectId: payload.document_id,
          payload: { ...payload },
          maxAttempts: 3,
        })
      }
      this.repo.insertRun({
        id: runId,
        workspaceId,
        corpusId,
        source,
        created: results.filter((r) => r === 'created').length,
        updated: results.filter((r) => r === 'updated').length,
        unchanged: results.filter((r) => r === 'unchanged').length,
        deleted: deletions.length,
        failed: 0,
        pending: jobs.length,
        errors: [],
        now,
      })
      corpora.touchSynced(workspaceId, corpusId, now)
    })()
    await corpora.purge(workspaceId, corpusId, [...stale, ...removed])
    // Committed now: rows protect what they use, and whatever none of them uses may go.
    for (const key of fresh) this.inflight.delete(key)
    for (const key of fresh) await this.dropIfUnused(key)
    return {
      docs: ids.map((id) => repo.document(corpusId, id)!),
      results,
      run: this.repo.run(corpusId, runId)!,
    }
  }

  /** Deletes an object no row, live upload or request in flight uses. */
  async dropIfUnused(key: string): Promise<boolean> {
    if (this.inflight.has(key) || this.deps.corpora.content.keyInUse(key)) return false
    if (this.repo.uploadHolds(key, this.now())) return false
    await this.deps.objects.delete(key)
    return true
  }

  /** Sync runs of a base, newest first (page null: all). */
  runs(workspaceId: string, corpusId: string, page: PageRequest | null) {
    this.deps.corpora.get(workspaceId, corpusId)
    const total = this.repo.countRuns(corpusId)
    const rows = this.repo.runsPage(corpusId, page?.after ?? null, page?.limit ?? null)
    if (!page) return { items: rows.map(syncRunResp), total, nextCursor: null }
    return keysetPage(rows, page.limit, (r) => [r.started_at, r.id], syncRunResp, total)
  }

  /** One sync run of a base; another base's or workspace's run is a 404. */
  run(workspaceId: string, corpusId: string, runId: string): SyncRunRow {
    this.deps.corpora.get(workspaceId, corpusId)
    const run = this.repo.run(corpusId, runId)
    if (!run) throw notFound('Sync run')
    return run
  }

  /** Removes objects of the corpora area that nothing references; run at start-up. */
  sweepOrphans(): Promise<{ removed: number; uploadsExpired: number }> {
    return sweepOrphans(this)
  }
}
