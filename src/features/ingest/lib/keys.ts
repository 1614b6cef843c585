import { objectKey, objectPrefix } from '../../../platform/storage/keys'

/**
 * Where ingestion keeps a base's objects: `<ws>/corpora/<corpus>/blobs/<blob>` for raw files (shared
 * by the documents of the base with the same content) and `<raw key>.<document>.txt` beside it for
 * each document's text sidecar.
 */
export function blobKey(workspaceId: string, corpusId: string, blobId: string): string {
  return objectKey(workspaceId, 'corpora', corpusId, 'blobs', blobId)
}

/** The text sidecar of a document next to its raw object. */
export function textKeyOf(rawKey: string, documentId: string): string {
  return `${rawKey}.${documentId}.txt`
}

/** Everything stored for a base. */
export function corpusPrefix(workspaceId: string, corpusId: string): string {
  return objectPrefix(workspaceId, 'corpora', corpusId)
}

/** The workspace and base an object belongs to, or null for objects outside the corpora area. */
export function corpusOfKey(key: string): { workspaceId: string; corpusId: string } | null {
  const m = /^([A-Za-z0-9_-]+)\/corpora\/([^/]+)\/./.exec(key)
  return m ? { workspaceId: m[1]!, corpusId: m[2]! } : null
}
