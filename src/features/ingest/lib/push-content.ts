// How pushed content reaches the server: upload targets (presigned or through the raw route) and
// the raw route itself, each upload recorded until its commit comes or it expires.
import { iso } from '../../../platform/clock/clock'
import { newId } from '../../../platform/crypto/random'
import { fail } from '../../../platform/errors/errors'
import { ObjectTooLargeError } from '../../../platform/storage/object-store'
import { normalizePath } from './paths'
import { type ManifestFile, type PushDeps, readManifest, type UploadUrls } from './push-manifest'

/** How long a pushed object waits for its commit: the staging time plus the URL's own lifetime. */
function stagingMs(config: PushDeps['config']): number {
  return config.staging_hours * 3_600_000 + config.upload_url_seconds * 1000
}

/** `upload-urls`: where to send each file's content, or that it need not travel. */
export async function uploadUrls(
  deps: PushDeps,
  ws: string,
  corpusId: string,
  files: ManifestFile[],
): Promise<UploadUrls> {
  const { config, objects, corpora } = deps
  corpora.get(ws, corpusId)
  const entries = readManifest(files, '', config.max_file_bytes)
  const presigned = objects.driver === 's3'
  const now = deps.registrar.now()
  const keyOfSha = new Map<string, string | null>()
  const uploads: UploadUrls['uploads'] = []
  for (const e of entries) {
    let key = keyOfSha.get(e.sha256)
    if (key === undefined) {
      key = uploadKey(deps, ws, corpusId, e, presigned, now)
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
}

/**
 * The object a file's content should be sent to: null when it need not travel, '' for the raw
 * route, or a key (pending upload recorded) for a presigned PUT.
 */
function uploadKey(
  deps: PushDeps,
  ws: string,
  corpusId: string,
  e: ManifestFile,
  presigned: boolean,
  now: number,
): string | null {
  const { registrar } = deps
  const live = registrar.repo.uploadsBySha(corpusId, e.sha256, now)
  // Content the base holds, or that the server already received and checked, need not travel.
  if (deps.corpora.rawKeyBySha(corpusId, e.sha256) || live.some((u) => u.verified === 1)) return null
  if (!presigned) return ''
  if (live[0]) return live[0].object_key
  const key = registrar.newBlobKey(ws, corpusId)
  registrar.repo.insertUpload({
    id: newId(deps.random, 'upl'),
    workspaceId: ws,
    corpusId,
    sha256: e.sha256,
    size: e.size,
    key,
    verified: false,
    now,
    expiresAt: now + stagingMs(deps.config),
  })
  return key
}

/** `raw`: receives one file's content through the server, checked against its SHA-256. */
export async function putRaw(
  deps: PushDeps,
  ws: string,
  corpusId: string,
  q: { path: string; sha256: string },
  request: Request,
): Promise<ManifestFile> {
  const { config, objects, registrar } = deps
  deps.corpora.get(ws, corpusId)
  const path = normalizePath(q.path, ['query', 'path'])
  const limit = config.max_file_bytes
  const tooLarge = () =>
    fail('payload_too_large', `The file "${path}" exceeds the limit of ${limit} bytes per file.`, {
      limit,
      filename: path,
    })
  if (Number(request.headers.get('content-length') ?? Number.NaN) > limit) throw tooLarge()
  const key = registrar.newBlobKey(ws, corpusId)
  registrar.inflight.add(key)
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
    const now = registrar.now()
    registrar.repo.insertUpload({
      id: newId(deps.random, 'upl'),
      workspaceId: ws,
      corpusId,
      sha256: put.sha256,
      size: put.size,
      key,
      verified: true,
      now,
      expiresAt: now + stagingMs(config),
    })
    return { path, sha256: put.sha256, size: put.size }
  } finally {
    registrar.inflight.delete(key)
  }
}
