// s3rver (an S3-compatible server in-process) on loopback, with five of its defects mended so that
// listings page and name keys the way S3's do, a multi-object delete does not fail half-way and a
// read after a write reads it whole. The code under test talks to it unchanged, over real HTTP.
import crypto, { randomUUID } from 'node:crypto'
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs'
import { mkdir, rename, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import S3rver from 's3rver'

export interface S3Standin {
  /** http://127.0.0.1:<port> */
  endpoint: string
  /** s3rver's built-in account. */
  accessKey: string
  secretKey: string
  stop(): Promise<void>
}

interface ListOptions {
  delimiter?: string
  startAfter?: string
  maxKeys?: number
}
interface Listed {
  objects: { key: string }[]
  commonPrefixes: string[]
  isTruncated: boolean
}
interface StoredObject {
  bucket: string
  key: string
  content: Readable | Buffer
  metadata: Record<string, string>
}
interface Store {
  listObjects(bucket: string, options: ListOptions): Promise<Listed>
  deleteObject(bucket: string, key: string): Promise<void>
  getObject(bucket: string, key: string, options?: unknown): Promise<unknown>
  putObject(object: StoredObject): Promise<{ size: number; md5: string }>
  putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>
  getResourcePath(bucket: string, key: string, resource: string): string
}

/**
 * s3rver encrypts its continuation tokens with DES, which Bun's crypto does not have: every
 * truncated ListObjectsV2 answer is a 500. DES stands for nothing here but an opaque wrapping of
 * the last key, so AES-128 (key and IV zero-padded) stands in for it, for this process only.
 */
function lendDes(): void {
  const c = crypto as unknown as Record<string, (...a: unknown[]) => unknown>
  if ((c.createCipheriv as { desLent?: boolean }).desLent) return
  const pad = (b: unknown) => Buffer.concat([Buffer.from(b as Uint8Array), Buffer.alloc(16)]).subarray(0, 16)
  for (const name of ['createCipheriv', 'createDecipheriv']) {
    const original = c[name]!
    const lent = (alg: unknown, key: unknown, iv: unknown, ...rest: unknown[]) =>
      alg === 'des' ? original('aes-128-cbc', pad(key), pad(iv)) : original(alg, key, iv, ...rest)
    c[name] = Object.assign(lent, { desLent: true })
  }
}

/**
 * s3rver walks its directory in readdir order, not key order, and cuts pages there, so a listing
 * that starts after a key skips others. S3 answers in key order; this store does too: it lists
 * the bucket whole, sorts, and cuts the page itself.
 */
function listInKeyOrder(store: Store): void {
  const listAll = store.listObjects.bind(store)
  store.listObjects = async (bucket, options) => {
    if (options.delimiter) return listAll(bucket, options)
    const all = await listAll(bucket, { ...options, startAfter: '', maxKeys: Number.POSITIVE_INFINITY })
    const after = Buffer.from(options.startAfter ?? '')
    const rest = all.objects
      .map((o) => ({ o, bytes: Buffer.from(o.key) }))
      .filter((k) => Buffer.compare(k.bytes, after) > 0)
      .sort((a, b) => Buffer.compare(a.bytes, b.bytes))
      .map((k) => k.o)
    const max = options.maxKeys ?? 1000
    return { objects: rest.slice(0, max), commonPrefixes: [], isTruncated: rest.length > max }
  }
}

/**
 * s3rver deletes the objects of one DeleteObjects request all at once, and each deletion then
 * removes its folders once empty: one removes a folder another is reading, and the request is a 500
 * (minio's client retries it once; a second failure fails the caller). Deletions here go one at a
 * time.
 */
function deleteOneAtATime(store: Store): void {
  const deleteOne = store.deleteObject.bind(store)
  let last: Promise<void> = Promise.resolve()
  store.deleteObject = (bucket, key) => {
    const done = last.then(() => deleteOne(bucket, key))
    last = done.catch(() => {})
    return done
  }
}

/**
 * s3rver answers a PUT once it has read the body, before the object's file is written (its write
 * stream is not waited for), and writes the file over the old one in place; a GET takes the length
 * from the file's size, then opens it. So a GET soon after a PUT could read the old bytes, a part of
 * the new ones, or none (a rewritten object read back empty, once in a CI run). S3 reads its writes,
 * whole. Here a PUT writes the object and its metadata beside their places, waits for them, and
 * renames them into place while no GET of the key is between taking the length and opening the file.
 */
function putWhole(store: Store): void {
  const turns = new Map<string, Promise<void>>()
  const inTurn = <T>(id: string, fn: () => Promise<T>): Promise<T> => {
    const done = (turns.get(id) ?? Promise.resolve()).then(fn)
    const tail = done.then(
      () => {},
      () => {},
    )
    turns.set(id, tail)
    void tail.then(() => {
      if (turns.get(id) === tail) turns.delete(id)
    })
    return done
  }
  const getObject = store.getObject.bind(store)
  const putMetadata = store.putMetadata.bind(store)
  store.getObject = (bucket, key, options) =>
    inTurn(`${bucket}/${key}`, () => getObject(bucket, key, options))
  store.putObject = async (object) => {
    const { bucket, key } = object
    const path = (k: string, resource: string) => store.getResourcePath(bucket, k, resource)
    // The parts' names end neither in `._S3rver_object` (listed) nor as another key's files do.
    const part = `${key}.${randomUUID()}.part`
    const body = `${path(key, 'object')}.${randomUUID()}.part`
    await mkdir(dirname(body), { recursive: true })
    const md5 = crypto.createHash('md5')
    let size = 0
    const count = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        md5.update(chunk)
        size += chunk.length
        done(null, chunk)
      },
    })
    const content = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content
    try {
      await pipeline(content, count, createWriteStream(body))
      const digest = md5.digest('hex')
      await putMetadata(bucket, part, object.metadata, digest)
      await inTurn(`${bucket}/${key}`, async () => {
        await rename(path(part, 'object.md5'), path(key, 'object.md5'))
        await rename(path(part, 'metadata.json'), path(key, 'metadata.json'))
        await rename(body, path(key, 'object'))
      })
      return { size, md5: digest }
    } catch (e) {
      // A body cut short (the client gone) leaves nothing behind.
      for (const f of [body, path(part, 'object.md5'), path(part, 'metadata.json')])
        await rm(f, { force: true })
      throw e
    }
  }
}

type Middleware = (
  ctx: { query: Record<string, string | undefined>; body: unknown },
  next: () => Promise<void>,
) => Promise<void>
interface Listing {
  ListBucketResult?: Record<string, unknown> & {
    Contents?: { Key: string }[]
    CommonPrefixes?: { Prefix: string }[]
  }
}

/**
 * s3rver ignores `encoding-type=url` and answers keys as they are, while S3 (and MinIO) then answer
 * them URL-encoded, which clients decode (minio's reads `+` as a space): a key with a `+` in it, as a
 * pack's range sidecar has, would be listed under another name. This answers as S3 does. The step is
 * put just before the routes, inside the one that writes the answer as XML.
 */
function encodeListedKeys(server: { middleware: Middleware[] }): void {
  const step: Middleware = async (ctx, next) => {
    await next()
    const listing = (ctx.body as Listing | null)?.ListBucketResult
    if (ctx.query['encoding-type'] !== 'url' || !listing) return
    const encode = (v: unknown) => (typeof v === 'string' ? encodeURIComponent(v) : v)
    for (const field of ['Prefix', 'Delimiter', 'Marker', 'NextMarker', 'StartAfter'])
      listing[field] = encode(listing[field])
    for (const c of listing.Contents ?? []) c.Key = encodeURIComponent(c.Key)
    for (const p of listing.CommonPrefixes ?? []) p.Prefix = encodeURIComponent(p.Prefix)
  }
  server.middleware.splice(server.middleware.length - 1, 0, step)
}

/** Starts s3rver on 127.0.0.1 on a free port, over a temporary directory removed by `stop()`. */
export async function startS3rver(): Promise<S3Standin> {
  lendDes()
  const directory = mkdtempSync(join(tmpdir(), 'engram-s3rver-'))
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory })
  listInKeyOrder((server as unknown as { store: Store }).store)
  deleteOneAtATime((server as unknown as { store: Store }).store)
  putWhole((server as unknown as { store: Store }).store)
  encodeListedKeys(server as unknown as { middleware: Middleware[] })
  const { port } = await server.run()
  return {
    endpoint: `http://127.0.0.1:${port}`,
    accessKey: 'S3RVER',
    secretKey: 'S3RVER',
    async stop() {
      await server.close()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}
