/**
 * The object store: where raw uploads, text sidecars and cartridges live. One interface, two drivers
 * (local disk and S3), both held to the same contract test suite so features never care which runs.
 */

/** What `put` accepts: a stream (never buffered whole), bytes, or a string written as UTF-8. */
export type ObjectBody = ReadableStream<Uint8Array> | Uint8Array | string

/** Options of one write. */
export interface PutOptions {
  /** MIME type kept with the object where the driver can keep it (S3); local disk does not. */
  contentType?: string
  /** Largest body accepted, in bytes; beyond it the write aborts with `ObjectTooLargeError`. */
  maxBytes?: number
  /**
   * Publish now, make durable later: the object is whole for readers as soon as `put` resolves, but
   * may be lost in a crash until `sync` of its key resolves. For a batch of fresh keys nothing refers
   * to yet (one request's files): one `sync` of them all costs far less than a synced write each.
   */
  deferSync?: boolean
}

/** What a finished write reports; `sha256` is computed while the body streams through. */
export interface PutResult {
  key: string
  size: number
  sha256: string
}

/** Metadata of a stored object. */
export interface ObjectHead {
  size: number
  contentType?: string
}

/** One entry of a listing. */
export interface ObjectEntry {
  key: string
  size: number
  /**
   * When the object was last written, by the store's clock (S3's `LastModified`, the file's mtime):
   * sweeps spare objects younger than a grace, which may be another replica's write in flight.
   */
  lastModified: Date
}

/** Options of the start-up sweep. */
export interface SweepOptions {
  /** Only leftovers at least this old are removed, so writes in flight elsewhere are spared. */
  olderThanMs?: number
}

/**
 * A flat key space of immutable-once-written objects. Every write is atomic: a reader sees the old
 * object, the new one, or nothing, never a prefix of a body being written.
 */
export interface ObjectStore {
  /** `local` or `s3`, for logs and for callers that offer presigned uploads. */
  readonly driver: 'local' | 's3'
  /** Streams `body` to `key`, replacing any object there once the whole body has arrived. */
  put(key: string, body: ObjectBody, opts?: PutOptions): Promise<PutResult>
  /** The object's bytes as a stream, or null when there is no such object. */
  get(key: string): Promise<ReadableStream<Uint8Array> | null>
  /** The whole object in memory (for small objects such as sidecars), or null. */
  getBytes(key: string): Promise<Uint8Array | null>
  /** The whole object decoded as UTF-8, or null. */
  getText(key: string): Promise<string | null>
  /** Size and content type, or null when absent. */
  head(key: string): Promise<ObjectHead | null>
  /**
   * Makes objects written with `deferSync` durable (on disk, with their names), all at once; a key
   * already durable or absent is no work. Drivers whose writes are durable on return do nothing.
   */
  sync(keys: readonly string[]): Promise<void>
  /** Removes the object; removing an absent object is not an error. */
  delete(key: string): Promise<void>
  /** Removes every object whose key starts with `prefix` (which must end with `/`); returns how many. */
  deletePrefix(prefix: string): Promise<number>
  /** Objects whose key starts with `prefix`, in key order. */
  list(prefix: string): AsyncIterable<ObjectEntry>
  /** A URL a client may PUT the object's bytes to directly (S3), or null when the driver has none. */
  presignPut(key: string, expiresSeconds: number): Promise<string | null>
  /** Removes leftovers of interrupted writes; run at start-up. Returns how many were removed. */
  sweepTemp(opts?: SweepOptions): Promise<number>
  /**
   * Throws when the workspace's content may not be read now (its encryption key is disabled:
   * envelope-store.ts); the drivers themselves never refuse. Callers serving content from memory
   * (warm caches, answers) ask it first, so a disabled key stops every read at once.
   */
  assertReadable(workspaceId: string): Promise<void>
}

/** A write exceeded its `maxBytes`; nothing was stored. Callers map it to 413. */
export class ObjectTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`Object exceeds the limit of ${limit} bytes`)
    this.name = 'ObjectTooLargeError'
  }
}

/** A key that could escape the store's root or that no driver can hold; a programming error. */
export class InvalidObjectKeyError extends Error {
  constructor(
    readonly key: string,
    readonly reason: string,
  ) {
    super(`Invalid object key ${JSON.stringify(key.slice(0, 200))}: ${reason}`)
    this.name = 'InvalidObjectKeyError'
  }
}
