import type { Client } from 'minio'
import { type Clock, systemClock } from '../clock/clock'
import { assertDeletablePrefix, assertValidKey, assertValidPrefix } from './keys'
import type {
  ObjectBody,
  ObjectEntry,
  ObjectHead,
  ObjectStore,
  PutOptions,
  PutResult,
  SweepOptions,
} from './object-store'
import { bodyChunks, concatChunks, MeteredHash, nodeToWebStream, readAll } from './streams'

/** S3's smallest allowed part (all parts but the last). */
export const MIN_PART_SIZE = 5 * 1024 * 1024

/** Options of the S3 driver. */
export interface S3StoreOptions {
  /** Endpoint URL, e.g. http://127.0.0.1:9000 or https://s3.eu-west-1.amazonaws.com. */
  endpoint: string
  bucket: string
  accessKey: string
  secretKey: string
  region: string
  /** Bytes per multipart part; a body no larger than one part goes up in a single PUT. */
  partSize?: number
  clock?: Clock
}

interface Multipart {
  id: string
  parts: { part: number; etag: string }[]
  inFlight: Promise<void> | null
  buffers: [Uint8Array, Uint8Array]
}

const NOT_FOUND = new Set(['NoSuchKey', 'NotFound', 'NoSuchObject'])
const isNotFound = (e: unknown) => NOT_FOUND.has((e as { code?: string } | undefined)?.code ?? '')
const asBuffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength)

/**
 * Objects in one bucket of an S3-compatible server (MinIO, AWS, ...). A body no larger than one part
 * is sent as a single PUT; a larger one as a multipart upload with at most one part in flight while
 * the next fills, so memory stays near two parts whatever the object's size. Both are atomic on the
 * server: the object appears only when the PUT or the completion succeeds. A failed multipart upload
 * is aborted; one a crash interrupted is aborted by `sweepTemp`.
 */
export class S3ObjectStore implements ObjectStore {
  readonly driver = 's3' as const
  readonly bucket: string
  /** Made by ensureBucket, which every call awaits before it uses the client. */
  private client!: Client
  private readonly region: string
  private readonly partSize: number
  private readonly clock: Clock
  private ready: Promise<void> | null = null

  constructor(private readonly opts: S3StoreOptions) {
    this.bucket = opts.bucket
    this.region = opts.region
    this.partSize = Math.max(opts.partSize ?? 8 * 1024 * 1024, MIN_PART_SIZE)
    this.clock = opts.clock ?? systemClock
  }

  /** The client, made with the library loaded on first use (a server storing objects locally never loads it). */
  private async connect(): Promise<Client> {
    const { Client } = await import('minio')
    const url = new URL(this.opts.endpoint)
    const useSSL = url.protocol === 'https:'
    return new Client({
      endPoint: url.hostname,
      port: url.port ? Number(url.port) : useSSL ? 443 : 80,
      useSSL,
      accessKey: this.opts.accessKey,
      secretKey: this.opts.secretKey,
      region: this.opts.region,
      // Path-style addressing works with MinIO and every S3-compatible server, and on AWS too.
      pathStyle: true,
    })
  }

  /** Makes the client and creates the bucket on first use when it does not exist; retried after a failure. */
  private ensureBucket(): Promise<void> {
    this.ready ??= (async () => {
      this.client ??= await this.connect()
      if (!(await this.client.bucketExists(this.bucket)))
        await this.client.makeBucket(this.bucket, this.region).catch((e: { code?: string }) => {
          // Made meanwhile by another process starting beside this one (replicas starting together).
          if (e.code !== 'BucketAlreadyOwnedByYou' && e.code !== 'BucketAlreadyExists') throw e
        })
    })().catch((e) => {
      this.ready = null
      throw e
    })
    return this.ready
  }

  async put(key: string, body: ObjectBody, opts: PutOptions = {}): Promise<PutResult> {
    assertValidKey(key)
    await this.ensureBucket()
    const meter = new MeteredHash(opts.maxBytes)
    const headers: Record<string, string> = opts.contentType ? { 'Content-Type': opts.contentType } : {}
    const pending: Uint8Array[] = []
    let pendingLen = 0
    let upload: Multipart | null = null
    try {
      for await (const chunk of bodyChunks(body)) {
        meter.update(chunk)
        pending.push(chunk)
        pendingLen += chunk.byteLength
        // Strictly greater: a body of exactly one part still goes up as a single PUT.
        while (pendingLen > this.partSize) {
          upload ??= {
            id: await this.client.initiateNewMultipartUpload(this.bucket, key, headers),
            parts: [],
            inFlight: null,
            buffers: [new Uint8Array(this.partSize), new Uint8Array(this.partSize)],
          }
          // Two part buffers take turns: one is filled while the other is on the wire.
          const part = takeBytes(pending, upload.buffers[upload.parts.length % 2]!)
          pendingLen -= this.partSize
          await upload.inFlight
          upload.inFlight = this.sendPart(key, upload, part)
          // Observed here so a failure while the next part fills is not an unhandled rejection.
          upload.inFlight.catch(() => {})
        }
      }
      const rest = concatChunks(pending, pendingLen)
      if (!upload) {
        await this.client.putObject(this.bucket, key, asBuffer(rest), rest.byteLength, headers)
      } else {
        await upload.inFlight
        await this.sendPart(key, upload, rest)
        upload.parts.sort((a, b) => a.part - b.part)
        await this.client.completeMultipartUpload(this.bucket, key, upload.id, upload.parts)
      }
    } catch (e) {
      if (upload) {
        await upload.inFlight?.catch(() => {})
        // Best effort: a server that cannot abort leaves parts that are invisible and swept later.
        await this.client.abortMultipartUpload(this.bucket, key, upload.id).catch(() => {})
      }
      throw e
    }
    return { key, size: meter.size, sha256: meter.digest() }
  }

  private async sendPart(key: string, upload: Multipart, bytes: Uint8Array): Promise<void> {
    // The slot is taken before any await, so part numbers follow body order.
    const slot = { part: upload.parts.length + 1, etag: '' }
    upload.parts.push(slot)
    const res = await this.client.uploadPart(
      {
        bucketName: this.bucket,
        objectName: key,
        uploadID: upload.id,
        partNumber: slot.part,
        headers: { 'Content-Length': String(bytes.byteLength) },
      },
      asBuffer(bytes),
    )
    slot.etag = res.etag
  }

  async get(key: string): Promise<ReadableStream<Uint8Array> | null> {
    assertValidKey(key)
    await this.ensureBucket()
    try {
      return nodeToWebStream(await this.client.getObject(this.bucket, key))
    } catch (e) {
      if (isNotFound(e)) return null
      throw e
    }
  }

  async getBytes(key: string): Promise<Uint8Array | null> {
    const stream = await this.get(key)
    return stream ? readAll(stream) : null
  }

  async getText(key: string): Promise<string | null> {
    const bytes = await this.getBytes(key)
    return bytes ? new TextDecoder().decode(bytes) : null
  }

  async head(key: string): Promise<ObjectHead | null> {
    assertValidKey(key)
    await this.ensureBucket()
    try {
      const st = await this.client.statObject(this.bucket, key)
      const contentType = st.metaData?.['content-type'] as string | undefined
      return contentType ? { size: st.size, contentType } : { size: st.size }
    } catch (e) {
      if (isNotFound(e)) return null
      throw e
    }
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key)
    await this.ensureBucket()
    try {
      await this.client.removeObject(this.bucket, key)
    } catch (e) {
      if (!isNotFound(e)) throw e
    }
  }

  async deletePrefix(prefix: string): Promise<number> {
    assertDeletablePrefix(prefix)
    let count = 0
    let batch: string[] = []
    const flush = async () => {
      if (batch.length === 0) return
      const res = await this.client.removeObjects(this.bucket, batch)
      const failed = res.filter((r) => (r as { Code?: string }).Code)
      if (failed.length > 0) throw new Error(`S3 refused to delete ${failed.length} objects under ${prefix}`)
      count += batch.length
      batch = []
    }
    // Keys are gathered first: deleting while a listing pages on could skip entries on some servers.
    const keys: string[] = []
    for await (const o of this.list(prefix)) keys.push(o.key)
    for (const k of keys) {
      batch.push(k)
      if (batch.length === 1000) await flush()
    }
    await flush()
    return count
  }

  async *list(prefix: string): AsyncIterable<ObjectEntry> {
    assertValidPrefix(prefix)
    await this.ensureBucket()
    for await (const item of this.client.listObjectsV2(this.bucket, prefix, true)) {
      if (item.name) yield { key: item.name, size: item.size, lastModified: item.lastModified }
    }
  }

  /** Plain storage refuses no workspace (envelope-store.ts does, for a disabled key). */
  async assertReadable(_workspaceId: string): Promise<void> {}

  /** A PUT is durable once the bucket answered it. */
  async sync(_keys: readonly string[]): Promise<void> {}

  async presignPut(key: string, expiresSeconds: number): Promise<string | null> {
    assertValidKey(key)
    await this.ensureBucket()
    return this.client.presignedPutObject(this.bucket, key, expiresSeconds)
  }

  async sweepTemp(opts: SweepOptions = {}): Promise<number> {
    await this.ensureBucket()
    const cutoff = this.clock.now().getTime() - (opts.olderThanMs ?? 0)
    const stale: { key: string; uploadId: string }[] = []
    try {
      for await (const u of this.client.listIncompleteUploads(this.bucket, '', true)) {
        if (u.initiated && u.initiated.getTime() > cutoff) continue
        stale.push({ key: u.key, uploadId: u.uploadId })
      }
    } catch (e) {
      // Some S3-compatible servers cannot list uploads; there is nothing to sweep we could find.
      if ((e as { code?: string }).code === 'NotImplemented') return 0
      throw e
    }
    for (const s of stale) await this.client.abortMultipartUpload(this.bucket, s.key, s.uploadId)
    return stale.length
  }
}

/** Moves exactly `out.byteLength` bytes off the front of `pending` (mutating it) into `out`. */
function takeBytes(pending: Uint8Array[], out: Uint8Array): Uint8Array {
  const n = out.byteLength
  let at = 0
  while (at < n) {
    const c = pending[0]!
    const need = n - at
    if (c.byteLength <= need) {
      out.set(c, at)
      at += c.byteLength
      pending.shift()
    } else {
      out.set(c.subarray(0, need), at)
      pending[0] = c.subarray(need)
      at = n
    }
  }
  return out
}
