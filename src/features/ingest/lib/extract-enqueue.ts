import type { JobQueue } from '../../../platform/jobs/queue'
import { EXTRACT_JOB, type ExtractBatchPayload, type ExtractPayload } from '../ingest.types'

/**
 * Most documents, and most bytes of files, one extraction job takes: a large request becomes
 * several jobs, which the worker slots run side by side.
 */
export const EXTRACT_BATCH_DOCUMENTS = 64
export const EXTRACT_BATCH_BYTES = 512 * 1024

/**
 * Queues the extraction of what one registration took into one run: one job for a single document
 * (as a re-extraction is), else one job for every `EXTRACT_BATCH_DOCUMENTS` or `EXTRACT_BATCH_BYTES`
 * (`sizes`: each file's), whose subject is the base (its deletion drops them). Inside the
 * registering transaction.
 */
export function enqueueExtraction(
  queue: JobQueue,
  workspaceId: string,
  jobs: ExtractPayload[],
  sizes: number[],
): void {
  if (jobs.length === 1) {
    const payload = jobs[0]!
    queue.enqueue({
      workspaceId,
      kind: EXTRACT_JOB,
      subjectId: payload.document_id,
      payload: { ...payload },
      maxAttempts: 3,
    })
    return
  }
  let part: ExtractPayload[] = []
  let bytes = 0
  const flush = () => {
    if (part.length === 0) return
    const payload: ExtractBatchPayload = {
      corpus_id: part[0]!.corpus_id,
      run_id: part[0]!.run_id,
      documents: part.map((j) => ({ document_id: j.document_id, raw_key: j.raw_key, path: j.path })),
    }
    queue.enqueue({
      workspaceId,
      kind: EXTRACT_JOB,
      subjectId: payload.corpus_id,
      payload: { ...payload },
      maxAttempts: 3,
    })
    part = []
    bytes = 0
  }
  jobs.forEach((job, i) => {
    const size = sizes[i] ?? 0
    if (part.length >= EXTRACT_BATCH_DOCUMENTS || (part.length > 0 && bytes + size > EXTRACT_BATCH_BYTES))
      flush()
    part.push(job)
    bytes += size
  })
  flush()
}
