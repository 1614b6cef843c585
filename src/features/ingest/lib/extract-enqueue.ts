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
 * (`sizes`: each file's), whose subject is the base (its deletion drops them). In the registering
 * unit (`queue.add`).
 */
export async function enqueueExtraction(
  queue: JobQueue,
  workspaceId: string,
  jobs: ExtractPayload[],
  sizes: number[],
): Promise<void> {
  if (jobs.length === 1) {
    const payload = jobs[0]!
    await queue.add({
      workspaceId,
      kind: EXTRACT_JOB,
      subjectId: payload.document_id,
      payload: { ...payload },
      maxAttempts: 3,
    })
    return
  }
  const parts: ExtractPayload[][] = []
  let part: ExtractPayload[] = []
  let bytes = 0
  const flush = () => {
    if (part.length > 0) parts.push(part)
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
  for (const batch of parts) {
    const payload: ExtractBatchPayload = {
      corpus_id: batch[0]!.corpus_id,
      run_id: batch[0]!.run_id,
      documents: batch.map((j) => ({ document_id: j.document_id, raw_key: j.raw_key, path: j.path })),
    }
    await queue.add({
      workspaceId,
      kind: EXTRACT_JOB,
      subjectId: payload.corpus_id,
      payload: { ...payload },
      maxAttempts: 3,
    })
  }
}
