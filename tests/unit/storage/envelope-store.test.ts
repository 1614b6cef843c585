import { afterAll, describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sha256Hex } from '../../../src/platform/crypto/hash'
import { CHUNK_EXP, isSealed, parseHeader } from '../../../src/platform/storage/envelope-format'
import { EnvelopeStore, type Keyring } from '../../../src/platform/storage/envelope-store'
import { LocalObjectStore } from '../../../src/platform/storage/local-store'
import { generatedBody, streamSha256 } from './bodies'
import { objectStoreContract } from './object-store.contract'
import { testKeyring, unwrap } from './test-keyring'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

function fresh(keyring: Keyring | null = testKeyring()) {
  const root = join(mkdtempSync(join(tmpdir(), 'engram-envelope-')), 'objects')
  dirs.push(root)
  const inner = new LocalObjectStore({ root })
  const store = new EnvelopeStore(inner)
  if (keyring) store.install(keyring)
  return { store, inner, root }
}

objectStoreContract('local disk behind the envelope', {
  make: async () => fresh().store,
  tempCount: async (s) => {
    const dir = ((s as EnvelopeStore).inner as LocalObjectStore).tempDir
    return existsSync(dir) ? readdirSync(dir).length : 0
  },
  keepsContentType: false,
  presigns: false,
  largeBody: 6 * 1024 * 1024 + 12_345,
  listsStoredSizes: true,
})

const CHUNK = 1 << CHUNK_EXP

describe('envelope store', () => {
  test('what reaches the disk is a sealed header and ciphertext, never the plaintext', async () => {
    const { store, root } = fresh()
    const secret = 'The launch code is PELICAN-7731. '.repeat(5000)
    const put = await store.put('ws_1/doc/raw', secret)
    expect(put.sha256).toBe(sha256Hex(secret))
    const onDisk = readFileSync(join(root, 'ws_1/doc/raw'))
    expect(isSealed(onDisk)).toBe(true)
    expect(onDisk.includes(Buffer.from('PELICAN'))).toBe(false)
    expect(await store.getText('ws_1/doc/raw')).toBe(secret)
    expect((await store.head('ws_1/doc/raw'))?.size).toBe(Buffer.byteLength(secret))
  })

  for (const size of [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK, 3 * CHUNK + 17]) {
    test(`a body of ${size} bytes round-trips, with head reporting the plaintext size`, async () => {
      const { store } = fresh()
      const body = randomBytes(size)
      await store.put('ws_1/x', body)
      expect(Buffer.from((await store.getBytes('ws_1/x'))!).equals(body)).toBe(true)
      expect((await store.head('ws_1/x'))?.size).toBe(size)
    })
  }

  test('a large stream is sealed and opened chunk by chunk with the same SHA-256', async () => {
    const { store } = fresh()
    const body = generatedBody(5 * 1024 * 1024 + 333, 100_000)
    const put = await store.put('ws_1/big', body.stream)
    expect(put.sha256).toBe(body.sha256)
    expect(await streamSha256((await store.get('ws_1/big'))!)).toEqual({
      sha256: body.sha256,
      size: put.size,
    })
  })

  test('an altered, truncated or reordered object fails to read instead of giving wrong bytes', async () => {
    const { store, root } = fresh()
    await store.put('ws_1/x', randomBytes(3 * CHUNK))
    const path = join(root, 'ws_1/x')
    const good = readFileSync(path)
    const header = parseHeader(good)!
    const flipped = Buffer.from(good)
    flipped[header.length + 100]! ^= 1
    const chunk = CHUNK + 16
    const body = good.subarray(header.length)
    const swapped = Buffer.concat([
      good.subarray(0, header.length),
      body.subarray(chunk, 2 * chunk),
      body.subarray(0, chunk),
      body.subarray(2 * chunk),
    ])
    for (const bad of [flipped, good.subarray(0, header.length + 2 * chunk), swapped]) {
      writeFileSync(path, bad)
      await expect(store.getBytes('ws_1/x')).rejects.toThrow('does not authenticate')
    }
  })

  test('a sealed object moved under another key of its workspace does not open there', async () => {
    const { store, root } = fresh()
    await store.put('ws_1/doc_a/raw', 'the contract of A')
    await store.put('ws_1/doc_b/raw', 'the contract of B')
    writeFileSync(join(root, 'ws_1/doc_b/raw'), readFileSync(join(root, 'ws_1/doc_a/raw')))
    await expect(store.getText('ws_1/doc_b/raw')).rejects.toThrow('does not authenticate')
    expect(await store.getText('ws_1/doc_a/raw')).toBe('the contract of A')
  })

  test('a workspace without a key, and objects written before one, pass through plain', async () => {
    const { store, root } = fresh(testKeyring(['ws_plain']))
    await store.put('ws_plain/a', 'plain text')
    expect(readFileSync(join(root, 'ws_plain/a'), 'utf8')).toBe('plain text')
    expect(await store.getText('ws_plain/a')).toBe('plain text')
    await store.inner.put('ws_1/legacy', 'written before the key')
    expect(await store.getText('ws_1/legacy')).toBe('written before the key')
    expect(await store.sealedState('ws_1/legacy')).toBe(false)
  })

  test('sealInPlace seals a plain object once; its content reads the same', async () => {
    const { store, root } = fresh()
    await store.inner.put('ws_1/legacy', 'old secret words')
    expect(await store.sealInPlace('ws_1/legacy')).toBe(true)
    expect(await store.sealInPlace('ws_1/legacy')).toBe(false)
    expect(readFileSync(join(root, 'ws_1/legacy')).includes(Buffer.from('secret'))).toBe(false)
    expect(await store.getText('ws_1/legacy')).toBe('old secret words')
  })

  test('rewrapInPlace replaces the wrapped key and copies the ciphertext unchanged', async () => {
    const keyring = testKeyring()
    const { store, root } = fresh(keyring)
    const body = randomBytes(2 * CHUNK + 5)
    await store.put('ws_1/x', body)
    const before = readFileSync(join(root, 'ws_1/x'))
    const h1 = parseHeader(before)!
    const old = keyring.rotate('ws_1')
    const ok = await store.rewrapInPlace('ws_1/x', async (w) => keyring.wrapWs('ws_1', unwrap(old, w)))
    expect(ok).toBe(true)
    const after = readFileSync(join(root, 'ws_1/x'))
    const h2 = parseHeader(after)!
    expect(Buffer.from(h2.wrapped).equals(Buffer.from(h1.wrapped))).toBe(false)
    expect(after.subarray(h2.length).equals(before.subarray(h1.length))).toBe(true)
    expect(Buffer.from((await store.getBytes('ws_1/x'))!).equals(body)).toBe(true)
  })

  test('a refused workspace cannot read or write, sealed or plain, and others are untouched', async () => {
    const keyring = testKeyring()
    const { store } = fresh(keyring)
    await store.put('ws_1/a', 'one')
    await store.inner.put('ws_1/plain', 'two')
    await store.put('ws_2/a', 'three')
    keyring.off.add('ws_1')
    await expect(store.get('ws_1/a')).rejects.toThrow('disabled')
    await expect(store.getText('ws_1/plain')).rejects.toThrow('disabled')
    await expect(store.put('ws_1/b', 'x')).rejects.toThrow('disabled')
    await expect(store.assertReadable('ws_1')).rejects.toThrow('disabled')
    expect(await store.getText('ws_2/a')).toBe('three')
    keyring.off.delete('ws_1')
    expect(await store.getText('ws_1/a')).toBe('one')
  })

  test('without a keyring the envelope is the store itself', async () => {
    const { store, root } = fresh(null)
    await store.put('ws_1/a', 'plain')
    expect(readFileSync(join(root, 'ws_1/a'), 'utf8')).toBe('plain')
    expect(store.driver).toBe('local')
  })
})
