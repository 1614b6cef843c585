// A range of a pack (`<pack>#<offset>+<length>`) reads through the envelope store as an object of
// its own, plain or sealed, of any size (a sealed pack spans several chunks); it is never written
// or deleted alone, and its sealing and rewrapping are its pack's.
import { afterAll, describe, expect, spyOn, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CHUNK_EXP, isSealed } from '../../../src/platform/storage/envelope-format'
import { EnvelopeStore } from '../../../src/platform/storage/envelope-store'
import { LocalObjectStore } from '../../../src/platform/storage/local-store'
import { InvalidObjectKeyError } from '../../../src/platform/storage/object-store'
import { objectOf, parseRange, rangeBounds, rangeKey } from '../../../src/platform/storage/ranges'
import { testKeyring } from './test-keyring'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

function fresh(sealed: boolean) {
  const root = join(mkdtempSync(join(tmpdir(), 'engram-ranges-')), 'objects')
  dirs.push(root)
  const inner = new LocalObjectStore({ root })
  const store = new EnvelopeStore(inner)
  const keyring = testKeyring()
  if (sealed) store.install(keyring)
  return { store, root, inner, keyring }
}

const PACK = 'ws_1/corpora/c1/blobs/blob_p'
// Three files, the middle one larger than a sealed chunk, so a range crosses chunk boundaries.
const FILES = ['first file\n', 'x'.repeat((1 << CHUNK_EXP) + 1234), 'the last one']
const packBytes = new TextEncoder().encode(FILES.join(''))
const ranges = (() => {
  let at = 0
  return FILES.map((f) => {
    const key = rangeKey(PACK, at, Buffer.byteLength(f))
    at += Buffer.byteLength(f)
    return key
  })
})()

describe('ranges of a pack', () => {
  test('keys name their pack and bytes; a sidecar beside a range is an object of its own', () => {
    expect(parseRange(`${PACK}#12+34`)).toEqual({ pack: PACK, offset: 12, length: 34 })
    expect(parseRange(PACK)).toBeNull()
    expect(parseRange(`${PACK}#12+34.doc_1.txt`)).toBeNull()
    expect(objectOf(`${PACK}#0+5`)).toBe(PACK)
    const [lower, upper] = rangeBounds(PACK)
    for (const k of ranges) expect(k > lower && k < upper).toBe(true)
    expect(`${PACK}-other` > lower && `${PACK}-other` < upper).toBe(false)
  })

  for (const sealed of [false, true]) {
    test(`${sealed ? 'sealed' : 'plain'}: each range reads as its file (bytes, text, stream, size)`, async () => {
      const { store, root } = fresh(sealed)
      await store.put(PACK, packBytes)
      expect(isSealed(readFileSync(join(root, PACK)))).toBe(sealed)
      for (const [i, key] of ranges.entries()) {
        expect(await store.getText(key)).toBe(FILES[i]!)
        expect(new TextDecoder().decode((await store.getBytes(key))!)).toBe(FILES[i]!)
        expect(await new Response(await store.get(key)).text()).toBe(FILES[i]!)
        expect(await store.head(key)).toEqual({ size: Buffer.byteLength(FILES[i]!) })
      }
      // A range past the pack's end is an error, not short bytes.
      await expect(store.getBytes(rangeKey(PACK, packBytes.byteLength - 2, 5))).rejects.toThrow()
    })
  }

  test('a range is not written or deleted alone; a missing pack reads as missing', async () => {
    const { store } = fresh(false)
    await store.put(PACK, packBytes)
    await expect(store.put(ranges[0]!, 'x')).rejects.toBeInstanceOf(InvalidObjectKeyError)
    await store.delete(ranges[0]!)
    expect(await store.getText(ranges[2]!)).toBe(FILES[2]!)
    await store.delete(PACK)
    expect(await store.getBytes(ranges[0]!)).toBeNull()
    expect(await store.get(ranges[0]!)).toBeNull()
    expect(await store.head(ranges[0]!)).toBeNull()
  })

  test('sealing a range seals its pack in place; its state and rewrapping are its pack', async () => {
    const { store, root } = fresh(false)
    await store.put(PACK, packBytes)
    store.install(testKeyring())
    expect(await store.sealedState(ranges[1]!)).toBe(false)
    expect(await store.sealInPlace(ranges[1]!)).toBe(true)
    expect(isSealed(readFileSync(join(root, PACK)))).toBe(true)
    expect(await store.sealedState(ranges[0]!)).toBe(true)
    expect(await store.sealInPlace(ranges[2]!)).toBe(false)
    for (const [i, key] of ranges.entries()) expect(await store.getText(key)).toBe(FILES[i]!)
  })

  test('the ranges of a pack read one after the other read it once; deleted or refused, it is not served', async () => {
    const { store, inner, keyring } = fresh(true)
    await store.put(PACK, packBytes)
    const reads = spyOn(inner, 'getBytes')
    for (const [i, key] of ranges.entries()) expect(await store.getText(key)).toBe(FILES[i]!)
    expect(await store.getText(ranges[0]!)).toBe(FILES[0]!)
    expect(reads).toHaveBeenCalledTimes(1)
    keyring.off.add('ws_1')
    await expect(store.getText(ranges[0]!)).rejects.toThrow()
    keyring.off.delete('ws_1')
    await store.delete(PACK)
    expect(await store.getText(ranges[0]!)).toBeNull()
    reads.mockRestore()
  })

  test('the ranges of a pack asked for at once share one read of it, plain or sealed', async () => {
    for (const sealed of [false, true]) {
      const { store, inner } = fresh(sealed)
      await store.put(PACK, packBytes)
      const reads = spyOn(inner, 'getBytes')
      const texts = await Promise.all([...ranges, ...ranges].map((key) => store.getText(key)))
      expect(texts).toEqual([...FILES, ...FILES])
      expect(reads).toHaveBeenCalledTimes(1)
      reads.mockRestore()
    }
  })

  test('a pack written again while a read of it is in flight is read again after (the read in flight is not kept)', async () => {
    const { store, inner } = fresh(false)
    await store.put(PACK, packBytes)
    const reads = spyOn(inner, 'getBytes')
    const first = store.getText(ranges[0]!)
    await store.put(PACK, new TextEncoder().encode(FILES.join('').toUpperCase()))
    await first // the old bytes or the new ones, whichever the read found: not kept either way
    expect(await store.getText(ranges[2]!)).toBe(FILES[2]!.toUpperCase())
    expect(await store.getText(ranges[0]!)).toBe(FILES[0]!.toUpperCase())
    expect(reads).toHaveBeenCalledTimes(2)
    reads.mockRestore()
  })

  test('a failed read of a pack fails every range waiting for it, and the next read tries again', async () => {
    const { store, inner } = fresh(false)
    await store.put(PACK, packBytes)
    const reads = spyOn(inner, 'getBytes').mockImplementationOnce(() =>
      Promise.reject(new Error('disk gone')),
    )
    const settled = await Promise.allSettled(ranges.map((key) => store.getText(key)))
    expect(settled.map((s) => s.status === 'rejected' && (s.reason as Error).message)).toEqual(
      ranges.map(() => 'disk gone'),
    )
    expect(await store.getText(ranges[1]!)).toBe(FILES[1]!)
    expect(reads).toHaveBeenCalledTimes(2)
    reads.mockRestore()
  })
})
