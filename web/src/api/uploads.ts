/**
 * One file's upload (`POST /v1/corpora/{id}/documents`, multipart field `files`) through
 * XMLHttpRequest, the one browser API that reports upload progress: `fetch` cannot, so each file
 * goes in a request of its own and gets its own bar and its own error.
 */
import { ApiError, errorOf } from './client'
import type { paths } from './openapi.gen'
import { session } from './session'
import type { Doc } from './types'

/** The upload route, named as the document names it (a renamed route fails to type-check here). */
const UPLOAD: keyof paths = '/v1/corpora/{corpus_id}/documents'

/** A running upload: its result, and a way to stop it. */
export interface UploadRequest {
  done: Promise<Doc[]>
  abort: () => void
}

/**
 * Sends `file` under the relative path `path` (the part's filename is the path in the base, folders
 * kept). `onProgress` gets bytes sent and bytes to send. Rejects with an `ApiError` in the API's
 * words, or an `AbortError` when aborted.
 */
export function uploadFile(
  corpusId: string,
  file: Blob,
  path: string,
  onProgress: (sent: number, total: number) => void,
): UploadRequest {
  const xhr = new XMLHttpRequest()
  const done = new Promise<Doc[]>((resolve, reject) => {
    xhr.open('POST', UPLOAD.replace('{corpus_id}', encodeURIComponent(corpusId)))
    xhr.setRequestHeader('accept', 'application/json')
    const token = session.value?.token
    if (token) xhr.setRequestHeader('authorization', `Bearer ${token}`)
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded, e.total)
    }
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve(JSON.parse(xhr.responseText) as Doc[])
        } catch {
          reject(new ApiError(xhr.status, 'bad_response', 'The server answered something that is not JSON.'))
        }
        return
      }
      // The same reading of the error body as every other call (and a 401 ends the session).
      const headers = new Headers()
      const retry = xhr.getResponseHeader('retry-after')
      if (retry) headers.set('retry-after', retry)
      const res = new Response(xhr.responseText, { status: xhr.status, statusText: xhr.statusText, headers })
      errorOf(res, token !== undefined).then(reject, reject)
    }
    xhr.onerror = () =>
      reject(
        new ApiError(
          0,
          'network_error',
          'The upload was interrupted: the server could not be reached. Try again.',
        ),
      )
    xhr.onabort = () => reject(new DOMException('The upload was stopped.', 'AbortError'))
    const form = new FormData()
    form.append('files', file, path)
    xhr.send(form)
  })
  return { done, abort: () => xhr.abort() }
}
