// A batch of deferred writes is made durable with one flush a file and one a folder, not two a file.
import { afterAll, afterEach, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LocalObjectStore } from '../../../src/platform/storage/local-store'

const root = mkdtempSync(join(tmpdir(), 'engram-deferred-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Counts every FileHandle.sync (file data or a folder's names) while the test runs. */
async function countSyncs() {
  const probe: FileHandle = await open(root, 'r')
  const proto = Object.getPrototypeOf(probe) as { sync: (this: FileHandle) => Promise<void> }
  await probe.close()
  const original = proto.sync
  const counter = { n: 0, restore: () => (proto.sync = original) }
  proto.sync = function (this: FileHandle) {
    counter.n++
    return original.call(this)
  }
  return counter
}

let restore = () => {}
afterEach(() => restore())

test('fifty synced writes flush twice each; deferred they flush nothing until one sync: once each and the folder once', async () => {
  const store = new LocalObjectStore({ root: join(root, 'objects') })
  const counter = await countSyncs()
  restore = counter.restore
  for (let i = 0; i < 50; i++) await store.put(`ws_1/synced/f${i}`, `file ${i}`)
  expect(counter.n).toBe(100)
  counter.n = 0
  const keys = Array.from({ length: 50 }, (_, i) => `ws_1/deferred/f${i}`)
  for (const k of keys) await store.put(k, `deferred ${k}`, { deferSync: true })
  expect(counter.n).toBe(0)
  await store.sync(keys)
  expect(counter.n).toBe(51)
  for (const k of keys) expect(await store.getText(k)).toBe(`deferred ${k}`)
})
