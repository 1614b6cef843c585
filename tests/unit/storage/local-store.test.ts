import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ManualClock } from '../../../src/platform/clock/clock'
import { ConfigError, loadConfig } from '../../../src/platform/config/config.load'
import { createObjectStore } from '../../../src/platform/storage/create-object-store'
import { LocalObjectStore } from '../../../src/platform/storage/local-store'
import { InvalidObjectKeyError, type ObjectStore } from '../../../src/platform/storage/object-store'
import { S3ObjectStore } from '../../../src/platform/storage/s3-store'
import { gatedBody, listed } from './bodies'
import { objectStoreContract } from './object-store.contract'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

function freshDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'engram-objects-'))
  dirs.push(d)
  return d
}

const tempFiles = (s: ObjectStore) => {
  const dir = (s as LocalObjectStore).tempDir
  return existsSync(dir) ? readdirSync(dir) : []
}

objectStoreContract('local disk', {
  make: async () => new LocalObjectStore({ root: join(freshDir(), 'objects') }),
  tempCount: async (s) => tempFiles(s).length,
  keepsContentType: false,
  presigns: false,
  largeBody: 6 * 1024 * 1024 + 12_345,
})

describe('local object store', () => {
  test('the factory puts local objects under <data dir>/objects by default', async () => {
    const dataDir = freshDir()
    const config = loadConfig({ env: {}, readFile: () => null })
    const store = createObjectStore(config, dataDir)
    expect(store.driver).toBe('local')
    await store.put('ws_1/doc_1/raw', 'on disk')
    expect(readdirSync(join(dataDir, 'objects', 'ws_1', 'doc_1'))).toEqual(['raw'])
  })

  test('the factory refuses an S3 configuration that misses required values', () => {
    const config = {
      storage: {
        driver: 's3' as const,
        s3_endpoint: 'ftp://nope',
        s3_bucket: null,
        s3_access_key: 'k',
        s3_secret_key: null,
        s3_region: 'us-east-1',
      },
    }
    let err: unknown
    try {
      createObjectStore(config, freshDir())
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(ConfigError)
    expect((err as ConfigError).problems).toEqual([
      'storage.s3_bucket (ENGRAM_S3_BUCKET) is required when storage.driver is s3',
      'storage.s3_secret_key (ENGRAM_S3_SECRET_KEY) is required when storage.driver is s3',
      'storage.s3_endpoint must be an http(s) URL without a path, got ftp://nope',
    ])
    const ok = {
      storage: {
        ...config.storage,
        s3_endpoint: 'http://127.0.0.1:9000',
        s3_bucket: 'b-1',
        s3_secret_key: 's',
      },
    }
    expect(createObjectStore(ok, freshDir())).toBeInstanceOf(S3ObjectStore)
  })

  test('a streamed write goes to a temp file in .tmp and only the rename makes it visible', async () => {
    const root = join(freshDir(), 'objects')
    const s = new LocalObjectStore({ root })
    const body = gatedBody(new TextEncoder().encode('first;'), new TextEncoder().encode('second'))
    const writing = s.put('ws_1/doc_1/raw', body.stream)
    await body.firstConsumed
    expect(tempFiles(s)).toHaveLength(1)
    expect(existsSync(join(root, 'ws_1', 'doc_1', 'raw'))).toBe(false)
    body.release()
    await writing
    expect(tempFiles(s)).toEqual([])
    expect(await s.getText('ws_1/doc_1/raw')).toBe('first;second')
  })

  test('a failing source stream aborts the write and removes its temp file', async () => {
    const s = new LocalObjectStore({ root: join(freshDir(), 'objects') })
    let n = 0
    const failing = new ReadableStream<Uint8Array>({
      pull(c) {
        if (n++ === 0) c.enqueue(new Uint8Array(1000))
        else c.error(new Error('client went away'))
      },
    })
    await expect(s.put('ws_1/broken', failing)).rejects.toThrow('client went away')
    expect(await s.head('ws_1/broken')).toBeNull()
    expect(tempFiles(s)).toEqual([])
  })

  test('sweepTemp removes leftovers of interrupted writes, sparing recent ones when asked', async () => {
    const clock = new ManualClock('2026-05-01T12:00:00Z')
    const root = join(freshDir(), 'objects')
    const s = new LocalObjectStore({ root, clock })
    await s.put('ws_1/kept', 'kept')
    mkdirSync(s.tempDir, { recursive: true })
    const old = join(s.tempDir, 'crashed.part')
    const recent = join(s.tempDir, 'in-flight.part')
    writeFileSync(old, 'half a doc')
    writeFileSync(recent, 'half another')
    utimesSync(old, new Date('2026-05-01T10:00:00Z'), new Date('2026-05-01T10:00:00Z'))
    utimesSync(recent, new Date('2026-05-01T11:59:00Z'), new Date('2026-05-01T11:59:00Z'))
    expect(await s.sweepTemp({ olderThanMs: 3_600_000 })).toBe(1)
    expect(tempFiles(s)).toEqual(['in-flight.part'])
    expect(await s.sweepTemp()).toBe(1)
    expect(tempFiles(s)).toEqual([])
    expect(await listed(s.list(''))).toEqual([{ key: 'ws_1/kept', size: 4 }])
  })

  test('deleting the last objects of a workspace leaves no directory behind', async () => {
    const root = join(freshDir(), 'objects')
    const s = new LocalObjectStore({ root })
    await s.put('ws_1/doc_1/raw', 'r')
    await s.put('ws_1/doc_1/text', 't')
    await s.put('ws_2/doc_9/raw', 'other tenant')
    await s.delete('ws_1/doc_1/raw')
    expect(existsSync(join(root, 'ws_1', 'doc_1'))).toBe(true)
    await s.delete('ws_1/doc_1/text')
    expect(existsSync(join(root, 'ws_1'))).toBe(false)
    await s.put('ws_3/a/b', 'x')
    expect(await s.deletePrefix('ws_3/')).toBe(1)
    expect(readdirSync(root).sort()).toEqual(['.tmp', 'ws_2'])
  })

  test('refused keys create nothing outside or inside the root', async () => {
    const base = freshDir()
    const s = new LocalObjectStore({ root: join(base, 'objects') })
    for (const key of ['../escaped', 'ws_1/../../escaped', '/tmp/escaped', 'ws_1\\..\\escaped']) {
      await expect(s.put(key, 'x')).rejects.toBeInstanceOf(InvalidObjectKeyError)
    }
    expect(readdirSync(base)).toEqual([])
  })

  test('a key cannot be both an object and the prefix of another on disk', async () => {
    const s = new LocalObjectStore({ root: join(freshDir(), 'objects') })
    await s.put('ws_1/a', 'file')
    await expect(s.put('ws_1/a/b', 'x')).rejects.toBeInstanceOf(InvalidObjectKeyError)
    await s.put('ws_1/c/d', 'x')
    await expect(s.put('ws_1/c', 'x')).rejects.toBeInstanceOf(InvalidObjectKeyError)
    expect(tempFiles(s)).toEqual([])
    expect(await s.getText('ws_1/a')).toBe('file')
  })
})
