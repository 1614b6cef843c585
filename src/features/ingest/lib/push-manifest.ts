// The push protocol's shapes and the manifest rules every step of it applies.
import { fail } from '../../../platform/errors/errors'
import type { AuditActor } from '../../audit/audit.service'
import type { DocumentRow } from '../../corpora/corpora.service'
import type { Registrar } from '../ingest.registrar'
import type { SyncRunRow } from '../ingest.repo'
import type { IngestDeps } from '../ingest.types'
import { normalizePath } from './paths'

/** One manifest line as clients send it. */
export interface ManifestFile {
  path: string
  sha256: string
  size: number
}

/** The push protocol of `/v1` (diff, upload-urls, raw, commit); see docs/ingest.md. */
export interface PushProtocol {
  diff(ws: string, corpusId: string, body: { files: ManifestFile[]; prefix?: string }): DiffResult
  uploadUrls(ws: string, corpusId: string, files: ManifestFile[]): Promise<UploadUrls>
  putRaw(
    ws: string,
    corpusId: string,
    q: { path: string; sha256: string },
    request: Request,
  ): Promise<ManifestFile>
  commit(
    ws: string,
    corpusId: string,
    body: { files: ManifestFile[]; delete_missing?: boolean; prefix?: string },
    actor: AuditActor,
  ): Promise<SyncRunRow>
}

export interface DiffResult {
  new: string[]
  changed: string[]
  unchanged: string[]
  missing: string[]
  limits: { max_file_bytes: number }
}

export interface UploadUrls {
  mode: 'presigned' | 'raw'
  expires_at: string | null
  uploads: {
    path: string
    sha256: string
    size: number
    upload: boolean
    method: 'PUT'
    url: string
    headers: Record<string, string>
  }[]
}

/** Canonical paths, each once, under the prefix, and (when asked) within the size limit. */
export function readManifest(files: ManifestFile[], prefix: string, maxBytes: number | null): ManifestFile[] {
  const seen = new Set<string>()
  const tooLarge: string[] = []
  const out = files.map((f, i) => {
    const loc = ['body', 'files', i, 'path']
    const path = normalizePath(f.path, loc)
    if (!path.startsWith(prefix)) {
      throw fail('invalid_path', `The path "${path}" is outside the prefix "${prefix}".`, [
        { loc, msg: 'Outside the prefix', type: 'invalid_path' },
      ])
    }
    if (seen.has(path)) {
      throw fail('invalid_path', `The path "${path}" appears more than once in the manifest.`, [
        { loc, msg: 'Duplicate path', type: 'duplicate_path' },
      ])
    }
    seen.add(path)
    if (maxBytes !== null && f.size > maxBytes) tooLarge.push(path)
    return { path, sha256: f.sha256, size: f.size }
  })
  if (tooLarge.length > 0) {
    throw fail(
      'payload_too_large',
      `${tooLarge.length} file(s) exceed the limit of ${maxBytes} bytes per file: ${tooLarge.slice(0, 5).join(', ')}.`,
      { limit: maxBytes, files: tooLarge.slice(0, 1000) },
    )
  }
  return out
}

/**
 * Documents a push may call missing and delete: those under the prefix that a push commit wrote.
 * Files uploaded by hand or upserted are never push's to remove, even under its folder.
 */
export function managed(docs: DocumentRow[]): DocumentRow[] {
  return docs.filter((d) => d.managed_by === 'push')
}

/** What the push protocol works with. */
export type PushDeps = Pick<IngestDeps, 'config' | 'objects' | 'corpora' | 'random'> & {
  registrar: Registrar
}
