import { objectKey, objectPrefix } from '../../../platform/storage/keys'

/**
 * Where ingestion keeps a base's objects: `<ws>/corpora/<corpus>/blobs/<blob>` for raw files (shared
 * by the documents of the base with the same content) and `<raw key>.<document>.txt` beside it for
 * each document's text sidecar (`<raw key>.txt` for a small file's, read as it was uploaded; in a
 * pack of small files, the sidecar is a range of the pack).
 */
export function blobKey(workspaceId: string, corpusId: string, blobId: string): string {
  return objectKey(workspaceId, 'corpora', corpusId, 'blobs', blobId)
}

/** The text sidecar of a document next to its raw object. */
export function textKeyOf(rawKey: string, documentId: string): string {
  return `${rawKey}.${documentId}.txt`
}

/**
 * The text sidecar of a small file read as it was uploaded (before its document has an id), next to
 * the file's own object.
 */
export function uploadTextKeyOf(rawKey: string): string {
  return `${rawKey}.txt`
}

/** The content type a text sidecar is stored with. */
export const SIDECAR_TYPE = 'text/plain; charset=utf-8'

/** Everything stored for a base. */
export function corpusPrefix(workspaceId: string, corpusId: string): string {
  return objectPrefix(workspaceId, 'corpora', corpusId)
}

/** The workspace and base an object belongs to, or null for objects outside the corpora area. */
export function corpusOfKey(key: string): { workspaceId: string; corpusId: string } | null {
  const m = /^([A-Za-z0-9_-]+)\/corpora\/([^/]+)\/./.exec(key)
  return m ? { workspaceId: m[1]!, corpusId: m[2]! } : null
}
