import { ApiError, fail } from '../../../platform/errors/errors'
import { ObjectTooLargeError } from '../../../platform/storage/object-store'
import { newPathsAhead } from '../ingest.caps'
import type { Registrar } from '../ingest.registrar'
import type { Incoming, IngestDeps, Registered } from '../ingest.types'
import { detectUpload, HeadBuffer } from './detect'
import { readOnUpload } from './extract-steps'
import {
  type FilePart,
  fileParts,
  MultipartError,
  RequestTooLargeError,
  readUpTo,
  SMALL_PART_BYTES,
  seenStream,
  WHOLE_PART_BYTES,
} from './multipart'
import { Packer } from './packs'
import { normalizePath } from './paths'

/** What an upload works with. */
export type UploadDeps = Pick<
  IngestDeps,
  'config' | 'objects' | 'corpora' | 'plans' | 'extractor' | 'random' | 'clock'
> & {
  registrar: Registrar
}

/**
 * Streams every file of a multipart upload straight to the object store (hashing as it goes),
 * checks its path, size and type, and registers the whole request at once. Any refusal removes
 * what the request had stored: a request is taken whole or not at all. The plan's documents and
 * storage caps are checked as it registers; a part with a new path is refused earlier, before its
 * body is read, when the workspace has no document left.
 */
export async function uploadFiles(
  deps: UploadDeps,
  workspaceId: string,
  corpusId: string,
  request: Request,
): Promise<Registered> {
  const { config, objects, registrar } = deps
  const type = request.headers.get('content-type') ?? ''
  if (!/^multipart\/form-data\s*(;|$)/i.test(type)) {
    throw fail(
      'unsupported_media_type',
      `Expected multipart/form-data with one "files" part per file, got ${type.split(';')[0]?.trim() || 'none'}.`,
    )
  }
  const declared = Number(request.headers.get('content-length') ?? Number.NaN)
  if (declared > config.max_request_bytes) throw requestTooLarge(config.max_request_bytes)

  const written: string[] = []
  let stored: Incoming[]
  try {
    stored = await storeParts(deps, workspaceId, corpusId, request, written)
    // Each file was published unsynced: all of them reach the disk at once, before any row names one.
    await objects.sync(written)
  } catch (e) {
    for (const key of written) {
      registrar.inflight.delete(key)
      await objects.delete(key).catch(() => {})
    }
    throw asApiError(e, config.max_request_bytes)
  }
  return registrar.registerOrDiscard(workspaceId, corpusId, {
    source: 'upload',
    items: stored,
    fresh: written,
  })
}

/** Stores every file part of the request in turn; `written` collects the keys, for the caller to undo. */
async function storeParts(
  deps: UploadDeps,
  workspaceId: string,
  corpusId: string,
  request: Request,
  written: string[],
): Promise<Incoming[]> {
  const { config, registrar } = deps
  const paths: string[] = []
  const stored: Promise<Incoming>[] = []
  // Small files are written in packs while the next parts are read (their bytes held meanwhile).
  const packer = new Packer(deps, workspaceId, corpusId, written)
  // A part with a new path the documents cap has no room for is refused before its body is read.
  const room = await newPathsAhead(deps, workspaceId, corpusId)
  const parts = fileParts(request, {
    maxRequestBytes: config.max_request_bytes,
    maxFiles: config.max_files_per_request,
  })
  try {
    for await (const part of parts) {
      // Browsers send an empty, nameless part for a file input left empty.
      if (part.filename === '') continue
      const loc = ['body', 'files', paths.length, 'filename']
      const path = normalizePath(part.filename, loc)
      if (paths.includes(path)) {
        throw fail('invalid_path', `The path "${path}" appears more than once in the request.`, [
          { loc, msg: 'Duplicate path', type: 'duplicate_path' },
        ])
      }
      await room(path)
      paths.push(path)
      const body = await readUpTo(part.stream, WHOLE_PART_BYTES)
      if (body instanceof Uint8Array) {
        const { contentType, kind } = await checkSmall(deps, part, body, path)
        // A plain file read in this process anyway is read now: registered extracted, no job to wait for.
        const input = { bytes: body, filename: path, contentType, kind }
        const read = deps.extractor ? await readOnUpload(deps.extractor, deps, input) : null
        const item = { path, contentType }
        if (body.byteLength <= SMALL_PART_BYTES) stored.push((await packer.add(body, item, read)).stored)
        else stored.push(Promise.resolve(await packer.alone(body, item, read)))
        continue
      }
      const key = registrar.newBlobKey(workspaceId, corpusId)
      written.push(key)
      registrar.inflight.add(key)
      stored.push(Promise.resolve(await storePart(deps, part, body, path, key)))
    }
    await packer.flush()
    if (stored.length === 0) {
      throw fail('validation_error', 'No files in the request: send each file as a "files" part.', [
        { loc: ['body', 'files'], msg: 'Field required', type: 'missing' },
      ])
    }
    return await Promise.all(stored)
  } finally {
    // A refusal is answered once no write of the request is still under way (its caller removes them).
    await Promise.allSettled(packer.writes)
  }
}

/** A file whole in memory: its size and type checked (it is written with its pack, or alone); its kind and content type. */
async function checkSmall(deps: UploadDeps, part: FilePart, bytes: Uint8Array, path: string) {
  const { config } = deps
  if (bytes.byteLength > config.max_file_bytes) throw fileTooLarge(path, config.max_file_bytes)
  const detection = await detectUpload(path, bytes, bytes.byteLength, part.mimeType, async () => bytes)
  if (!detection.supported) {
    throw fail('unsupported_media_type', detection.message, { filename: path, type: detection.typeName })
  }
  return detection
}

/** Streams one part to `key` within the size limit, then checks that its type is one we read. */
async function storePart(
  deps: UploadDeps,
  part: FilePart,
  body: ReadableStream<Uint8Array>,
  path: string,
  key: string,
): Promise<Incoming> {
  const { config, objects } = deps
  const head = new HeadBuffer()
  let put: { size: number; sha256: string }
  try {
    put = await objects.put(
      key,
      seenStream(body, (c) => head.add(c)),
      {
        maxBytes: config.max_file_bytes,
        deferSync: true,
      },
    )
  } catch (e) {
    if (e instanceof ObjectTooLargeError) throw fileTooLarge(path, e.limit)
    throw e
  }
  const detection = await detectUpload(path, head.bytes(), put.size, part.mimeType, () =>
    objects.getBytes(key),
  )
  if (!detection.supported) {
    throw fail('unsupported_media_type', detection.message, { filename: path, type: detection.typeName })
  }
  return { path, sha256: put.sha256, size: put.size, contentType: detection.contentType, rawKey: key }
}

function fileTooLarge(path: string, limit: number): ApiError {
  return fail('payload_too_large', `The file "${path}" exceeds the limit of ${limit} bytes per file.`, {
    limit,
    filename: path,
  })
}

function requestTooLarge(limit: number): ApiError {
  return fail('payload_too_large', `The request exceeds the limit of ${limit} bytes per upload request.`, {
    limit,
  })
}

/** Maps what can go wrong while reading the body to the answer the client gets. */
function asApiError(e: unknown, requestLimit: number): unknown {
  if (e instanceof ApiError) return e
  if (e instanceof RequestTooLargeError) return requestTooLarge(requestLimit)
  if (e instanceof MultipartError) {
    return e.kind === 'too_many_files'
      ? fail('payload_too_large', e.message)
      : fail('bad_request', `The multipart body cannot be read: ${e.message}`)
  }
  // busboy reports a malformed or truncated body with plain Errors.
  if (e instanceof Error && /multipart|boundary|Unexpected end of form|Malformed/i.test(e.message)) {
    return fail('bad_request', `The multipart body cannot be read: ${e.message}`)
  }
  return e
}
