import { newId } from '../../../platform/crypto/random'
import { transaction } from '../../../platform/db/transaction'
import type { DocumentRow } from '../../corpora/corpora.service'
import { EXTRACTOR_VERSION } from '../extract/extract'
import type { Registrar } from '../ingest.registrar'
import { EXTRACT_JOB, type ExtractPayload, type IngestDeps } from '../ingest.types'

/** What extracting again works with. */
export type ReextractDeps = Pick<IngestDeps, 'db' | 'random' | 'log' | 'corpora' | 'queue'> & {
  registrar: Registrar
}

/** Whether a document's stored extraction predates the current extractor (and it has one to redo). */
export function extractedBefore(d: DocumentRow): boolean {
  return (
    d.text_key !== null &&
    d.raw_key !== null &&
    d.status !== 'failed' &&
    (d.extractor_version ?? 0) < EXTRACTOR_VERSION
  )
}

/**
 * Extracts again, from their stored files, the documents of a base whose extraction predates
 * EXTRACTOR_VERSION (PDFs extracted before pages were kept, ...): each is put back as its upload
 * left it (no text, no sections, `pending`) with an extraction job, in one transaction, as a new
 * upload of the same content would be; what the old text left in the index goes after the commit.
 * No sync run counts them: nothing arrived. Returns how many documents were put back.
 */
export function reextractStale(deps: ReextractDeps, workspaceId: string, corpusId: string): number {
  const { db, corpora, queue, registrar } = deps
  const docs = corpora.parentDocuments(corpusId).filter(extractedBefore)
  if (docs.length === 0) return 0
  const now = registrar.now()
  // Settles nothing: no sync run has this id.
  const runId = newId(deps.random, 'run')
  const stale: DocumentRow[] = []
  transaction(db, () => {
    for (const d of docs) {
      stale.push(d, ...corpora.sections(d.id))
      const { size, content_type: contentType, sha256, source, managed_by: managedBy } = d
      corpora.replaceContent(d.id, {
        size,
        contentType,
        sha256: sha256 ?? '',
        source,
        managedBy,
        rawKey: d.raw_key!,
        now,
      })
      const payload: ExtractPayload = {
        corpus_id: corpusId,
        document_id: d.id,
        raw_key: d.raw_key!,
        run_id: runId,
        path: d.path,
      }
      queue.enqueue({
        workspaceId,
        kind: EXTRACT_JOB,
        subjectId: d.id,
        payload: { ...payload },
        maxAttempts: 3,
      })
    }
  })
  // The new sidecar has the old one's key (the same file, the same document): kept from the purge,
  // which forgets the old sections' index entries and cartridges.
  const sidecars = new Set(docs.map((d) => d.text_key!))
  for (const key of sidecars) registrar.inflight.add(key)
  corpora
    .purge(workspaceId, corpusId, stale)
    .catch((e) => deps.log.warn('forgetting re-extracted documents failed', { error: (e as Error).message }))
    .finally(() => {
      for (const key of sidecars) registrar.inflight.delete(key)
    })
  return docs.length
}
