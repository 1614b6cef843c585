import { newId } from '../../../platform/crypto/random'
import type { DocumentRow } from '../../corpora/corpora.service'
import { EXTRACTOR_VERSION } from '../extract/extract'
import type { Registrar } from '../ingest.registrar'
import { EXTRACT_JOB, type ExtractPayload, type IngestDeps } from '../ingest.types'

/** Documents put back a unit. */
const REEXTRACT_SLICE = 100

/** What extracting again works with. */
export type ReextractDeps = Pick<IngestDeps, 'store' | 'random' | 'log' | 'corpora' | 'queue'> & {
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
 * left it (no text, no sections, `pending`) with an extraction job, a unit a hundred, as a new
 * upload of the same content would be; what the old text left in the index goes after the commit.
 * No sync run counts them: nothing arrived. Returns how many documents were put back.
 */
export async function reextractStale(
  deps: ReextractDeps,
  workspaceId: string,
  corpusId: string,
): Promise<number> {
  const { store, corpora, registrar } = deps
  const docs = (await corpora.parentDocuments(corpusId)).filter(extractedBefore)
  if (docs.length === 0) return 0
  const now = registrar.now()
  // Settles nothing: no sync run has this id.
  const runId = newId(deps.random, 'run')
  const stale: DocumentRow[] = []
  // A unit a slice of documents, so a large base is not one long unit.
  for (let at = 0; at < docs.length; at += REEXTRACT_SLICE) {
    await store.unit(async () => {
      for (const d of docs.slice(at, at + REEXTRACT_SLICE))
        await putBack(deps, workspaceId, corpusId, d, runId, now, stale)
    })
  }
  // The new sidecar, ...(await corpora.sections(d.id)))
  // The new sidecar has the old one's key (the same file, the same document): kept from the purge,
  // which forgets the old sections' index entries and cartridges.
  const sidecars = new Set(docs.map((d) => d.text_key!))
  for (const key of sidecars) registrar.inflight.add(key)
  Promise.resolve(corpora.purge(workspaceId, corpusId, stale))
    .catch((e) => deps.log.warn('forgetting re-extracted documents failed', { error: (e as Error).message }))
    .finally(() => {
      for (const key of sidecars) registrar.inflight.delete(key)
    })
  return docs.length
}

/** Puts one document back as its upload left it, with its extraction job; in the caller's unit. */
async function putBack(
  deps: ReextractDeps,
  workspaceId: string,
  corpusId: string,
  d: DocumentRow,
  runId: string,
  now: number,
  stale: DocumentRow[],
): Promise<void> {
  const { corpora, queue } = deps
  stale.push(d, ...(await corpora.sections(d.id)))
  const { size, content_type: contentType, sha256, source, managed_by: managedBy } = d
  await corpora.replaceContent(d.id, {
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
  await queue.add({
    workspaceId,
    kind: EXTRACT_JOB,
    subjectId: d.id,
    payload: { ...payload },
    maxAttempts: 3,
  })
}
