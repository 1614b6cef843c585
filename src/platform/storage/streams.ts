import type { FileHandle } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import { type ObjectBody, ObjectTooLargeError } from './object-store'

/** Size of the chunks read from disk; large enough for throughput, small enough to stay bounded. */
const READ_CHUNK = 256 * 1024
/**
 * The first chunk of a file: most objects read whole are small (a paragraph's text, a cartridge),
 * and a fresh READ_CHUNK buffer for each (zeroed, then mostly thrown away) cost more than the read.
 */
const FIRST_CHUNK = 16 * 1024

/**
 * The body's chunks, one at a time, pulled only as fast as the consumer asks. Leaving the loop
 * early (an error, a size limit) cancels the source stream so the uploader stops sending.
 */
export async function* bodyChunks(body: ObjectBody): AsyncGenerator<Uint8Array> {
  if (typeof body === 'string') {
    yield new TextEncoder().encode(body)
    return
  }
  if (body instanceof Uint8Array) {
    yield body
    return
  }
  const reader = body.getReader()
  let done = false
  try {
    for (;;) {
      const r = await reader.read()
      if (r.done) {
        done = true
        return
      }
      // Some sources hand out strings or ArrayBuffers despite the type; normalise to bytes.
      const v = r.value as unknown
      if (v instanceof Uint8Array) yield v
      else if (typeof v === 'string') yield new TextEncoder().encode(v)
      else if (v instanceof ArrayBuffer) yield new Uint8Array(v)
      else throw new TypeError('object body stream yielded a value that is not bytes')
    }
  } finally {
    if (!done) await reader.cancel().catch(() => {})
    reader.releaseLock()
  }
}

/** Counts bytes and hashes them as they pass, enforcing the size limit before a byte is stored. */
export class MeteredHash {
  size = 0
  private readonly hasher = new Bun.CryptoHasher('sha256')
  constructor(private readonly maxBytes?: number) {}

  /** Accounts for one chunk; throws `ObjectTooLargeError` once the total passes the limit. */
  update(chunk: Uint8Array): void {
    this.size += chunk.byteLength
    if (this.maxBytes !== undefined && this.size > this.maxBytes) throw new ObjectTooLargeError(this.maxBytes)
    this.hasher.update(chunk)
  }

  /** The hex SHA-256 of everything seen. */
  digest(): string {
    return this.hasher.digest('hex')
  }
}

/**
 * A web stream over an already open file. Reading from the handle rather than the path means a
 * concurrent replace or delete cannot change what this reader sees mid-way.
 */
export function fileHandleStream(fh: FileHandle): ReadableStream<Uint8Array> {
  let closed = false
  const close = async () => {
    if (closed) return
    closed = true
    await fh.close().catch(() => {})
  }
  // The first read is small; once a read fills its buffer, the next ones take READ_CHUNK, and one
  // that comes short (the end is near) is followed by a small one that finds the end.
  let chunk = FIRST_CHUNK
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const buf = new Uint8Array(chunk)
        const { bytesRead } = await fh.read(buf, 0, chunk, null)
        if (bytesRead === 0) {
          await close()
          controller.close()
          return
        }
        const full = bytesRead === chunk
        chunk = full ? READ_CHUNK : FIRST_CHUNK
        controller.enqueue(full ? buf : buf.subarray(0, bytesRead))
      } catch (e) {
        await close()
        controller.error(e)
      }
    },
    cancel: close,
  })
}

/** A web stream over a Node stream, pulling with backpressure and destroying the source on cancel. */
export function nodeToWebStream(readable: Readable): ReadableStream<Uint8Array> {
  const it = readable[Symbol.asyncIterator]()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const r = await it.next()
        if (r.done) controller.close()
        else controller.enqueue(typeof r.value === 'string' ? new TextEncoder().encode(r.value) : r.value)
      } catch (e) {
        controller.error(e)
      }
    },
    cancel() {
      readable.destroy()
    },
  })
}

/** Reads a whole stream into one array; only for objects known to be small. */
export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer())
}

/** Joins chunks into one array of `total` bytes. */
export function concatChunks(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]!.byteLength === total) return chunks[0]!
  const out = new Uint8Array(total)
  let at = 0
  for (const c of chunks) {
    out.set(c, at)
    at += c.byteLength
  }
  return out
}

/** A web stream pulling from an async iterable, which it closes when the reader cancels. */
export function streamOf(source: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const it = source[Symbol.asyncIterator]()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const r = await it.next()
        if (r.done) controller.close()
        else controller.enqueue(r.value)
      } catch (e) {
        controller.error(e)
      }
    },
    async cancel() {
      await it.return?.()
    },
  })
}

/** The bytes of `source` after its first `n`. */
export async function* skip(source: AsyncIterable<Uint8Array>, n: number): AsyncGenerator<Uint8Array> {
  let left = n
  for await (const c of source) {
    if (left >= c.byteLength) {
      left -= c.byteLength
      continue
    }
    yield left > 0 ? c.subarray(left) : c
    left = 0
  }
}
