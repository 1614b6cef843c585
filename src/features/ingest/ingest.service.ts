import { iso } from '../../platform/clock/clock'
import { sha256Hex } from '../../platform/crypto/hash'
import { fail, notFound } from '../../platform/errors/errors'
import { keysetPage, type PageRequest } from '../../platform/paging/paging'
import { detectType } from './extract/extract'
import { ExtractSandbox } from './extract/extract.sandbox'
import { Registrar } from './ingest.registrar'
import type { RunError, SyncRunRow } from './ingest.repo'
import type { Extractor, IngestDeps, Registered } from './ingest.types'
import { normalizePath } from './lib/paths'
import { type PushProtocol, pushProtocol } from './lib/push'
import { sweepOrphans } from './lib/sweep'
import { uploadFiles } from './lib/upload'

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
 * Ingestion, the feature's face: uploads, the push protocol and upserts store raw files and
 * register documents (through the `Registrar`, which they share with the extraction jobs); each new
 * content gets an extraction job; sync runs count what happened.
 */
export class IngestService {
  readonly registrar: Registrar
  readonly push: PushProtocol
  /** Extracts documents within the operator's memory budget. */
  readonly extractor: Extractor

  constructor(readonly deps: IngestDeps) {
    this.registrar = new Registrar(deps)
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
    this.push = pushProtocol(this.registrar)
  }

  /** `POST /corpora/{id}/documents`: stores every file of a multipart request, then registers them all. */
  async upload(workspaceId: string, corpusId: string, request: Request): Promise<Registered> {
    this.deps.corpora.get(workspaceId, corpusId)
    return uploadFiles(this.registrar, workspaceId, corpusId, request)
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
    const key = existing ?? this.registrar.newBlobKey(workspaceId, corpusId)
    if (!existing) {
      this.registrar.inflight.add(key)
      try {
        await this.deps.objects.put(key, bytes, { contentType: detection.contentType })
      } catch (e) {
        this.registrar.inflight.delete(key)
        throw e
      }
    }
    const contentType = body.content_type ?? detection.contentType
    const item = { path, sha256, size: bytes.byteLength, contentType, rawKey: key }
    // An upsert writes one document by hand: a push never deletes it (it is not push-managed).
    return this.registrar.registerOrDiscard(workspaceId, corpusId, 'push', [item], existing ? [] : [key])
  }

  /** Sync runs of a base, newest first (page null: all). */
  runs(workspaceId: string, corpusId: string, page: PageRequest | null) {
    this.deps.corpora.get(workspaceId, corpusId)
    const total = this.registrar.repo.countRuns(corpusId)
    const rows = this.registrar.repo.runsPage(corpusId, page?.after ?? null, page?.limit ?? null)
    if (!page) return { items: rows.map(syncRunResp), total, nextCursor: null }
    return keysetPage(rows, page.limit, (r) => [r.started_at, r.id], syncRunResp, total)
  }

  /** One sync run of a base; another base's or workspace's run is a 404. */
  run(workspaceId: string, corpusId: string, runId: string): SyncRunRow {
    this.deps.corpora.get(workspaceId, corpusId)
    const run = this.registrar.repo.run(corpusId, runId)
    if (!run) throw notFound('Sync run')
    return run
  }

  /** Removes objects of the corpora area that nothing references; run at start-up. */
  sweepOrphans(): Promise<{ removed: number; uploadsExpired: number }> {
    return sweepOrphans(this.registrar)
  }
}
