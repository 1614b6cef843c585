import type { JobDefinition } from '../../platform/feature/feature'
import { isTerminal, type Job } from '../../platform/jobs/queue'
import type { JobContext } from '../../platform/jobs/scheduler'
import { EXTRACT_JOB, type ExtractPayload } from './ingest.types'
import { extractBatch, isBatch, settleBatch } from './lib/extract-batch'
import {
  currentDocument,
  type Extracted,
  type ExtractJobDeps,
  type ExtractOutcome,
  isOutcome,
  readAndExtract,
  sidecarOf,
} from './lib/extract-steps'
import { SIDECAR_TYPE, textKeyOf } from './lib/keys'

export { cartIdOf, type ExtractJobDeps, type ExtractOutcome } from './lib/extract-steps'

/**
 * The extraction job, with its settle hook, bound to what they work with: one document, or the
 * documents of one upload batch together (lib/extract-batch.ts).
 */
export function extractionJob(deps: ExtractJobDeps): JobDefinition {
  return {
    kind: EXTRACT_JOB,
    run: (ctx) => (isBatch(ctx.job.payload) ? extractBatch(deps, ctx) : extractDocument(deps, ctx)),
    onSettled: (job) => (isBatch(job.payload) ? settleBatch(deps, job) : settleExtraction(deps, job)),
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
  const doc = await currentDocument(deps, p)
  if (!doc) return { outcome: 'skipped' }
  const result = await readAndExtract(deps, ctx, p, doc)
  return isOutcome(result) ? result : record(deps, p, result)
}

/**
 * Writes the sidecar (none when the text is the file itself: the raw object serves) and the
 * sections, unless the document moved on while we worked.
 */
async function record(deps: ExtractJobDeps, p: ExtractPayload, result: Extracted): Promise<ExtractOutcome> {
  const { corpora, objects, store, registrar } = deps
  const side = sidecarOf(result, deps)
  const sidecarKey = textKeyOf(p.raw_key, p.document_id)
  const own = !side.isFile
  const textKey = own ? sidecarKey : p.raw_key
  let previous: string | null = null
  let superseded = false
  if (own) registrar.inflight.add(textKey)
  try {
    const stored = own ? await objects.put(textKey, side.text, { contentType: SIDECAR_TYPE }) : { size: 0 } // no sidecar adds to the base's storage
    await store.unit(async () => {
      const doc = await currentDocument(deps, p)
      if (!doc) {
        superseded = true
        return
      }
      // Written only if the row still has the raw object read (a conditional update): new content
      // committed since the read above (another process's, on PostgreSQL) is not overwritten.
      if (await corpora.setExtracted(doc, side.extraction(textKey, stored.size, registrar.now()))) {
        previous = doc.text_key !== textKey ? doc.text_key : null
      } else superseded = true
    })
  } finally {
    if (own) registrar.inflight.delete(textKey)
  }
  if (superseded) {
    if (own) await registrar.dropIfUnused(textKey)
    return { outcome: 'skipped' }
  }
  if (previous) await registrar.dropIfUnused(previous)
  // Extracted again (a newer extractor) from a file its text now is: the old sidecar goes.
  if (!own && previous === null) await registrar.dropIfUnused(sidecarKey).catch(() => false)
  return side.outcome
}

/** Counts a settled extraction in its sync run, in one unit; a job that crashed fails its document. */
export async function settleExtraction(deps: ExtractJobDeps, job: Job): Promise<void> {
  const { corpora, registrar } = deps
  if (!isTerminal(job.status)) return
  const p = job.payload as unknown as ExtractPayload
  const out = job.result as ExtractOutcome | null
  await deps.store.unit(async () => {
    let error: string | null = null
    if (job.status === 'failed') {
      error = `Text extraction failed: ${job.error ?? 'unknown error'}`
      // Failed only if it still has the raw object the job read (a conditional update).
      if (!(await corpora.markFailed(p.document_id, p.raw_key, error, registrar.now()))) error = null
    } else if (out?.outcome === 'failed') error = out.error
    await registrar.repo.settle(
      p.run_id,
      error ? { path: p.path, document_id: p.document_id, error } : null,
      registrar.now(),
    )
  })
}
