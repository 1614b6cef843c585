import { sha256Hex } from '../../platform/crypto/hash'
import { newId, type Random } from '../../platform/crypto/random'
import type { Db } from '../../platform/db/db'
import { transaction } from '../../platform/db/transaction'
import type { JobDefinition } from '../../platform/feature/feature'
import { isTerminal, type Job } from '../../platform/jobs/queue'
import type { JobContext } from '../../platform/jobs/scheduler'
import type { Logger } from '../../platform/log/log'
import type { ObjectStore } from '../../platform/storage/object-store'
import type { CorporaService, NewSection } from '../corpora/corpora.service'
import { EXTRACTOR_VERSION, type ExtractResult, isExtractError, KIND_CONTENT_TYPES } from './extract/extract'
import type { Registrar } from './ingest.registrar'
import { EXTRACT_JOB, type Extractor, type ExtractPayload } from './ingest.types'
import { textKeyOf } from './lib/keys'

/** What an extraction job reports; the settle hook turns it into sync-run counters. */
export type ExtractOutcome =
  | { outcome: 'extracted'; sections: number; chars: number }
  | { outcome: 'failed'; error: string }
  | { outcome: 'skipped' }

/** The content address of a text: identical sections share one cartridge. */
export function cartIdOf(text: string): string {
  return `cart_${sha256Hex(text).slice(0, 32)}`
}

/** What the extraction job works with. */
export interface ExtractJobDeps {
  db: Db
  random: Random
  log: Logger
  objects: ObjectStore
  corpora: CorporaService
  registrar: Registrar
  extractor: Extractor
  /** Documents larger than this are not extracted (`ingest.max_extract_bytes`). */
  maxExtractBytes: number
}

/** The extraction job, with its settle hook, bound to what they work with. */
export function extractionJob(deps: ExtractJobDeps): JobDefinition {
  return {
    kind: EXTRACT_JOB,
    run: (ctx) => extractDocument(deps, ctx),
    onSettled: (job) => settleExtraction(deps, job),
  }
}

/**
 * Extracts one document: reads its raw object, checks it against its SHA-256, extracts the text,
 * writes the sidecar next to the raw object and records the sections. A document deleted or given
 * new content meanwhile is left alone (its newer job does the work). The document stays `pending`
 * until onboarding takes it; a file that cannot be read ends `failed` with the reason.
 */
export async function extractDocument(deps: ExtractJobDeps, ctx: JobContext): Promise<ExtractOutcome> {
  const p = ctx.job.payload as unknown as ExtractPayload
  const { corpora, objects, registrar, maxExtractBytes } = deps
  const current = () => {
    const d = corpora.document(p.corpus_id, p.document_id)
    return d && d.raw_key === p.raw_key ? d : null
  }
  const doc = current()
  if (!doc) return { outcome: 'skipped' }
  const failed = (error: string, contentType?: string): ExtractOutcome => {
    if (!current()) return { outcome: 'skipped' }
    corpora.markFailed(doc.id, error, registrar.now(), contentType)
    return { outcome: 'failed', error }
  }
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
  return record(deps, p, result)
}

/** Writes the sidecar and the sections, unless the document moved on while we worked. */
async function record(
  deps: ExtractJobDeps,
  p: ExtractPayload,
  result: ExtractResult,
): Promise<ExtractOutcome> {
  const { corpora, objects, db, random, registrar } = deps
  // The sidecar is the sections joined by blank lines, so each section is an exact slice of it.
  const texts = result.sections.map((s) => s.text)
  const text = texts.join('\n\n')
  const sections: NewSection[] = []
  let offset = 0
  if (texts.length > 1) {
    result.sections.forEach((s, index) => {
      sections.push({
        id: newId(random, 'doc'),
        index,
        title: s.title,
        cartId: cartIdOf(s.text),
        sha256: sha256Hex(s.text),
        size: Buffer.byteLength(s.text, 'utf8'),
        chars: s.text.length,
        offset,
      })
      offset += s.text.length + 2
    })
  }
  const textKey = textKeyOf(p.raw_key, p.document_id)
  let previous: string | null = null
  let superseded = false
  registrar.inflight.add(textKey)
  try {
    const stored = await objects.put(textKey, text, { contentType: 'text/plain; charset=utf-8' })
    transaction(db, () => {
      const doc = corpora.document(p.corpus_id, p.document_id)
      if (!doc || doc.raw_key !== p.raw_key) {
        superseded = true
        return
      }
      previous = doc.text_key !== textKey ? doc.text_key : null
      corpora.setExtracted(doc, {
        textKey,
        textChars: text.length,
        textBytes: stored.size,
        contentType: KIND_CONTENT_TYPES[result.kind],
        title: result.title ?? null,
        cartId: texts.length === 1 ? cartIdOf(text) : null,
        sections,
        pageRanges: result.pageRanges ?? null,
        extractorVersion: EXTRACTOR_VERSION,
        now: registrar.now(),
      })
    })
  } finally {
    registrar.inflight.delete(textKey)
  }
  if (superseded) {
    await registrar.dropIfUnused(textKey)
    return { outcome: 'skipped' }
  }
  if (previous) await registrar.dropIfUnused(previous)
  return { outcome: 'extracted', sections: Math.max(1, sections.length), chars: text.length }
}

/** Counts a settled extraction in its sync run; a job that crashed fails its document. */
export function settleExtraction(deps: ExtractJobDeps, job: Job): void {
  const { corpora, registrar } = deps
  if (!isTerminal(job.status)) return
  const p = job.payload as unknown as ExtractPayload
  const out = job.result as ExtractOutcome | null
  let error: string | null = null
  if (job.status === 'failed') {
    error = `Text extraction failed: ${job.error ?? 'unknown error'}`
    const doc = corpora.document(p.corpus_id, p.document_id)
    if (doc && doc.raw_key === p.raw_key) corpora.markFailed(doc.id, error, registrar.now())
    else error = null
  } else if (out?.outcome === 'failed') error = out.error
  registrar.repo.settle(
    p.run_id,
    error ? { path: p.path, document_id: p.document_id, error } : null,
    registrar.now(),
  )
}
