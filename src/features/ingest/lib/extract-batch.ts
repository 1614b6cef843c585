import { isTerminal, type Job } from '../../../platform/jobs/queue'
import type { JobContext } from '../../../platform/jobs/scheduler'
import type { DocumentRow } from '../../corpora/corpora.service'
import type { RunError } from '../ingest.repo'
import type { ExtractBatchPayload, ExtractPayload } from '../ingest.types'
import {
  asQueued,
  currentDocument,
  type ExtractJobDeps,
  type ExtractOutcome,
  isOutcome,
  readAndExtract,
  sidecarOf,
} from './extract-steps'
import { SIDECAR_TYPE, textKeyOf } from './keys'

/** Sidecar writes of a batch in flight at once. */
const PUTS_IN_FLIGHT = 8

/** What an extraction job of several documents reports: each one's outcome, in payload order. */
export interface BatchOutcome {
  outcome: 'batch'
  items: ExtractOutcome[]
}

/** Whether a job's payload lists several documents. */
export function isBatch(payload: Record<string, unknown>): boolean {
  return Array.isArray(payload.documents)
}

/** One document of a batch as a single job's payload. */
function single(p: ExtractBatchPayload, i: number): ExtractPayload {
  return { ...p.documents[i]!, corpus_id: p.corpus_id, run_id: p.run_id }
}

/**
 * Extracts the documents of a batch one after the other, as a job of one does (a text that is its
 * file gets no sidecar: the raw object serves), but writes their sidecars unsynced, flushes them all at once and records them in one unit. A document an
 * earlier attempt recorded is not read again, so an unsynced write never replaces a sidecar a row
 * refers to (but for two workers running the same batch at once after a lost lease, which write the
 * same bytes, and a crash in that moment).
 */
export async function extractBatch(deps: ExtractJobDeps, ctx: JobContext): Promise<BatchOutcome> {
  const { corpora, objects, store, registrar } = deps
  const p = ctx.job.payload as unknown as ExtractBatchPayload
  const items: ExtractOutcome[] = []
  const written: { i: number; key: string; own: boolean; record: (now: number) => Promise<boolean> }[] = []
  const dropped: string[] = []
  const keys: string[] = []
  const puts = new Set<Promise<void>>()
  const check = fewerChecks(ctx)
  try {
    const docs = await currentDocuments(deps, p, [...p.documents.keys()])
    for (let i = 0; i < p.documents.length; i++) {
      const one = single(p, i)
      const doc = docs.get(i)
      if (!doc) items.push({ outcome: 'skipped' })
      else if (doc.text_key !== null) {
        items.push({ outcome: 'extracted', sections: doc.section_count, chars: doc.text_chars })
      } else {
        const result = await readAndExtract(deps, check, one, doc)
        if (isOutcome(result)) {
          items.push(result)
          continue
        }
        const side = sidecarOf(result, deps)
        items.push(side.outcome)
        if (side.isFile) {
          // The text is the file: its raw object (named by the row, flushed before it) serves, and
          // no sidecar adds to the base's storage.
          const record = (now: number) => corpora.setExtracted(doc, side.extraction(one.raw_key, 0, now))
          written.push({ i, key: one.raw_key, own: false, record })
          continue
        }
        const key = textKeyOf(one.raw_key, one.document_id)
        registrar.inflight.add(key)
        // A few sidecars are written while the next documents are read (their texts held meanwhile).
        if (puts.size >= PUTS_IN_FLIGHT) await Promise.race(puts)
        const put = objects
          .put(key, side.text, { contentType: SIDECAR_TYPE, deferSync: true })
          .then((stored) => {
            written.push({
              i,
              key,
              own: true,
              record: (now) => corpora.setExtracted(doc, side.extraction(key, stored.size, now)),
            })
          })
          .finally(() => puts.delete(put))
        put.catch(() => {})
        puts.add(put)
        keys.push(key)
      }
    }
    await Promise.all(puts)
    await objects.sync(keys)
    ctx.checkpoint()
    await store.unit(async () => {
      const now = registrar.now()
      const places = written.map((w) => w.i)
      const docs = await currentDocuments(deps, p, places)
      for (const w of written) {
        const doc = docs.get(w.i) ?? null
        // Deleted, given new content, or recorded by another worker meanwhile: this text is not used.
        // The record itself is conditional on the raw object read, for new content committed since
        // this read (another process's, on PostgreSQL): then nothing is written.
        const recorded = doc !== null && doc.text_key === null && (await w.record(now))
        if (!recorded && w.own) dropped.push(w.key)
        if (!recorded && (doc === null || doc.text_key === null)) items[w.i] = { outcome: 'skipped' }
      }
    })
  } catch (e) {
    await Promise.allSettled(puts)
    dropped.push(...keys)
    throw e
  } finally {
    for (const key of keys) registrar.inflight.delete(key)
    for (const key of dropped) await registrar.dropIfUnused(key).catch(() => false)
  }
  return { outcome: 'batch', items }
}

/**
 * The batch's documents at these places as the job was queued for them (`currentDocument`'s rule),
 * read in one statement a few hundred: by place, those not deleted or given new content.
 */
async function currentDocuments(
  deps: ExtractJobDeps,
  p: ExtractBatchPayload,
  places: number[],
): Promise<Map<number, DocumentRow>> {
  const rows = await deps.corpora.documentsByIds(
    p.corpus_id,
    places.map((i) => p.documents[i]!.document_id),
  )
  const current = new Map<number, DocumentRow>()
  for (const i of places) {
    const d = p.documents[i]!
    const row = asQueued(rows.get(d.document_id), d)
    if (row) current.set(i, row)
  }
  return current
}

/** Reads of the queue's stop flags a batch skips between two (two checkpoints a document). */
const CHECK_EVERY = 16

/**
 * The batch's context for its documents: its checkpoint reads the queue (a query) every
 * CHECK_EVERY calls, not at each (10,000 queries for 5,000 small files); a stop the scheduler
 * has seen meanwhile (its signal aborted) still ends the batch at the next call.
 */
function fewerChecks(ctx: JobContext): JobContext {
  let calls = 0
  const checkpoint = () => {
    if (ctx.signal.aborted || calls++ % CHECK_EVERY === 0) ctx.checkpoint()
  }
  return { ...ctx, checkpoint }
}

/**
 * Counts each document of a settled batch in its sync run, in one unit; a batch that crashed
 * fails its documents not recorded yet (a canceled one settles them without an error).
 */
export async function settleBatch(deps: ExtractJobDeps, job: Job): Promise<void> {
  const { corpora, registrar, store } = deps
  if (!isTerminal(job.status)) return
  const p = job.payload as unknown as ExtractBatchPayload
  const out = job.result as BatchOutcome | null
  const now = registrar.now()
  await store.unit(async () => {
    const failures: RunError[] = []
    for (const [i, d] of p.documents.entries()) {
      const item = out?.items[i]
      let error: string | null = item?.outcome === 'failed' ? item.error : null
      if (job.status === 'failed') {
        const doc = await currentDocument(deps, single(p, i))
        error =
          doc && doc.text_key === null ? `Text extraction failed: ${job.error ?? 'unknown error'}` : null
        // Failed only if it still has the raw object the job read (a conditional update).
        if (doc && error && !(await corpora.markFailed(doc.id, d.raw_key, error, now))) error = null
      }
      if (error) failures.push({ path: d.path, document_id: d.document_id, error })
    }
    await registrar.repo.settleMany(p.run_id, p.documents.length, failures, now)
  })
}
