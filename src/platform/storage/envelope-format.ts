// The at-rest format of an object sealed under its workspace's key (docs/encryption.md): a header
// carrying the object's data key wrapped by the workspace key, then the content in chunks of
// AES-256-GCM, each with its own nonce (the header's random prefix, the chunk's index and a
// last-chunk flag) and bound to the object's key, so a stream is encrypted and decrypted in bounded
// memory, and a reordered, dropped or truncated chunk, or an object moved to another key, fails
// authentication. The wrapped key is outside the authenticated data on purpose: rotation replaces
// it without touching a byte of the content.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

/**
 * `\x89ENGENV` and the format version. A plain object can only start so if someone uploaded such
 * bytes on purpose, to a workspace without a key (with one, their upload is sealed like any other):
 * it then reads as a sealed object that no key opens, which harms no one but that uploader.
 */
export const MAGIC = Uint8Array.from([0x89, 0x45, 0x4e, 0x47, 0x45, 0x4e, 0x56, 0x01])
/** Plaintext bytes a chunk holds (the last may hold fewer); 64 KiB bounds memory and tag overhead. */
export const CHUNK_EXP = 16
const TAG = 16
const PREFIX = 7
/** magic, chunk size exponent, nonce prefix: the authenticated fixed part of the header. */
const FIXED = MAGIC.length + 1 + PREFIX
/** The fixed part and the two-byte length of the wrapped key: all a header needs before the key. */
export const HEADER_MIN = FIXED + 2

/** A parsed header. */
export interface SealedHeader {
  /** The authenticated fixed part (magic, chunk size, nonce prefix). */
  fixed: Uint8Array
  /** The data key as the workspace key wrapped it. */
  wrapped: Uint8Array
  /** Bytes of the whole header; the content starts here. */
  length: number
}

/** The content of a sealed object was altered, truncated or reordered (or the key is not its). */
export class SealedContentBroken extends Error {
  override name = 'SealedContentBroken'
}

/** Whether `head` (at least the magic's length of bytes) starts a sealed object. */
export function isSealed(head: Uint8Array): boolean {
  if (head.byteLength < MAGIC.length) return false
  for (let i = 0; i < MAGIC.length; i++) if (head[i] !== MAGIC[i]) return false
  return true
}

/** A new header for a data key wrapped as `wrapped`, with a fresh nonce prefix. */
export function newHeader(wrapped: Uint8Array): Uint8Array {
  const fixed = new Uint8Array(FIXED)
  fixed.set(MAGIC, 0)
  fixed[MAGIC.length] = CHUNK_EXP
  fixed.set(randomBytes(PREFIX), MAGIC.length + 1)
  return withWrapped(fixed, wrapped)
}

/** The header `fixed` with another wrapped key (rotation): the content stays valid under it. */
export function withWrapped(fixed: Uint8Array, wrapped: Uint8Array): Uint8Array {
  if (wrapped.byteLength > 0xffff) throw new Error('a wrapped data key longer than 65535 bytes')
  const out = new Uint8Array(FIXED + 2 + wrapped.byteLength)
  out.set(fixed.subarray(0, FIXED), 0)
  out[FIXED] = wrapped.byteLength >> 8
  out[FIXED + 1] = wrapped.byteLength & 0xff
  out.set(wrapped, FIXED + 2)
  return out
}

/** The header at the start of `bytes`, or null while more bytes are needed. Throws on a bad one. */
export function parseHeader(bytes: Uint8Array): SealedHeader | null {
  if (bytes.byteLength < HEADER_MIN) return null
  if (!isSealed(bytes)) throw new SealedContentBroken('not a sealed object')
  if (bytes[MAGIC.length] !== CHUNK_EXP) throw new SealedContentBroken('unknown chunk size')
  const n = (bytes[FIXED]! << 8) | bytes[FIXED + 1]!
  if (bytes.byteLength < HEADER_MIN + n) return null
  return {
    fixed: bytes.slice(0, FIXED),
    wrapped: bytes.slice(HEADER_MIN, HEADER_MIN + n),
    length: HEADER_MIN + n,
  }
}

/** The plaintext size of a sealed object of `stored` bytes whose header is `headerLength` long. */
export function plainSize(stored: number, headerLength: number): number {
  const body = stored - headerLength
  const chunks = Math.max(1, Math.ceil(body / ((1 << CHUNK_EXP) + TAG)))
  return Math.max(0, body - chunks * TAG)
}

function nonce(fixed: Uint8Array, index: number, last: boolean): Uint8Array {
  const n = new Uint8Array(12)
  n.set(fixed.subarray(MAGIC.length + 1, FIXED), 0)
  new DataView(n.buffer).setUint32(PREFIX, index)
  n[11] = last ? 1 : 0
  return n
}

/**
 * The data every chunk authenticates: the header's fixed part and the object's key, so that a sealed
 * object put under another key (another document's, by someone with write access to the bucket)
 * does not open there.
 */
function associated(fixed: Uint8Array, objectKey: string): Uint8Array {
  return Buffer.concat([fixed.subarray(0, FIXED), Buffer.from(objectKey, 'utf8')])
}

function sealChunk(
  key: Uint8Array,
  fixed: Uint8Array,
  aad: Uint8Array,
  index: number,
  last: boolean,
  plain: Uint8Array,
) {
  const c = createCipheriv('aes-256-gcm', key, nonce(fixed, index, last))
  c.setAAD(aad)
  const out = Buffer.concat([c.update(plain), c.final(), c.getAuthTag()])
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength)
}

function openChunk(
  key: Uint8Array,
  fixed: Uint8Array,
  aad: Uint8Array,
  index: number,
  last: boolean,
  sealed: Uint8Array,
) {
  if (sealed.byteLength < TAG) throw new SealedContentBroken('a chunk shorter than its tag')
  const d = createDecipheriv('aes-256-gcm', key, nonce(fixed, index, last))
  d.setAAD(aad)
  d.setAuthTag(sealed.subarray(sealed.byteLength - TAG))
  try {
    const out = Buffer.concat([d.update(sealed.subarray(0, sealed.byteLength - TAG)), d.final()])
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength)
  } catch {
    throw new SealedContentBroken('a chunk of the object does not authenticate')
  }
}

/** Collects bytes and hands out leading runs of a given length without copying more than needed. */
class Buffered {
  private parts: Uint8Array[] = []
  size = 0
  push(b: Uint8Array): void {
    if (b.byteLength === 0) return
    this.parts.push(b)
    this.size += b.byteLength
  }
  /** The first `n` bytes (n <= size), removed. */
  take(n: number): Uint8Array {
    const out = new Uint8Array(n)
    let at = 0
    while (at < n) {
      const p = this.parts[0]!
      const k = Math.min(p.byteLength, n - at)
      out.set(p.subarray(0, k), at)
      at += k
      if (k === p.byteLength) this.parts.shift()
      else this.parts[0] = p.subarray(k)
    }
    this.size -= n
    return out
  }
}

/** Encrypts plaintext chunks as they come (the header first), holding at most one chunk back. */
export async function* sealChunks(
  key: Uint8Array,
  header: Uint8Array,
  plain: AsyncIterable<Uint8Array>,
  objectKey: string,
): AsyncGenerator<Uint8Array> {
  const fixed = header.subarray(0, FIXED)
  const aad = associated(fixed, objectKey)
  const size = 1 << CHUNK_EXP
  yield header
  const buf = new Buffered()
  let index = 0
  for await (const part of plain) {
    buf.push(part)
    // Strictly more than a chunk: the last chunk is only known at the end, and it carries the flag.
    while (buf.size > size) yield sealChunk(key, fixed, aad, index++, false, buf.take(size))
  }
  yield sealChunk(key, fixed, aad, index, true, buf.take(buf.size))
}

/** Decrypts a whole sealed object held in memory (`stored`, its header parsed as `header`). */
export async function openWhole(
  key: Uint8Array,
  header: SealedHeader,
  stored: Uint8Array,
  objectKey: string,
): Promise<Uint8Array> {
  const parts: Uint8Array[] = []
  const content = (async function* () {
    yield stored.subarray(header.length)
  })()
  for await (const c of openChunks(key, header.fixed, content, objectKey)) parts.push(c)
  return parts.length === 1 ? parts[0]! : new Uint8Array(Buffer.concat(parts))
}

/** Decrypts the content after a header (`fixed` its fixed part), chunk by chunk. */
export async function* openChunks(
  key: Uint8Array,
  fixed: Uint8Array,
  sealed: AsyncIterable<Uint8Array>,
  objectKey: string,
): AsyncGenerator<Uint8Array> {
  const aad = associated(fixed, objectKey)
  const full = (1 << CHUNK_EXP) + TAG
  const buf = new Buffered()
  let index = 0
  for await (const part of sealed) {
    buf.push(part)
    while (buf.size > full) yield openChunk(key, fixed, aad, index++, false, buf.take(full))
  }
  yield openChunk(key, fixed, aad, index, true, buf.take(buf.size))
}
