/**
 * Reading a document of a base: a window of its extracted text with its pages and sections, and
 * its original file (`/v1/corpora/{id}/documents/{document_id}/text` and `.../raw`).
 */
import { http, ok } from './client'
import type { DocumentText } from './types'

const doc = (baseId: string, docId: string) => ({ corpus_id: baseId, document_id: docId })

/** At most `limit` code units of the document's text from `offset`, with its pages and sections. */
export function getDocumentText(
  baseId: string,
  docId: string,
  window: { offset: number; limit: number },
  signal?: AbortSignal,
): Promise<DocumentText> {
  return ok(
    http.GET('/v1/corpora/{corpus_id}/documents/{document_id}/text', {
      params: { path: doc(baseId, docId), query: window },
      signal,
    }),
  )
}

/** The original file as uploaded, and the name the server gives it for saving. */
export interface OriginalFile {
  blob: Blob
  filename: string
}

/**
 * Downloads the original file. It needs the bearer token, so it cannot be a plain link: it is
 * read as a blob here and saved by the caller (`saveFile`).
 */
export async function downloadOriginal(
  baseId: string,
  docId: string,
  fallbackName: string,
): Promise<OriginalFile> {
  const { data, response } = await http.GET('/v1/corpora/{corpus_id}/documents/{document_id}/raw', {
    params: { path: doc(baseId, docId) },
    headers: { accept: '*/*' },
    parseAs: 'blob',
  })
  return {
    blob: data as Blob,
    filename: attachmentName(response.headers.get('content-disposition')) ?? fallbackName,
  }
}

/**
 * The name of a `Content-Disposition: attachment`: `filename*` (RFC 5987, UTF-8) when present and
 * decodable, else the plain `filename`. The server has already left out control and direction
 * characters in both forms.
 */
export function attachmentName(header: string | null): string | null {
  if (!header) return null
  const star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header)
  if (star?.[1]) {
    try {
      return decodeURIComponent(star[1].trim())
    } catch {
      // A malformed escape: fall back to the ASCII form.
    }
  }
  const plain = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header) ?? /filename\s*=\s*([^;]+)/i.exec(header)
  return plain?.[1] ? plain[1].replace(/\\(.)/g, '$1').trim() : null
}
