// The one contract every ObjectStore driver must pass; each driver's test file runs it with a factory.
import { describe, expect, test } from 'bun:test'
import { sha256Hex } from '../../../src/platform/crypto/hash'
import {
  InvalidObjectKeyError,
  type ObjectStore,
  ObjectTooLargeError,
} from '../../../src/platform/storage/object-store'
import { collect, gatedBody, generatedBody, listed, streamSha256 } from './bodies'

/** How a driver's test file plugs its driver into the contract. */
export interface ContractHarness {
  /** A fresh, empty store. */
  make(): Promise<ObjectStore>
  /** Count of leftovers of writes in progress or interrupted (temp files), where observable. */
  tempCount?(store: ObjectStore): Promise<number>
  /** Whether `head` reports the content type given to `put`. */
  keepsContentType: boolean
  /** Whether the driver hands out presigned upload URLs. */
  presigns: boolean
  /** Size of a body large enough to take the driver's streamed / multi-part path. */
  largeBody: number
  /** Whether `list` reports stored sizes that differ from the content's (sealed objects' headers and tags). */
  listsStoredSizes?: boolean
}

const enc = new TextEncoder()
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b))

const BAD_KEYS: [string, string][] = [
  ['', 'empty'],
  ['/ws_1/a', 'leading slash'],
  ['../ws_1/a', 'parent segment'],
  ['ws_1/../../etc/passwd', 'inner parent segment'],
  ['ws_1/./a', 'dot segment'],
  ['ws_1\\a', 'backslash'],
  ['ws_1/a\u0000b', 'NUL'],
  ['ws_1/a\nb', 'newline'],
  ['ws_1//a', 'empty segment'],
  ['ws_1/a/', 'trailing slash'],
  ['.tmp/x', 'reserved dot start'],
  [`ws_1/${'x'.repeat(1100)}`, 'too long'],
]

/** The size `list` reports for content of `n` bytes: any number where stored sizes differ. */
const listedSize = (h: ContractHarness, n: number): number => (h.listsStoredSizes ? expect.any(Number) : n)

/** Registers the contract tests for one driver. */
export function objectStoreContract(name: string, h: ContractHarness): void {
  describe(`ObjectStore contract: ${name}`, () => {
    test('a text object round-trips with its size, SHA-256 and (where kept) content type', async () => {
      const s = await h.make()
      const text = 'héllo wörld\n'
      const r = await s.put('ws_1/doc_1/text', text, { contentType: 'text/plain' })
      expect(r).toEqual({
        key: 'ws_1/doc_1/text',
        size: enc.encode(text).byteLength,
        sha256: sha256Hex(text),
      })
      expect(await s.getText('ws_1/doc_1/text')).toBe(text)
      const head = await s.head('ws_1/doc_1/text')
      expect(head?.size).toBe(enc.encode(text).byteLength)
      expect(head?.contentType).toBe(h.keepsContentType ? 'text/plain' : undefined)
    })

    test('binary bytes round-trip unchanged through getBytes and get', async () => {
      const s = await h.make()
      const bytes = new Uint8Array(1024).map((_, i) => (i * 7 + 3) & 0xff)
      const r = await s.put('ws_1/bin', bytes)
      expect(r.sha256).toBe(sha256Hex(bytes))
      expect(await s.getBytes('ws_1/bin')).toEqual(bytes)
      const stream = await s.get('ws_1/bin')
      expect(stream).not.toBeNull()
      expect(new Uint8Array(await new Response(stream).arrayBuffer())).toEqual(bytes)
    })

    test('an empty body is a valid, empty object', async () => {
      const s = await h.make()
      const r = await s.put('ws_1/empty', '')
      expect(r).toEqual({ key: 'ws_1/empty', size: 0, sha256: sha256Hex('') })
      expect(await s.getText('ws_1/empty')).toBe('')
      expect((await s.head('ws_1/empty'))?.size).toBe(0)
    })

    test('a multi-megabyte stream is stored whole with the SHA-256 computed while streaming', async () => {
      const s = await h.make()
      const body = generatedBody(h.largeBody)
      const r = await s.put('ws_1/big.bin', body.stream, { contentType: 'application/octet-stream' })
      expect(r).toEqual({ key: 'ws_1/big.bin', size: h.largeBody, sha256: body.sha256 })
      expect((await s.head('ws_1/big.bin'))?.size).toBe(h.largeBody)
      expect(await streamSha256((await s.get('ws_1/big.bin'))!)).toEqual({
        sha256: body.sha256,
        size: h.largeBody,
      })
    })

    test('putting to an existing key replaces the object', async () => {
      const s = await h.make()
      await s.put('ws_1/k', 'a much longer first version')
      await s.put('ws_1/k', 'v2')
      expect(await s.getText('ws_1/k')).toBe('v2')
      expect((await s.head('ws_1/k'))?.size).toBe(2)
      expect(await listed(s.list('ws_1/'))).toEqual([{ key: 'ws_1/k', size: listedSize(h, 2) }])
    })

    test('each write reads back whole at once, however soon, and replaced as often', async () => {
      const s = await h.make()
      for (let i = 0; i < 60; i++) {
        // Longer and shorter by turns: a read of the old length, or of none, shows.
        const body = `${i}:`.padEnd(i % 2 ? 70_000 + i : 3_000 + i, String.fromCharCode(97 + (i % 26)))
        await s.put('ws_1/often', body)
        expect(await s.getText('ws_1/often')).toBe(body)
      }
    })

    test('a body over maxBytes is refused with ObjectTooLargeError and leaves nothing behind', async () => {
      const s = await h.make()
      const err = await s.put('ws_1/small', 'x'.repeat(11), { maxBytes: 10 }).catch((e) => e)
      expect(err).toBeInstanceOf(ObjectTooLargeError)
      expect((err as ObjectTooLargeError).limit).toBe(10)
      expect(await s.head('ws_1/small')).toBeNull()
      expect(await listed(s.list(''))).toEqual([])
      if (h.tempCount) expect(await h.tempCount(s)).toBe(0)
      // Exactly the limit is accepted.
      expect((await s.put('ws_1/small', 'x'.repeat(10), { maxBytes: 10 })).size).toBe(10)
    })

    test('a large stream over maxBytes aborts mid-way, cancels its source and keeps the old object', async () => {
      const s = await h.make()
      await s.put('ws_1/big', 'old content')
      const limit = h.largeBody - 3 * 64 * 1024
      const body = generatedBody(h.largeBody)
      const err = await s.put('ws_1/big', body.stream, { maxBytes: limit }).catch((e) => e)
      expect(err).toBeInstanceOf(ObjectTooLargeError)
      expect(body.state.cancelled).toBe(true)
      expect(body.state.pulled).toBeLessThan(h.largeBody)
      expect(await s.getText('ws_1/big')).toBe('old content')
      expect(await listed(s.list(''))).toEqual([{ key: 'ws_1/big', size: listedSize(h, 11) }])
      if (h.tempCount) expect(await h.tempCount(s)).toBe(0)
    })

    test('a missing key reads as null everywhere', async () => {
      const s = await h.make()
      expect(await s.get('ws_1/nope')).toBeNull()
      expect(await s.getBytes('ws_1/nope')).toBeNull()
      expect(await s.getText('ws_1/nope')).toBeNull()
      expect(await s.head('ws_1/nope')).toBeNull()
    })

    test('a prefix of stored keys is not itself an object', async () => {
      const s = await h.make()
      await s.put('ws_1/doc_1/raw', 'r')
      expect(await s.head('ws_1/doc_1')).toBeNull()
      expect(await s.get('ws_1/doc_1')).toBeNull()
    })

    test('delete removes the object and is idempotent', async () => {
      const s = await h.make()
      await s.delete('ws_1/never-existed')
      await s.put('ws_1/d', 'bye')
      await s.delete('ws_1/d')
      expect(await s.head('ws_1/d')).toBeNull()
      expect(await s.getText('ws_1/d')).toBeNull()
      await s.delete('ws_1/d')
      expect(await listed(s.list(''))).toEqual([])
    })

    test('deletePrefix removes only keys under the prefix and counts them', async () => {
      const s = await h.make()
      for (const k of ['ws_1/a', 'ws_1/sub/b', 'ws_1/sub/deeper/c', 'ws_10/d', 'ws_2/e', 'ws_1x']) {
        await s.put(k, k)
      }
      expect(await s.deletePrefix('ws_1/')).toBe(3)
      expect((await listed(s.list(''))).map((o) => o.key).sort(byteOrder)).toEqual([
        'ws_10/d',
        'ws_1x',
        'ws_2/e',
      ])
      expect(await s.deletePrefix('ws_1/')).toBe(0)
      // A prefix not ending at a segment boundary would also take ws_10/ and ws_1x: refused.
      await expect(s.deletePrefix('ws_1')).rejects.toBeInstanceOf(InvalidObjectKeyError)
      await expect(s.deletePrefix('')).rejects.toBeInstanceOf(InvalidObjectKeyError)
      expect(await s.getText('ws_10/d')).toBe('ws_10/d')
    })

    test('list yields keys under a prefix in byte order with their sizes', async () => {
      const s = await h.make()
      const keys = ['ws_1/b/2', 'ws_1/a-c', 'ws_1/a/b', 'ws_1/doc_2', 'ws_1/doc_10/raw', 'ws_2/x', 'ws_1/Z']
      for (const k of keys) await s.put(k, k.repeat(2))
      const all = await listed(s.list(''))
      expect(all.map((o) => o.key)).toEqual([...keys].sort(byteOrder))
      expect(
        all.every((o) => (h.listsStoredSizes ? o.size > o.key.length * 2 : o.size === o.key.length * 2)),
      ).toBe(true)
      const docs = await listed(s.list('ws_1/doc_'))
      expect(docs.map((o) => o.key)).toEqual(['ws_1/doc_10/raw', 'ws_1/doc_2'])
      expect((await listed(s.list('ws_1/a/'))).map((o) => o.key)).toEqual(['ws_1/a/b'])
      expect(await listed(s.list('ws_3/'))).toEqual([])
    })

    test('list gives each object the time it was last written', async () => {
      const s = await h.make()
      // S3 keeps LastModified to the second: a second either side of the write.
      const before = Date.now() - 1000
      await s.put('ws_1/a', 'first')
      const after = Date.now() + 1000
      const [first] = await collect(s.list('ws_1/'))
      expect(first?.lastModified).toBeInstanceOf(Date)
      expect(first!.lastModified.getTime()).toBeGreaterThanOrEqual(before)
      expect(first!.lastModified.getTime()).toBeLessThanOrEqual(after)
      // Not a listing's own time: the same object lists the same time later.
      const [again] = await collect(s.list('ws_1/'))
      expect(again!.lastModified.getTime()).toBe(first!.lastModified.getTime())
    })

    test('keys that could escape the store are refused by every operation', async () => {
      const s = await h.make()
      for (const [key, why] of BAD_KEYS) {
        const ops: [string, () => Promise<unknown>][] = [
          ['put', () => s.put(key, 'x')],
          ['get', () => s.get(key)],
          ['getText', () => s.getText(key)],
          ['head', () => s.head(key)],
          ['delete', () => s.delete(key)],
          ['presignPut', () => s.presignPut(key, 60)],
        ]
        for (const [op, run] of ops) {
          const err = await run().catch((e) => e)
          if (!(err instanceof InvalidObjectKeyError))
            throw new Error(`${op}(${why}) was not refused: ${err}`)
        }
      }
      await expect(listed(s.list('../'))).rejects.toBeInstanceOf(InvalidObjectKeyError)
      expect(await listed(s.list(''))).toEqual([])
    })

    test(h.presigns ? 'a presigned URL accepts a direct PUT' : 'presignPut answers null', async () => {
      const s = await h.make()
      const url = await s.presignPut('ws_1/up/file.txt', 300)
      if (!h.presigns) {
        expect(url).toBeNull()
        return
      }
      expect(url).toStartWith('http')
      const res = await fetch(url!, { method: 'PUT', body: 'sent straight to the store' })
      expect(res.status).toBe(200)
      expect(await s.getText('ws_1/up/file.txt')).toBe('sent straight to the store')
    })

    test('a reader during a slow streamed write sees the old object, never a partial one', async () => {
      const s = await h.make()
      await s.put('ws_1/live', 'OLD')
      const body = gatedBody(enc.encode('NEW-FIRST-HALF;'), enc.encode('NEW-SECOND-HALF'))
      const writing = s.put('ws_1/live', body.stream)
      await body.firstConsumed
      expect(await s.getText('ws_1/live')).toBe('OLD')
      expect((await s.head('ws_1/live'))?.size).toBe(3)
      expect(await listed(s.list('ws_1/'))).toEqual([{ key: 'ws_1/live', size: listedSize(h, 3) }])
      body.release()
      expect((await writing).size).toBe(30)
      expect(await s.getText('ws_1/live')).toBe('NEW-FIRST-HALF;NEW-SECOND-HALF')
    })

    test('a new key is invisible until its streamed write completes', async () => {
      const s = await h.make()
      const body = gatedBody(enc.encode('part one,'), enc.encode('part two'))
      const writing = s.put('ws_1/fresh', body.stream)
      await body.firstConsumed
      expect(await s.head('ws_1/fresh')).toBeNull()
      expect(await s.get('ws_1/fresh')).toBeNull()
      expect(await listed(s.list(''))).toEqual([])
      body.release()
      await writing
      expect(await s.getText('ws_1/fresh')).toBe('part one,part two')
      if (h.tempCount) expect(await h.tempCount(s)).toBe(0)
    })

    test('concurrent writes to one key leave exactly one of the bodies, whole', async () => {
      const s = await h.make()
      const bodies = Array.from({ length: 8 }, (_, i) => `${String(i).repeat(5000)}|${i}`)
      await Promise.all(bodies.map((b) => s.put('ws_1/race', b)))
      expect(bodies).toContain((await s.getText('ws_1/race'))!)
      if (h.tempCount) expect(await h.tempCount(s)).toBe(0)
    })

    test('a write with deferSync is whole for readers at once; sync of it, twice, or of an absent key is no error', async () => {
      const s = await h.make()
      const keys = ['ws_1/deferred/a', 'ws_1/deferred/b']
      for (const k of keys) await s.put(k, `body of ${k}`, { deferSync: true })
      for (const k of keys) expect(await s.getText(k)).toBe(`body of ${k}`)
      await s.sync([...keys, 'ws_1/deferred/absent'])
      await s.sync(keys)
      expect(await s.getText('ws_1/deferred/b')).toBe('body of ws_1/deferred/b')
      if (h.tempCount) expect(await h.tempCount(s)).toBe(0)
    })

    test('sweepTemp leaves committed objects alone', async () => {
      const s = await h.make()
      await s.put('ws_1/keep', 'kept')
      expect(await s.sweepTemp()).toBeGreaterThanOrEqual(0)
      expect(await s.getText('ws_1/keep')).toBe('kept')
    })
  })
}
