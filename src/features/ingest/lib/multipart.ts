import { Readable } from 'node:stream'
import type { ReadableStream as NodeWebStream } from 'node:stream/web'
import busboy from 'busboy'

/** One file of a multipart request; its bytes must be read (or drained) before the next part. */
export interface FilePart {
  field: string
  filename: string
  mimeType: string
  stream: Readable
}

/** The request body passed its limit; nothing more is read. */
export class RequestTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`The request exceeds the limit of ${limit} bytes.`)
    this.name = 'RequestTooLargeError'
  }
}

/** The body is not a multipart form we can read (no boundary, truncated, too many files). */
export class MultipartError extends Error {
  constructor(
    message: string,
    readonly kind: 'malformed' | 'too_many_files' = 'malformed',
  ) {
    super(message)
    this.name = 'MultipartError'
  }
}

export interface MultipartLimits {
  maxRequestBytes: number
  maxFiles: number
}

type Event = { part: FilePart } | { error: Error } | { done: true }

/** A web stream that counts what passes and fails once the total passes `limit`. */
function counted(body: ReadableStream<Uint8Array>, limit: number): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  let total = 0
  return new ReadableStream<Uint8Array>(
    {
      async pull(c) {
        const r = await reader.read()
        if (r.done) return c.close()
        total += r.value.byteLength
        if (total > limit) {
          await reader.cancel().catch(() => {})
          return c.error(new RequestTooLargeError(limit))
        }
        c.enqueue(r.value)
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  )
}

/**
 * The file parts of a `multipart/form-data` request, one at a time, as the body arrives. The parser
 * only reads on while the current part is consumed, so a whole file is never held in memory; the
 * request's total size is counted as it streams. Leaving the loop early stops reading the body.
 */
export async function* fileParts(request: Request, limits: MultipartLimits): AsyncGenerator<FilePart> {
  let bb: busboy.Busboy
  try {
    bb = busboy({
      headers: { 'content-type': request.headers.get('content-type') ?? '' },
      // Folder uploads name their files with relative paths; keep them (they are checked later).
      preservePath: true,
      defParamCharset: 'utf8',
      limits: {
        files: limits.maxFiles,
        fields: 1000,
        fieldSize: 1024 * 1024,
        parts: limits.maxFiles + 1000,
        headerPairs: 2000,
      },
    })
  } catch (e) {
    throw new MultipartError(`The body is not multipart/form-data: ${(e as Error).message}.`)
  }
  if (!request.body) throw new MultipartError('The request has no body.')
  const source = Readable.fromWeb(counted(request.body, limits.maxRequestBytes) as unknown as NodeWebStream)
  const events: Event[] = []
  let wake: (() => void) | null = null
  const push = (e: Event) => {
    events.push(e)
    wake?.()
    wake = null
  }
  bb.on('file', (field, stream, info) => {
    // The parser may fail a part (a truncated body) before the consumer reads it; the failure
    // reaches the consumer through its read, not as an unhandled 'error' event.
    stream.on('error', () => {})
    push({ part: { field, filename: info.filename ?? '', mimeType: info.mimeType, stream } })
  })
  bb.on('filesLimit', () =>
    push({
      error: new MultipartError(`More than ${limits.maxFiles} files in one request.`, 'too_many_files'),
    }),
  )
  bb.on('error', (e) => push({ error: e instanceof Error ? e : new MultipartError(String(e)) }))
  bb.on('close', () => push({ done: true }))
  source.on('error', (e) => {
    // The parser hands the error to the file being read, so its writer stops too.
    bb.destroy(e)
    push({ error: e })
  })
  source.pipe(bb)
  try {
    for (;;) {
      while (events.length === 0) await new Promise<void>((r) => (wake = r))
      const ev = events.shift()!
      if ('error' in ev) throw ev.error
      if ('done' in ev) return
      yield ev.part
      // A part the consumer did not read to its end is drained so the parser can move on.
      ev.part.stream.resume()
    }
  } finally {
    source.unpipe(bb)
    source.destroy()
    bb.removeAllListeners('file')
    for (const ev of events) if ('part' in ev) ev.part.stream.resume()
    bb.on('error', () => {})
    bb.destroy()
  }
}

/** A part this small is read whole before it is stored (its write overlaps reading the next parts). */
export const SMALL_PART_BYTES = 64 * 1024

/**
 * A part this small is read whole (a larger one streams to its object): one larger than
 * SMALL_PART_BYTES is written alone, and its text may be read as it is uploaded (a plain text file
 * of at most 256 KiB is read in this process: extract.sandbox.ts).
 */
export const WHOLE_PART_BYTES = 4 * SMALL_PART_BYTES

/**
 * A part's bytes whole when it ends within `limit` bytes, else a web stream of all of them (those
 * read so far first), pulled with backpressure; cancelling it destroys the part.
 */
export async function readUpTo(
  part: Readable,
  limit: number,
): Promise<Uint8Array | ReadableStream<Uint8Array>> {
  const it = part[Symbol.asyncIterator]()
  const first: Uint8Array[] = []
  let size = 0
  while (size <= limit) {
    const r = await it.next()
    if (r.done) return new Uint8Array(Buffer.concat(first))
    const chunk = r.value as Uint8Array
    first.push(chunk)
    size += chunk.byteLength
  }
  return new ReadableStream<Uint8Array>(
    {
      async pull(c) {
        const held = first.shift()
        if (held) return c.enqueue(held)
        try {
          const r = await it.next()
          if (r.done) return c.close()
          c.enqueue(r.value as Uint8Array)
        } catch (e) {
          c.error(e)
        }
      },
      cancel() {
        part.destroy()
      },
    },
    { highWaterMark: 0 },
  )
}

/** A stream that calls `seen` with each chunk as it passes (the caller keeps the first kilobytes). */
export function seenStream(
  body: ReadableStream<Uint8Array>,
  seen: (chunk: Uint8Array) => void,
): ReadableStream<Uint8Array> {
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, c) {
        seen(chunk)
        c.enqueue(chunk)
      },
    }),
  )
}
