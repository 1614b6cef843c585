// Envelope encryption in front of the object store (docs/encryption.md). The store does not know
// about keys: a feature installs a `Keyring` that, per workspace, says whether its content may be
// read, hands out a fresh data key for each new object and unwraps the key an object carries.
// Without a keyring, or for a workspace without a key, objects pass through plain.
import {
  HEADER_MIN,
  isSealed,
  newHeader,
  openChunks,
  openWhole,
  parseHeader,
  plainSize,
  sealChunks,
  withWrapped,
} from './envelope-format'
import {
  InvalidObjectKeyError,
  type ObjectBody,
  type ObjectEntry,
  type ObjectHead,
  type ObjectStore,
  type PutOptions,
  type PutResult,
  type SweepOptions,
} from './object-store'
import { cut, objectOf, PackCache, parseRange } from './ranges'
import { bodyChunks, MeteredHash, skip, streamOf } from './streams'

/** A data key for one new object: the key itself and the same key wrapped by the workspace key. */
export interface DataKey {
  plaintext: Uint8Array
  wrapped: Uint8Array
}

/** The per-workspace key lookup a feature provides (src/features/kms). Its refusals propagate as they are. */
export interface Keyring {
  /** Throws when the workspace's content may not be read now (its key disabled). */
  assertReadable(workspaceId: string): Promise<void>
  /** A fresh data key for a new object of the workspace, or null when the workspace keeps objects plain. */
  dataKey(workspaceId: string): Promise<DataKey | null>
  /** The data key an object of the workspace carries, unwrapped by the workspace key. */
  unwrap(workspaceId: string, wrapped: Uint8Array): Promise<Uint8Array>
}

/** An object's first bytes looked at, and the whole object still to read. */
interface Peeked {
  head: Uint8Array
  /** Every byte of the object, `head` included. */
  rest: AsyncIterable<Uint8Array>
  /** Stops reading (closes the file or connection), whether or not `rest` was started. */
  close(): Promise<void>
}

/** The workspace an object key belongs to: keys are `<workspaceId>/...` (keys.ts). */
export function workspaceOfKey(key: string): string {
  return key.slice(0, key.indexOf('/'))
}

/**
 * An ObjectStore that seals what it writes under the writing workspace's key and opens what it
 * reads, streaming both ways. Sizes and SHA-256 reported by `put` and `head` are the plaintext's.
 */
export class EnvelopeStore implements ObjectStore {
  private keyring: Keyring | null = null
  private readonly packs = new PackCache() // packs just read, for their ranges read next

  constructor(readonly inner: ObjectStore) {}

  get driver(): 'local' | 's3' {
    return this.inner.driver
  }

  /** Installs the key lookup (once, by the feature that owns keys). */
  install(keyring: Keyring): void {
    this.keyring = keyring
  }

  async assertReadable(workspaceId: string): Promise<void> {
    await this.keyring?.assertReadable(workspaceId)
  }

  async put(key: string, body: ObjectBody, opts: PutOptions = {}): Promise<PutResult> {
    if (parseRange(key)) throw new InvalidObjectKeyError(key, 'a range is written with its pack')
    // Forgotten before and after: a read of the pack begun while it is written is not kept.
    this.packs.forget(key)
    try {
      return await this.write(key, body, opts)
    } finally {
      this.packs.forget(key)
    }
  }

  private async write(key: string, body: ObjectBody, opts: PutOptions): Promise<PutResult> {
    const dk = this.keyring ? await this.keyring.dataKey(workspaceOfKey(key)) : null
    if (!dk) return this.inner.put(key, body, opts)
    const meter = new MeteredHash(opts.maxBytes)
    const metered = async function* () {
      for await (const c of bodyChunks(body)) {
        meter.update(c)
        yield c
      }
    }
    const sealed = streamOf(sealChunks(dk.plaintext, newHeader(dk.wrapped), metered(), key))
    await this.inner.put(key, sealed, { contentType: opts.contentType, deferSync: opts.deferSync })
    return { key, size: meter.size, sha256: meter.digest() }
  }

  sync(keys: readonly string[]): Promise<void> {
    return this.inner.sync(keys)
  }

  async get(key: string): Promise<ReadableStream<Uint8Array> | null> {
    if (parseRange(key)) return this.getBytes(key).then((b) => b && new Blob([b as BlobPart]).stream())
    const ws = workspaceOfKey(key)
    await this.assertReadable(ws)
    const peeked = await this.peek(key)
    if (!peeked) return null
    if (!isSealed(peeked.head) || !this.keyring) return streamOf(peeked.rest)
    try {
      const header = await headerOf(peeked)
      const dataKey = await this.keyring.unwrap(ws, header.wrapped)
      return streamOf(openChunks(dataKey, header.fixed, skip(peeked.rest, header.length), key))
    } catch (e) {
      await peeked.close()
      throw e
    }
  }

  /** Read whole in one read of the stored bytes (no stream), opened here when sealed. */
  async getBytes(key: string): Promise<Uint8Array | null> {
    const ws = workspaceOfKey(key)
    await this.assertReadable(ws)
    const range = parseRange(key)
    if (range) return cut(await this.packs.read(range.pack, () => this.getBytes(range.pack)), range, key)
    const stored = await this.inner.getBytes(key)
    if (!stored || !isSealed(stored) || !this.keyring) return stored
    const header = parseHeader(stored)
    if (!header) throw new Error('a sealed object ends inside its header')
    return openWhole(await this.keyring.unwrap(ws, header.wrapped), header, stored, key)
  }

  getText(key: string): Promise<string | null> {
    return this.getBytes(key).then((b) => b && new TextDecoder().decode(b))
  }

  /** The plaintext size: a sealed object's header is read (no key needed) to take it off. */
  async head(key: string): Promise<ObjectHead | null> {
    const range = parseRange(key)
    if (range) return (await this.head(range.pack)) && { size: range.length }
    const h = await this.inner.head(key)
    if (!h || h.size < HEADER_MIN) return h
    const peeked = await this.peek(key)
    if (!peeked) return h
    // Only its first bytes were read: a plain object's file is closed now, not by the collector.
    if (!isSealed(peeked.head)) return peeked.close().then(() => h)
    const header = await headerOf(peeked, true)
    return { ...h, size: plainSize(h.size, header.length) }
  }

  delete(key: string): Promise<void> {
    this.packs.forget(key)
    return parseRange(key) ? Promise.resolve() : this.inner.delete(key) // a pack goes with its last range
  }

  deletePrefix(prefix: string): Promise<number> {
    return this.inner.deletePrefix(prefix)
  }

  /** Listed sizes are the stored ones (a sealed object's header and tags included). */
  list(prefix: string): AsyncIterable<ObjectEntry> {
    return this.inner.list(prefix)
  }

  /** Bytes put through the URL reach the bucket plain; the keyring's feature seals them in place later. */
  presignPut(key: string, expiresSeconds: number): Promise<string | null> {
    return this.inner.presignPut(key, expiresSeconds)
  }

  sweepTemp(opts?: SweepOptions): Promise<number> {
    return this.inner.sweepTemp(opts)
  }

  /** Whether the stored object is sealed; null when there is none. Reads only its first bytes. */
  async sealedState(key: string): Promise<boolean | null> {
    const peeked = await this.peek(objectOf(key))
    if (!peeked) return null
    const sealed = isSealed(peeked.head)
    await peeked.close()
    return sealed
  }

  /**
   * Seals a plain object in place under its workspace's key (objects written before the key was
   * set); returns whether it did. A sealed object, a missing one, or a workspace without a key: false.
   */
  async sealInPlace(rangeOrKey: string): Promise<boolean> {
    const key = objectOf(rangeOrKey)
    const peeked = await this.peek(key)
    if (!peeked) return false
    try {
      const dk =
        isSealed(peeked.head) || !this.keyring ? null : await this.keyring.dataKey(workspaceOfKey(key))
      if (dk) {
        await this.inner.put(key, streamOf(sealChunks(dk.plaintext, newHeader(dk.wrapped), peeked.rest, key)))
        return true
      }
    } finally {
      await peeked.close()
    }
    return false
  }

  /**
   * Rotation: gives the object's wrapped data key to `rewrap` and stores what it returns in its
   * place, copying the encrypted content unchanged. Returns whether the object was rewritten.
   */
  async rewrapInPlace(
    rangeOrKey: string,
    rewrap: (wrapped: Uint8Array) => Promise<Uint8Array | null>,
  ): Promise<boolean> {
    const key = objectOf(rangeOrKey)
    const peeked = await this.peek(key)
    if (!peeked) return false
    try {
      if (!isSealed(peeked.head)) return false
      const header = await headerOf(peeked)
      const next = await rewrap(header.wrapped)
      if (!next) return false
      const content = skip(peeked.rest, header.length)
      const body = async function* () {
        yield withWrapped(header.fixed, next)
        yield* content
      }
      await this.inner.put(key, streamOf(body()))
      return true
    } finally {
      await peeked.close()
    }
  }

  /** The object's first bytes (enough for a header's fixed part), and all of it still to read. */
  private async peek(key: string): Promise<Peeked | null> {
    const stream = await this.inner.get(key)
    if (!stream) return null
    const it = bodyChunks(stream)
    const seen: Uint8Array[] = []
    let size = 0
    while (size < HEADER_MIN) {
      const r = await it.next()
      if (r.done) break
      seen.push(r.value)
      size += r.value.byteLength
    }
    const head = Buffer.concat(seen)
    // Stopped at its first yield (a text window read, then cancelled), it closes the file too.
    const rest = async function* () {
      try {
        if (head.byteLength > 0) yield new Uint8Array(head.buffer, head.byteOffset, head.byteLength)
        yield* it
      } finally {
        await it.return(undefined)
      }
    }
    const close = async () => {
      await it.return(undefined)
    }
    return { head: new Uint8Array(head.buffer, head.byteOffset, head.byteLength), rest: rest(), close }
  }
}

/**
 * The header of a peeked sealed object. It usually fits in the first chunk read; otherwise the
 * object's bytes are read on, and the caller gets the same `rest` (reading resumes after them).
 */
async function headerOf(p: Peeked, thenCancel = false) {
  let header = parseHeader(p.head)
  if (!header) {
    const it = p.rest[Symbol.asyncIterator]()
    const seen: Uint8Array[] = []
    for (;;) {
      const r = await it.next()
      if (r.done) throw new Error('a sealed object ends inside its header')
      seen.push(r.value)
      header = parseHeader(Buffer.concat(seen))
      if (header) break
    }
    const all = Buffer.concat(seen)
    p.rest = (async function* () {
      yield new Uint8Array(all.buffer, all.byteOffset, all.byteLength)
      yield* { [Symbol.asyncIterator]: () => it }
    })()
  }
  if (thenCancel) await p.close()
  return header
}
