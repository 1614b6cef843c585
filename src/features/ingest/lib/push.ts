import { iso } from '../../../platform/clock/clock'
import { newId } from '../../../platform/crypto/random'
import { fail } from '../../../platform/errors/errors'
import { ObjectTooLargeError } from '../../../platform/storage/object-store'
import type { AuditActor } from '../../audit/audit.service'
import type { DocumentRow } from '../../corpora/corpora.service'
import type { Registrar } from '../ingest.registrar'
import type { SyncRunRow } from '../ingest.repo'
import type { Incoming } from '../ingest.types'
import { normalizePath, normalizePrefix } from './paths'

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
function readManifest(files: ManifestFile[], prefix: string, maxBytes: number | null): ManifestFile[] {
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
function managed(docs: DocumentRow[]): DocumentRow[] {
  return docs.filter((d) => d.managed_by === 'push')
}

/** Builds the push protocol on top of the ingest service. */
export function pushProtocol(svc: Registrar): PushProtocol {
  const { config, objects, corpora } = svc.deps
  const repo = () => corpora.repo
  const stagingMs = () => config.staging_hours * 3_600_000 + config.upload_url_seconds * 1000

  return {
    diff(ws, corpusId, body) {
      corpora.get(ws, corpusId)
      const prefix = normalizePrefix(body.prefix)
      const files = readManifest(body.files, prefix, null)
      const docs = new Map(
        repo()
          .parents(corpusId, prefix)
          .map((d) => [d.path, d]),
      )
      const out: DiffResult = {
        new: [],
        changed: [],
        unchanged: [],
        missing: [],
        limits: { max_file_bytes: config.max_file_bytes },
      }
      for (const f of files) {
        const doc = docs.get(f.path)
        if (!doc) out.new.push(f.path)
        else if (doc.sha256 === f.sha256) out.unchanged.push(f.path)
        else out.changed.push(f.path)
        docs.delete(f.path)
      }
      out.missing = managed([...docs.values()]).map((d) => d.path)
      return out
    },

    async uploadUrls(ws, corpusId, files) {
      corpora.get(ws, corpusId)
      const entries = readManifest(files, '', config.max_file_bytes)
      const presigned = objects.driver === 's3'
      const now = svc.now()
      const keyOfSha = new Map<string, string | null>()
      const uploads: UploadUrls['uploads'] = []
      for (const e of entries) {
        let key = keyOfSha.get(e.sha256)
        if (key === undefined) {
          const live = svc.repo.uploadsBySha(corpusId, e.sha256, now)
          // Content the base holds, or that the server already received and checked, need not travel.
          if (corpora.content.rawKeyBySha(corpusId, e.sha256) || live.some((u) => u.verified === 1))
            key = null
          else if (presigned) {
            key = live[0]?.object_key ?? svc.newBlobKey(ws, corpusId)
            if (!live[0]) {
              svc.repo.insertUpload({
                id: newId(svc.deps.random, 'upl'),
                workspaceId: ws,
                corpusId,
                sha256: e.sha256,
                size: e.size,
                key,
                verified: false,
                now,
                expiresAt: now + stagingMs(),
              })
            }
          } else key = ''
          keyOfSha.set(e.sha256, key)
        }
        const url =
          key === null
            ? ''
            : presigned
              ? ((await objects.presignPut(key, config.upload_url_seconds)) ?? '')
              : `/v1/corpora/${corpusId}/documents/raw?${new URLSearchParams({ path: e.path, sha256: e.sha256 })}`
        uploads.push({ ...e, upload: key !== null, method: 'PUT', url, headers: {} })
      }
      return {
        mode: presigned ? 'presigned' : 'raw',
        expires_at: presigned ? iso(new Date(now + config.upload_url_seconds * 1000)) : null,
        uploads,
      }
    },

    async putRaw(ws, corpusId, q, request) {
      corpora.get(ws, corpusId)
      const path = normalizePath(q.path, ['query', 'path'])
      const limit = config.max_file_bytes
      const tooLarge = () =>
        fail('payload_too_large', `The file "${path}" exceeds the limit of ${limit} bytes per file.`, {
          limit,
          filename: path,
        })
      if (Number(request.headers.get('content-length') ?? Number.NaN) > limit) throw tooLarge()
      const key = svc.newBlobKey(ws, corpusId)
      svc.inflight.add(key)
      try {
        let put: { size: number; sha256: string }
        try {
          put = await objects.put(key, request.body ?? new Uint8Array(), { maxBytes: limit })
        } catch (e) {
          if (e instanceof ObjectTooLargeError) throw tooLarge()
          throw e
        }
        if (put.sha256 !== q.sha256) {
          await objects.delete(key)
          throw fail(
            'checksum_mismatch',
            `The content of "${path}" has SHA-256 ${put.sha256}, not ${q.sha256}; nothing was stored.`,
            { path, expected: q.sha256, actual: put.sha256 },
          )
        }
        const now = svc.now()
        svc.repo.insertUpload({
          id: newId(svc.deps.random, 'upl'),
          workspaceId: ws,
          corpusId,
          sha256: put.sha256,
          size: put.size,
          key,
          verified: true,
          now,
          expiresAt: now + stagingMs(),
        })
        return { path, sha256: put.sha256, size: put.size }
      } finally {
        svc.inflight.delete(key)
      }
    },

    async commit(ws, corpusId, body, actor) {
      corpora.get(ws, corpusId)
      const prefix = normalizePrefix(body.prefix)
      const files = readManifest(body.files, prefix, config.max_file_bytes)
      const docs = new Map(
        repo()
          .parents(corpusId, prefix)
          .map((d) => [d.path, d]),
      )
      const now = svc.now()
      const found = new Map<string, string | null>()
      // Content sent for this commit: the base's own copy, or the newest complete upload of it.
      const contentOf = async (f: ManifestFile): Promise<string | null> => {
        const cached = found.get(f.sha256)
        if (cached !== undefined) return cached
        let key = corpora.content.rawKeyBySha(corpusId, f.sha256)
        for (const u of key ? [] : svc.repo.uploadsBySha(corpusId, f.sha256, now)) {
          const head = await objects.head(u.object_key)
          if (head && head.size === f.size) {
            key = u.object_key
            break
          }
        }
        found.set(f.sha256, key)
        return key
      }
      const items: Incoming[] = []
      const missing: ManifestFile[] = []
      for (const f of files) {
        const doc = docs.get(f.path)
        const key = doc && doc.sha256 === f.sha256 ? doc.raw_key : await contentOf(f)
        if (key === null) missing.push(f)
        else items.push({ ...f, contentType: null, rawKey: key })
      }
      if (missing.length > 0) {
        throw fail(
          'content_missing',
          `The content of ${missing.length} file(s) was not uploaded (or its size differs): ${missing
            .slice(0, 5)
            .map((m) => m.path)
            .join(', ')}. Upload it, then commit again; nothing was changed.`,
          { files: missing.slice(0, 1000) },
        )
      }
      const listed = new Set(files.map((f) => f.path))
      const deletions = body.delete_missing
        ? managed([...docs.values()]).filter((d) => !listed.has(d.path))
        : []
      const registered = await svc.register(ws, corpusId, {
        source: 'push',
        items,
        fresh: [],
        managedBy: 'push',
        deletions: { rows: deletions, by: { actor, via: 'push' } },
      })
      return registered.run
    },
  }
}
