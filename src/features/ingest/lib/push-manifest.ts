// The push protocol's shapes and the manifest rules every step of it applies.

import type { Actor } from '../../../platform/auth/principal'
import { inSlices } from '../../../platform/concurrency/yield'
import { fail } from '../../../platform/errors/errors'
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
  diff(ws: string, corpusId: string, body: { files: ManifestFile[]; prefix?: string }): Promise<DiffResult>
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
    actor: Actor,
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

/**
 * Entries of a manifest handled between two yields to the event loop: a slice of path checks,
 * lookups or registrations takes a few milliseconds, so a manifest of the largest size the server
 * takes delays other requests by that much at a time, never by its whole length (issue 32).
 */
export const MANIFEST_SLICE = 250

/**
 * Canonical paths, each once, under the prefix, and (when asked) within the size limit; a manifest
 * of more than `maxFiles` entries is refused first (422 `too_many_files`), before any is looked at.
 */
export async function readManifest(
  files: ManifestFile[],
  prefix: string,
  limits: { maxFiles: number; maxBytes: number | null },
): Promise<ManifestFile[]> {
  const { maxFiles, maxBytes } = limits
  if (files.length > maxFiles) {
    throw fail(
      'too_many_files',
      `The manifest lists ${files.length} files; one request may list ${maxFiles} at most (setting ingest.max_manifest_files). Push the folder in parts, as sub-folders (engram push --prefix).`,
      { limit: maxFiles, files: files.length },
    )
  }
  const seen = new Set<string>()
  const tooLarge: string[] = []
  const out: ManifestFile[] = []
  await inSlices(files, MANIFEST_SLICE, (slice, offset) => {
    slice.forEach((f, j) => {
      const loc = ['body', 'files', offset + j, 'path']
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
      out.push({ path, sha256: f.sha256, size: f.size })
    })
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
export type PushDeps = Pick<
  IngestDeps,
  'store' | 'config' | 'objects' | 'corpora' | 'random' | 'clock' | 'plans'
> & {
  registrar: Registrar
}

/** The manifest limits of the configuration; `perFile` when files over `max_file_bytes` are refused. */
export function manifestLimits(config: IngestDeps['config'], perFile: boolean) {
  return { maxFiles: config.max_manifest_files, maxBytes: perFile ? config.max_file_bytes : null }
}
