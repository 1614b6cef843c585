import { sha256Hex } from '../../../platform/crypto/hash'
import { detectType } from '../extract/extract'
import type { Registrar } from '../ingest.registrar'
import type { Incoming, IngestDeps } from '../ingest.types'
import { normalizePath } from './paths'

/** What storing a source's file works with. */
export type SourceFileDeps = Pick<IngestDeps, 'objects' | 'corpora'> & { registrar: Registrar }

/** A file a source gave, stored (or found already stored), or why it cannot be taken. */
export type StoredFile = { ok: true; item: Incoming; fresh: string | null } | { ok: false; error: string }

/**
 * Stores the bytes of one file a source's sync fetched, ready to register: its type is checked as
 * an upload's is (a refused type or an unsafe path is a per-file error, not a failed sync), and content the base
 * already holds is not stored twice. A fresh key is in flight until the batch registers it.
 */
export async function storeSourceFile(
  deps: SourceFileDeps,
  workspaceId: string,
  corpusId: string,
  file: { path: string; bytes: Uint8Array; contentType: string | null },
): Promise<StoredFile> {
  const { objects, corpora, registrar } = deps
  let path: string
  try {
    path = normalizePath(file.path)
  } catch (e) {
    return { ok: false, error: (e as Error).message }
  }
  const detection = await detectType(path, file.bytes, file.contentType ?? undefined)
  if (!detection.supported) return { ok: false, error: detection.message }
  const sha256 = sha256Hex(file.bytes)
  const existing = corpora.rawKeyBySha(corpusId, sha256)
  const key = existing ?? registrar.newBlobKey(workspaceId, corpusId)
  if (!existing) {
    registrar.inflight.add(key)
    try {
      await objects.put(key, file.bytes, { contentType: detection.contentType })
    } catch (e) {
      registrar.inflight.delete(key)
      throw e
    }
  }
  const item = { path, sha256, size: file.bytes.byteLength, contentType: detection.contentType, rawKey: key }
  return { ok: true, item, fresh: existing ? null : key }
}
