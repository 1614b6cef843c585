import type { Clock } from '../../../platform/clock/clock'
import { sha256Hex } from '../../../platform/crypto/hash'
import { newSortableId, type Random } from '../../../platform/crypto/random'
import type { Store } from '../../../platform/db/store'
import type { JobContext } from '../../../platform/jobs/scheduler'
import type { Logger } from '../../../platform/log/log'
import type { ObjectStore } from '../../../platform/storage/object-store'
import type { CorporaService, DocumentRow, NewSection } from '../../corpora/corpora.service'
import {
  EXTRACTOR_VERSION,
  type ExtractInput,
  type ExtractResult,
  isExtractError,
  KIND_CONTENT_TYPES,
} from '../extract/extract'
import type { Registrar } from '../ingest.registrar'
import type { Extractor, ExtractPayload, ReadOnUpload, UploadText } from '../ingest.types'

/** What an extraction job reports; the settle hook turns it into sync-run counters. */
export type ExtractOutcome =
  | { outcome: 'extracted'; sections: number; chars: number }
  | { outcome: 'failed'; error: string }
  | { outcome: 'skipped' }

/** What the extraction job works with. */
export interface ExtractJobDeps {
  store: Store
  random: Random
  clock: Clock
  log: Logger
  objects: ObjectStore
  corpora: CorporaService
  registrar: Registrar
  extractor: Extractor
  /** Documents larger than this are not extracted (`ingest.max_extract_bytes`). */
  maxExtractBytes: number
}

/** What a new section's id is made of (sortable by when it was made: newSortableId). */
export type SectionIds = Pick<ExtractJobDeps, 'random' | 'clock'>

/** The content address of a text: identical sections share one cartridge. */
export function cartIdOf(text: string): string {
  return cartIdOfSha(sha256Hex(text))
}

/** The content address of a text whose SHA-256 (hex) is known. */
function cartIdOfSha(sha256: string): string {
  return `cart_${sha256.slice(0, 32)}`
}

/** The document as the job was queued for it, or null once deleted or given new content. */
export async function currentDocument(deps: ExtractJobDeps, p: ExtractPayload): Promise<DocumentRow | null> {
  return asQueued(await deps.corpora.document(p.corpus_id, p.document_id), p)
}

/** A document's row if it still holds the raw object its job was queued for (`raw_key`), else null. */
export function asQueued(row: DocumentRow | null | undefined, p: { raw_key: string }): DocumentRow | null {
  return row && row.raw_key === p.raw_key ? row : null
}

/**
 * Reads a document's raw object, checks it against its SHA-256 and extracts its text. A file that
 * cannot be read fails its document (with the reason) and answers the outcome; a document that
 * moved on meanwhile is skipped.
 */
export async function readAndExtract(
  deps: ExtractJobDeps,
  ctx: JobContext,
  p: ExtractPayload,
  doc: DocumentRow,
): Promise<Extracted | ExtractOutcome> {
  const { corpora, objects, registrar, maxExtractBytes } = deps
  // Failed only if it still has the raw object read (a conditional update): a document deleted or
  // given new content meanwhile is skipped, its newer content has its own job.
  const failed = async (error: string, contentType?: string): Promise<ExtractOutcome> =>
    (await corpora.markFailed(doc.id, p.raw_key, error, registrar.now(), contentType))
      ? { outcome: 'failed', error }
      : { outcome: 'skipped' }
  if (doc.size > maxExtractBytes) {
    return failed(
      `The document (${doc.size} bytes) is larger than text extraction allows (${maxExtractBytes} bytes).`,
    )
  }
  const bytes = await objects.getBytes(p.raw_key)
  if (!bytes) return failed('The stored file is missing; upload it again.')
  const sha = sha256Hex(bytes)
  if (sha !== doc.sha256) {
    return failed(
      `The stored content does not match its SHA-256 (expected ${doc.sha256}, got ${sha}); upload it again.`,
    )
  }
  ctx.checkpoint()
  let result: ExtractResult
  try {
    const input = {
      bytes,
      filename: doc.path,
      ...(doc.content_type ? { contentType: doc.content_type } : {}),
    }
    result = await deps.extractor.extract(input)
  } catch (e) {
    if (!isExtractError(e)) throw e
    // The person sees the worded message; the library's own words are for the operator's log.
    const cause = (e.cause as Error | undefined)?.message
    deps.log.info('document extraction failed', {
      document_id: doc.id,
      code: e.code,
      ...(cause ? { cause } : {}),
    })
    return failed(e.message)
  }
  ctx.checkpoint()
  return { ...result, raw: bytes, rawSha256: sha }
}

/** An extraction, the bytes of the file it was read from and their SHA-256 (hex). */
export type Extracted = ExtractResult & { raw: Uint8Array; rawSha256: string }

/** Whether `readAndExtract` answered an outcome rather than a text. */
export function isOutcome(r: Extracted | ExtractOutcome): r is ExtractOutcome {
  return 'outcome' in r
}

/**
 * Whether a text is its file's bytes exactly (a UTF-8 plain file extraction left as it was): its
 * raw object then serves as its text (`text_key` is the raw key), and no sidecar is written; every
 * reader of the text reads the same bytes either way. (A file handed to a worker thread is
 * detached, so empty here: never its text.)
 */
function textIsFile(raw: Uint8Array, text: string): boolean {
  if (text.length === 0 || raw.byteLength !== Buffer.byteLength(text, 'utf8')) return false
  return Buffer.from(text, 'utf8').equals(raw)
}

/**
 * A small file's text, read as it is uploaded when the extractor reads it in this process anyway:
 * the document is registered extracted (with its sections' rows) and no extraction job is queued;
 * its sidecar (as the job would write it: `sidecarOf`) goes into the upload's pack, none when the
 * text is the file itself. Null when it is not read here, and when it cannot be read: its job reads
 * it again and records why it failed.
 */
export async function readOnUpload(
  extractor: Extractor,
  ids: SectionIds,
  input: ExtractInput & { contentType: string },
): Promise<ReadOnUpload | null> {
  let result: ExtractResult | null = null
  try {
    result = (await extractor.extractHere?.(input)) ?? null
  } catch {
    return null
  }
  if (!result || result.pageRanges) return null
  // The file's hash is not known yet: a text that is its file takes it when its write computes it.
  const side = sidecarOf({ ...result, raw: input.bytes, rawSha256: '' }, ids)
  const x = side.extraction('', 0, 0)
  const cartOfFile = side.isFile && x.sections.length === 0
  const text = {
    chars: x.textChars,
    contentType: x.contentType,
    title: x.title,
    cartId: cartOfFile ? null : x.cartId,
    extractorVersion: x.extractorVersion,
    sections: x.sections,
  }
  return { text, sidecar: side.isFile ? null : Buffer.from(side.text, 'utf8'), cartOfFile }
}

/** What a row records of a text read as it was uploaded, its sidecar stored at `key` (null: none). */
export function uploadTextOf(read: ReadOnUpload, sha256: string, key: string | null): UploadText {
  const cartId = read.cartOfFile ? cartIdOfSha(sha256) : read.text.cartId
  return { ...read.text, cartId, key, bytes: read.sidecar?.byteLength ?? 0 }
}

/**
 * The sidecar of an extraction (its sections joined by blank lines, so each section is an exact
 * slice of it), whether it is the file itself (`textIsFile`), its sections' rows when there are
 * several, and what `setExtracted` records. Each text is hashed once: a text that is its file
 * takes the file's hash.
 */
export function sidecarOf(result: Extracted, ids: SectionIds) {
  const texts = result.sections.map((s) => s.text)
  const text = texts.join('\n\n')
  const isFile = textIsFile(result.raw, text)
  const sections: NewSection[] = []
  let offset = 0
  const now = ids.clock.now().getTime()
  if (texts.length > 1) {
    result.sections.forEach((s, index) => {
      const sha256 = sha256Hex(s.text)
      sections.push({
        id: newSortableId(ids.random, 'doc', now),
        index,
        title: s.title,
        cartId: cartIdOfSha(sha256),
        sha256,
        size: Buffer.byteLength(s.text, 'utf8'),
        chars: s.text.length,
        offset,
      })
      offset += s.text.length + 2
    })
  }
  const outcome: ExtractOutcome = {
    outcome: 'extracted',
    sections: Math.max(1, sections.length),
    chars: text.length,
  }
  return {
    text,
    isFile,
    outcome,
    /** The fields `corpora.setExtracted` records, once the sidecar is stored at `textKey`. */
    extraction: (textKey: string, textBytes: number, now: number) => ({
      textKey,
      textChars: text.length,
      textBytes,
      contentType: KIND_CONTENT_TYPES[result.kind],
      title: result.title ?? null,
      cartId: texts.length > 1 ? null : isFile ? cartIdOfSha(result.rawSha256) : cartIdOf(text),
      sections,
      pageRanges: result.pageRanges ?? null,
      extractorVersion: EXTRACTOR_VERSION,
      now,
    }),
  }
}
