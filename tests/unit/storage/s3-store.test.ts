import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { loadConfig } from '../../../src/platform/config/config.load'
import { createObjectStore } from '../../../src/platform/storage/create-object-store'
import { MIN_PART_SIZE, S3ObjectStore } from '../../../src/platform/storage/s3-store'
import { type S3Standin, startS3rver } from '../../helpers/standins/s3rver'
import { generatedBody, listed } from './bodies'
import { objectStoreContract } from './object-store.contract'

// An S3-compatible server on loopback, on a free port, for the whole file.
let server: S3Standin
let endpoint = ''
let buckets = 0

beforeAll(async () => {
  server = await startS3rver()
  endpoint = server.endpoint
})

afterAll(async () => {
  await server.stop()
})

/** A store on a bucket of its own, with the smallest part size so multi-part runs on small bodies. */
function freshStore(): S3ObjectStore {
  return new S3ObjectStore({
    endpoint,
    bucket: `engram-test-${++buckets}`,
    accessKey: 'S3RVER',
    secretKey: 'S3RVER',
    region: 'us-east-1',
    partSize: MIN_PART_SIZE,
  })
}

objectStoreContract('S3 (s3rver)', {
  make: async () => freshStore(),
  keepsContentType: true,
  presigns: true,
  // Over two parts, so the multi-part path with a part in flight is exercised.
  largeBody: 2 * MIN_PART_SIZE + 54_321,
})

describe('S3 object store', () => {
  test('the factory builds an S3 store from configuration that creates its bucket on first use', async () => {
    const config = loadConfig({
      env: {
        ENGRAM_STORAGE: 's3',
        ENGRAM_S3_ENDPOINT: endpoint,
        ENGRAM_S3_BUCKET: 'engram-from-config',
        ENGRAM_S3_ACCESS_KEY: 'S3RVER',
        ENGRAM_S3_SECRET_KEY: 'S3RVER',
      },
      readFile: () => null,
    })
    const store = createObjectStore(config, '/nonexistent-data-dir')
    expect(store.driver).toBe('s3')
    await store.put('ws_1/doc_1/raw', 'in a bucket')
    expect(await store.getText('ws_1/doc_1/raw')).toBe('in a bucket')
  })

  test('a store that finds its bucket missing, then made by another process before it makes it, goes on', async () => {
    const bucket = `engram-test-${++buckets}`
    const store = () =>
      new S3ObjectStore({ endpoint, bucket, accessKey: 'S3RVER', secretKey: 'S3RVER', region: 'us-east-1' })
    await store().put('ws_1/first', 'made the bucket')
    // The second process looked before the first made it (replicas starting together): the server then
    // answers its make with BucketAlreadyExists.
    const { Client } = await import('minio')
    const exists = Client.prototype.bucketExists
    Client.prototype.bucketExists = async () => false
    try {
      const second = store()
      await second.put('ws_1/second', 'went on')
      expect(await second.getText('ws_1/second')).toBe('went on')
    } finally {
      Client.prototype.bucketExists = exists
    }
  })

  test('a body of exactly one part and one of a part plus a byte both round-trip', async () => {
    const s = freshStore()
    for (const size of [MIN_PART_SIZE, MIN_PART_SIZE + 1]) {
      const body = generatedBody(size, 100_000, size)
      const r = await s.put(`ws_1/edge-${size}`, body.stream)
      expect(r).toEqual({ key: `ws_1/edge-${size}`, size, sha256: body.sha256 })
      expect((await s.head(`ws_1/edge-${size}`))?.size).toBe(size)
    }
    expect((await listed(s.list('ws_1/'))).map((o) => o.size)).toEqual([MIN_PART_SIZE, MIN_PART_SIZE + 1])
  })

  test('sweepTemp answers 0 on a server that cannot list incomplete uploads', async () => {
    expect(await freshStore().sweepTemp()).toBe(0)
  })
})
