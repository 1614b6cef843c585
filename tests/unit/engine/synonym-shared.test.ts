import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { PACKED_PATH } from '../../../scripts/build-synonym-table'
import { packSynonyms, type SynonymTable, unpackSynonyms } from '../../../src/features/engine/text/index'

// A compile thread reads the synonym table and posts it to the event loop (compile-worker.ts): its
// arrays lie in one SharedArrayBuffer, so the two threads hold one copy, not one each (issue 38).

const ECHO = 'self.onmessage = (e) => self.postMessage(e.data)'

/** The table as a thread that received it posts it back. */
async function throughThread(table: SynonymTable): Promise<SynonymTable> {
  const worker = new Worker(URL.createObjectURL(new Blob([ECHO], { type: 'application/javascript' })))
  try {
    return await new Promise<SynonymTable>((resolve, reject) => {
      worker.onmessage = (e) => resolve(e.data as SynonymTable)
      worker.onerror = (e) => reject(e)
      worker.postMessage(table)
    })
  } finally {
    worker.terminate()
  }
}

describe('the synonym table shared between threads', () => {
  test('its arrays are views of one SharedArrayBuffer, not of the bytes read', () => {
    const bytes = new Uint8Array(readFileSync(PACKED_PATH))
    const t = unpackSynonyms(bytes)
    const arrays = [t.starts, t.slots, t.off, t.list]
    for (const a of arrays) {
      expect(a.buffer).toBeInstanceOf(SharedArrayBuffer)
      expect(a.buffer).toBe(t.starts.buffer)
    }
    expect(t.starts.buffer.byteLength).toBe(arrays.reduce((n, a) => n + a.byteLength, 0))
    // The same table as the file holds: packed again, the same bytes.
    expect(Buffer.from(packSynonyms(t)).equals(Buffer.from(bytes))).toBe(true)
    // The bytes read can go: the table does not see them.
    const before = t.list[0]
    bytes.fill(0)
    expect(t.list[0]).toBe(before)
  })

  test('posted to another thread and back, it is the same memory (one copy across threads)', async () => {
    const t = unpackSynonyms(new Uint8Array(readFileSync(PACKED_PATH)))
    const back = await throughThread(t)
    expect(back.names).toBe(t.names)
    const last = t.list.length - 1
    const was = t.list[last]!
    back.list[last] = was + 12345
    expect(t.list[last]).toBe(was + 12345)
    t.slots[0] = -7
    expect(back.slots[0]).toBe(-7)
  })

  test('a file cut short is refused', () => {
    const bytes = new Uint8Array(readFileSync(PACKED_PATH))
    expect(() => unpackSynonyms(bytes.subarray(0, 1000))).toThrow('too short')
  })
})
