import { afterAll, beforeAll, expect, test } from 'bun:test'
import { isSealed } from '../../../src/platform/storage/envelope-format'
import { EnvelopeStore } from '../../../src/platform/storage/envelope-store'
import { MIN_PART_SIZE, S3ObjectStore } from '../../../src/platform/storage/s3-store'
import { type S3Standin, startS3rver } from '../../helpers/standins/s3rver'
import { objectStoreContract } from './object-store.contract'
import { testKeyring } from './test-keyring'

// The envelope over the S3 driver (s3rver on loopback): the same contract, and sealed bytes in the bucket.
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

function freshStore(): EnvelopeStore {
  const inner = new S3ObjectStore({
    endpoint,
    bucket: `engram-envelope-${++buckets}`,
    accessKey: 'S3RVER',
    secretKey: 'S3RVER',
    region: 'us-east-1',
    partSize: MIN_PART_SIZE,
  })
  const store = new EnvelopeStore(inner)
  store.install(testKeyring())
  return store
}

objectStoreContract('S3 (s3rver) behind the envelope', {
  make: async () => freshStore(),
  keepsContentType: true,
  presigns: true,
  largeBody: 2 * MIN_PART_SIZE + 54_321,
  listsStoredSizes: true,
})

test('what reaches the bucket is sealed, and reads back as written', async () => {
  const store = freshStore()
  const text = 'The bucket never sees PELICAN-7731 in the clear.'
  await store.put('ws_1/doc/raw', text)
  const stored = Buffer.from((await store.inner.getBytes('ws_1/doc/raw'))!)
  expect(isSealed(stored)).toBe(true)
  expect(stored.includes(Buffer.from('PELICAN'))).toBe(false)
  expect(await store.getText('ws_1/doc/raw')).toBe(text)
  expect((await store.head('ws_1/doc/raw'))?.size).toBe(Buffer.byteLength(text))
})
