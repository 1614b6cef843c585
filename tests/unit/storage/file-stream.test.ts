import { describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileHandleStream } from '../../../src/platform/storage/streams'

/** Every chunk a file's stream gives, read to its end. */
async function chunksOf(path: string): Promise<Uint8Array[]> {
  const out: Uint8Array[] = []
  const fh = await open(path, 'r')
  const reader = fileHandleStream(fh).getReader()
  for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(r.value)
  return out
}

describe('a stream over an open file', () => {
  test('reads a small file without a large buffer, and a large one whole, in order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-file-stream-'))
    try {
      const small = Buffer.from('A paragraph of text, as one small file holds it.\n')
      writeFileSync(join(dir, 'small'), small)
      const chunks = await chunksOf(join(dir, 'small'))
      expect(Buffer.concat(chunks)).toEqual(small)
      // Thousands of small texts read in a run: each read does not zero a quarter-megabyte buffer.
      for (const c of chunks) expect(c.buffer.byteLength).toBeLessThanOrEqual(16 * 1024)
      const large = Buffer.alloc(700 * 1024 + 3)
      for (let i = 0; i < large.length; i++) large[i] = (i * 31 + (i >> 9)) & 0xff
      writeFileSync(join(dir, 'large'), large)
      expect(Buffer.concat(await chunksOf(join(dir, 'large')))).toEqual(large)
      writeFileSync(join(dir, 'empty'), '')
      expect(Buffer.concat(await chunksOf(join(dir, 'empty'))).length).toBe(0)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
