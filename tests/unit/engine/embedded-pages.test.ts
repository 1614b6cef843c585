import { ptr } from 'bun:ffi'
import { afterAll, describe, expect, test } from 'bun:test'
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  cleanRuns,
  elfSection,
  mappedAt,
  releaseCleanPages,
  releaseEmbeddedPages,
} from '../../../src/features/engine/common/index'

// The executable's embedded pages given back once read (embedded-pages.ts): pages of a private file
// mapping still the file's own leave the resident set and read back the same bytes; a page written
// (a private copy) is kept with what was written. Checked on a real private mapping of a temp file.

const dir = mkdtempSync(join(tmpdir(), 'engram-pages-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const PAGE = 4096
const linux = process.platform === 'linux'

/** This process's resident file pages, in bytes (/proc/self/status). */
const rssFile = () =>
  Number(/RssFile:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) * 1024

describe('releaseCleanPages', () => {
  test.if(linux)('gives back the resident pages still the file own, and they read back the same', () => {
    const size = 16 << 20
    const file = join(dir, 'blob.bin')
    const content = new Uint8Array(size)
    for (let i = 0; i < size; i += PAGE) content[i] = (i / PAGE) % 251
    writeFileSync(file, content)
    const mapped = Bun.mmap(file, { shared: false })
    let sum = 0
    for (let i = 0; i < size; i += PAGE) sum += mapped[i]!
    // One page written: a private copy, no longer the file's.
    mapped[3 * PAGE] = 250
    const before = rssFile()
    const released = releaseCleanPages(ptr(mapped), size)
    expect(released).toBeGreaterThanOrEqual(size / 2)
    expect(released).toBeLessThan(size)
    expect(before - rssFile()).toBeGreaterThanOrEqual(size / 2)
    let again = 0
    for (let i = 0; i < size; i += PAGE) again += mapped[i]!
    expect(again).toBe(sum - ((3 % 251) - 250))
    expect(mapped[3 * PAGE]).toBe(250)
    expect(mapped[5 * PAGE]).toBe(5)
  })

  test('a range smaller than a page gives nothing back', () => {
    expect(releaseCleanPages(PAGE + 1, PAGE - 2)).toBe(0)
  })
})

describe('the pieces', () => {
  test('cleanRuns keeps the runs of pages resident and still the file own', () => {
    const clean = (1n << 63n) | (1n << 61n) | 0xa0n
    const copy = 1n << 63n
    const words = new BigUint64Array([clean, clean, copy, 0n, clean, 1n << 61n, clean, clean, clean])
    expect(cleanRuns(words, 10)).toEqual([
      { address: 10 * PAGE, bytes: 2 * PAGE },
      { address: 14 * PAGE, bytes: PAGE },
      { address: 16 * PAGE, bytes: 3 * PAGE },
    ])
  })

  test("elfSection finds a section of an ELF file's headers, and nothing in another file", () => {
    const fd = openSync(process.execPath, 'r')
    const read = (offset: number, length: number) => {
      const out = Buffer.alloc(length)
      readSync(fd, out, 0, length, offset)
      return out
    }
    try {
      const text = elfSection(read, '.text')
      if (!linux) return
      expect(text).not.toBeNull()
      expect(text!.size).toBeGreaterThan(1 << 20)
      expect(elfSection(read, '.no-such-section')).toBeNull()
    } finally {
      closeSync(fd)
    }
    const other = Buffer.from('#!/bin/sh\necho not an executable of ours\n'.padEnd(128))
    expect(elfSection((o, l) => other.subarray(o, o + l), '.bun')).toBeNull()
  })

  test('mappedAt finds the address of file bytes from the mapping that holds them', () => {
    const maps = [
      '00200000-01a39000 r--p 00000000 fe:00 2546136    /opt/engram',
      '06867000-09822000 rw-p 0665e000 fe:00 2546136    /opt/engram',
      '7f12b7636000-7f12f7636000 rwxp 00000000 00:00 0 ',
    ].join('\n')
    expect(mappedAt(maps, '/opt/engram', { offset: 0x6819000, size: 0x100000 })).toBe(
      0x6867000 + 0x6819000 - 0x665e000,
    )
    expect(mappedAt(maps, '/opt/engram', { offset: 0x6819000, size: 0x4000000 })).toBeNull()
    expect(mappedAt(maps, '/opt/other', { offset: 0x6819000, size: 0x1000 })).toBeNull()
  })

  test('from the sources (no embedded section) nothing is given back', () => {
    expect(releaseEmbeddedPages()).toBe(0)
  })
})
