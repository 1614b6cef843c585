// Reading part of an object through the envelope closes its file at once, not when the collector
// finds it (Bun throws for a FileHandle closed by the collector).
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EnvelopeStore } from '../../../src/platform/storage/envelope-store'
import { LocalObjectStore } from '../../../src/platform/storage/local-store'

const root = mkdtempSync(join(tmpdir(), 'engram-envelope-files-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Files under the store's root this process holds open. */
function openUnderRoot(): string[] {
  const out: string[] = []
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`)
      if (target.startsWith(root)) out.push(target)
    } catch {}
  }
  return out
}

const store = new EnvelopeStore(new LocalObjectStore({ root: join(root, 'objects') }))
const body = 'A plain object of a workspace without a key. '.repeat(2000)

test('head of a plain object leaves no file open', async () => {
  for (let i = 0; i < 20; i++) await store.put(`ws_1/plain/o${i}`, body)
  for (let i = 0; i < 20; i++) expect((await store.head(`ws_1/plain/o${i}`))?.size).toBe(body.length)
  expect(openUnderRoot()).toEqual([])
})

test('a stream read for its first bytes, then cancelled, leaves no file open', async () => {
  await store.put('ws_1/plain/window', body)
  for (let i = 0; i < 20; i++) {
    const reader = (await store.get('ws_1/plain/window'))!.getReader()
    expect((await reader.read()).done).toBe(false)
    await reader.cancel()
  }
  expect(openUnderRoot()).toEqual([])
})
