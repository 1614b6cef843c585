// Reading and decoding a request body: a hard size cap, then JSON or form by content type.
import { ApiError, fail } from '../errors/errors'
import { jsonTooDeep, MAX_JSON_DEPTH } from './json-depth'

/** Reads a request body with a hard cap, refusing early on a declared length over it. */
export async function readBody(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length')
  if (declared !== null) {
    if (Number(declared) > limit) throw tooLarge(limit)
    // A declared length within the limit (the server frames the body by it): read whole at once,
    // which over a socket saves the stream's reads; the size read is checked all the same.
    const bytes = new Uint8Array(await request.arrayBuffer())
    if (bytes.byteLength > limit) throw tooLarge(limit)
    return bytes
  }
  if (!request.body) return new Uint8Array()
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > limit) {
      await reader.cancel()
      throw tooLarge(limit)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}

function tooLarge(limit: number): ApiError {
  return fail('payload_too_large', `The request body exceeds the limit of ${limit} bytes.`, { limit })
}

/** The body as a value: form fields, or JSON refused when too deep or malformed; 415 on another type. */
export function decodeBody(request: Request, bytes: Uint8Array, kind: 'json' | 'form'): unknown {
  if (bytes.length === 0) return undefined
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes)
  if (kind === 'form') {
    if (type !== 'application/x-www-form-urlencoded') {
      throw fail(
        'unsupported_media_type',
        `Expected application/x-www-form-urlencoded, got ${type || 'none'}.`,
      )
    }
    return Object.fromEntries(new URLSearchParams(text))
  }
  if (type !== 'application/json' && !type.endsWith('+json')) {
    throw fail('unsupported_media_type', `Expected application/json, got ${type || 'none'}.`)
  }
  if (jsonTooDeep(text)) {
    throw new ApiError('validation_error', `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`, [
      { loc: ['body'], msg: `Nesting deeper than ${MAX_JSON_DEPTH} levels`, type: 'too_deep' },
    ])
  }
  try {
    return JSON.parse(text)
  } catch (e) {
    throw fail('malformed_json', `The request body is not valid JSON: ${(e as Error).message}`)
  }
}
