import { sha256Hex } from '../../../platform/crypto/hash'
import { fail } from '../../../platform/errors/errors'
import { detectType } from '../extract/extract'
import type { Registrar } from '../ingest.registrar'
import type { IngestDeps, Registered } from '../ingest.types'
import { readOnUpload, uploadTextOf } from './extract-steps'
import { SIDECAR_TYPE, uploadTextKeyOf } from './keys'
import { normalizePath } from './paths'

/** What an upsert works with. */
export type UpsertDeps = Pick<
  IngestDeps,
  'config' | 'objects' | 'corpora' | 'extractor' | 'random' | 'clock'
> & {
  registrar: Registrar
}

/** One document by path with its content in the body (`POST /v1/corpora/{id}/documents/upsert`). */
export interface UpsertBody {
  path: string
  content: string
  encoding?: 'utf8' | 'base64'
  content_type?: string
}

/**
 * Stores and registers one document given in a JSON body. Content the base already holds is not
 * stored again; an upsert is written by hand, so a push never deletes it (it is not push-managed).
 */
export async function upsertDocument(
  deps: UpsertDeps,
  workspaceId: string,
  corpusId: string,
  body: UpsertBody,
): Promise<Registered> {
  const { config, objects, corpora, registrar } = deps
  const path = normalizePath(body.path)
  const bytes = decodeContent(body)
  const limit = config.max_file_bytes
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
  const contentType = body.content_type ?? detection.contentType
  // A plain file read in this process anyway is read now, as an upload's is: registered extracted.
  const read = deps.extractor
    ? await readOnUpload(deps.extractor, deps, { bytes, filename: path, contentType })
    : null
  const existing = await corpora.rawKeyBySha(corpusId, sha256)
  const key = existing ?? registrar.newBlobKey(workspaceId, corpusId)
  // Its sidecar is named after the object it writes (a new one when the content is stored already).
  const textKey = read?.sidecar
    ? uploadTextKeyOf(existing ? registrar.newBlobKey(workspaceId, corpusId) : key)
    : null
  const writes: [string, Uint8Array, string][] = []
  if (!existing) writes.push([key, bytes, detection.contentType])
  if (textKey) writes.push([textKey, read!.sidecar!, SIDECAR_TYPE])
  for (const [k] of writes) registrar.inflight.add(k)
  try {
    await Promise.all(writes.map(([k, b, type]) => objects.put(k, b, { contentType: type })))
  } catch (e) {
    for (const [k] of writes) {
      registrar.inflight.delete(k)
      await registrar.dropIfUnused(k).catch(() => false)
    }
    throw e
  }
  const item = { path, sha256, size: bytes.byteLength, contentType, rawKey: key }
  return registrar.registerOrDiscard(workspaceId, corpusId, {
    source: 'push',
    items: [read ? { ...item, text: uploadTextOf(read, sha256, textKey) } : item],
    fresh: writes.map(([k]) => k),
  })
}

/** The body's content as bytes: UTF-8 text, or base64 checked before it is decoded. */
function decodeContent(body: UpsertBody): Uint8Array {
  if (body.encoding !== 'base64') return new TextEncoder().encode(body.content)
  const clean = body.content.replace(/\s+/g, '')
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(clean) || clean.length % 4 === 1) {
    throw fail('validation_error', 'The content is not valid base64.', [
      { loc: ['body', 'content'], msg: 'Invalid base64', type: 'base64_decode' },
    ])
  }
  return new Uint8Array(Buffer.from(clean, 'base64'))
}
