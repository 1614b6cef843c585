// How pushed content reaches the server: upload targets (presigned or through the raw route) and
// the raw route itself, each upload recorded until its commit comes or it expires.
import { iso } from '../../../platform/clock/clock'
import { inSlices } from '../../../platform/concurrency/yield'
import { newId } from '../../../platform/crypto/random'
import { fail } from '../../../platform/errors/errors'
import { ObjectTooLargeError } from '../../../platform/storage/object-store'
import { normalizePath } from './paths'
import {
  MANIFEST_SLICE,
  type ManifestFile,
  manifestLimits,
  type PushDeps,
  readManifest,
  type UploadUrls,
} from './push-manifest'

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
  await corpora.get(ws, corpusId)
  const entries = await readManifest(files, '', manifestLimits(config, true))
  const presigned = objects.driver === 's3'
  const now = deps.registrar.now()
  const keyOfSha = new Map<string, string | null>()
  const uploads: UploadUrls['uploads'] = []
  await inSlices(entries, MANIFEST_SLICE, async (slice) => {
    await uploadKeys(deps, ws, corpusId, slice, keyOfSha, presigned, now)
    for (const e of slice) {
      const key = keyOfSha.get(e.sha256) ?? null
      const url =
        key === null
          ? ''
          : presigned
            ? ((await objects.presignPut(key, config.upload_url_seconds)) ?? '')
            : `/v1/corpora/${corpusId}/documents/raw?${new URLSearchParams({ path: e.path, sha256: e.sha256 })}`
      uploads.push({ ...e, upload: key !== null, method: 'PUT', url, headers: {} })
    }
  })
  return {
    mode: presigned ? 'presigned' : 'raw',
    expires_at: presigned ? iso(new Date(now + config.upload_url_seconds * 1000)) : null,
    uploads,
  }
}

/**
 * The object each content of a slice should be sent to, into `keyOfSha` (each SHA-256 once): null
 * when it need not travel, '' for the raw route, or a key (pending upload recorded) for a
 * presigned PUT. The slice's contents are looked up in two statements and recorded in one unit,
 * not two lookups and a commit per file.
 */
async function uploadKeys(
  deps: PushDeps,
  ws: string,
  corpusId: string,
  slice: ManifestFile[],
  keyOfSha: Map<string, string | null>,
  presigned: boolean,
  now: number,
): Promise<void> {
  const { registrar } = deps
  const sizes = new Map<string, number>()
  for (const e of slice) if (!keyOfSha.has(e.sha256) && !sizes.has(e.sha256)) sizes.set(e.sha256, e.size)
  if (sizes.size === 0) return
  const shas = [...sizes.keys()]
  const held = await deps.corpora.rawKeysBySha(corpusId, shas)
  const live = await registrar.uploads.uploadsByShas(corpusId, shas, now)
  await deps.store.unit(async () => {
    for (const [sha, size] of sizes) {
      const uploads = live.get(sha) ?? []
      // Content the base holds, or that the server already received and checked, need not travel.
      if (held.has(sha) || uploads.some((u) => u.verified === 1)) keyOfSha.set(sha, null)
      else if (!presigned) keyOfSha.set(sha, '')
      else if (uploads[0]) keyOfSha.set(sha, uploads[0].objectKey)
      else {
        const key = registrar.newBlobKey(ws, corpusId)
        await registrar.uploads.insertUpload({
          id: newId(deps.random, 'upl'),
          workspaceId: ws,
          corpusId,
          sha256: sha,
          size,
          key,
          verified: false,
          now,
          expiresAt: now + stagingMs(deps.config),
        })
        keyOfSha.set(sha, key)
      }
    }
  })
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
  await deps.corpora.get(ws, corpusId)
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
    await deps.store.unit(() =>
      registrar.uploads.insertUpload({
        id: newId(deps.random, 'upl'),
        workspaceId: ws,
        corpusId,
        sha256: put.sha256,
        size: put.size,
        key,
        verified: true,
        now,
        expiresAt: now + stagingMs(config),
      }),
    )
    return { path, sha256: put.sha256, size: put.size }
  } finally {
    registrar.inflight.delete(key)
  }
}
