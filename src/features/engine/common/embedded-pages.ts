// The executable's embedded files (`bun build --compile`: the static vectors, the WordNet files, the
// encoder's weights, the modules' code) lie in its `.bun` section, mapped from the executable file
// privately. Reading one brings its pages into this process's resident set, and they stay there as
// long as nothing else needs the memory, although every table read from them is a copy of its own
// (the static vectors' 19 MB, the encoder's 7 MB): the same bytes counted twice. releaseEmbeddedPages
// gives those pages back (madvise MADV_DONTNEED): a page read again later is read again from the
// file, the same bytes, as a private mapping never written is its file. Only pages still the file's
// are given back (a page written to, which a private mapping copies, is left as it is); from the
// sources, on another system, or where anything is missing, it does nothing. The file cannot change
// under the mapping: the kernel refuses to write to a running executable (ETXTBSY), and one replaced
// by another file keeps the old one mapped.
import { dlopen, FFIType } from 'bun:ffi'
import { closeSync, openSync, readFileSync, readSync, realpathSync } from 'node:fs'

const PAGE = 4096
const MADV_DONTNEED = 4
/** /proc/self/pagemap: the page is resident (63) and the file's own, not a private copy (61). */
const PRESENT = 1n << 63n
const FILE_PAGE = 1n << 61n

/** A section of an ELF file: where it starts in the file and its size in bytes. */
export interface FileRange {
  offset: number
  size: number
}

/** The named section of a 64-bit little-endian ELF file's bytes `read(offset, length)`, or null. */
export function elfSection(read: (offset: number, length: number) => Buffer, name: string): FileRange | null {
  const head = read(0, 64)
  if (head.length < 64 || head.readUInt32BE(0) !== 0x7f454c46 || head[4] !== 2 || head[5] !== 1) return null
  const shoff = Number(head.readBigUInt64LE(0x28))
  const shentsize = head.readUInt16LE(0x3a)
  const shnum = head.readUInt16LE(0x3c)
  const shstrndx = head.readUInt16LE(0x3e)
  if (!shoff || shentsize < 64 || shstrndx >= shnum) return null
  const headers = read(shoff, shnum * shentsize)
  const at = (i: number) => i * shentsize
  const names = {
    offset: Number(headers.readBigUInt64LE(at(shstrndx) + 0x18)),
    size: Number(headers.readBigUInt64LE(at(shstrndx) + 0x20)),
  }
  const strings = read(names.offset, names.size)
  for (let i = 0; i < shnum; i++) {
    const start = headers.readUInt32LE(at(i))
    const end = strings.indexOf(0, start)
    if (strings.toString('latin1', start, end < 0 ? undefined : end) !== name) continue
    return {
      offset: Number(headers.readBigUInt64LE(at(i) + 0x18)),
      size: Number(headers.readBigUInt64LE(at(i) + 0x20)),
    }
  }
  return null
}

/**
 * Where a file's bytes [offset, offset + size) are mapped in this process, from /proc/self/maps'
 * text: the address of `offset`, or null when no mapping of `path` holds all of them.
 */
export function mappedAt(maps: string, path: string, range: FileRange): number | null {
  for (const line of maps.split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) \S+ ([0-9a-f]+) \S+ \d+\s+(.*)$/.exec(line)
    if (!m || m[4] !== path) continue
    const start = Number.parseInt(m[1]!, 16)
    const end = Number.parseInt(m[2]!, 16)
    const fileOffset = Number.parseInt(m[3]!, 16)
    const address = start + (range.offset - fileOffset)
    if (range.offset >= fileOffset && address + range.size <= end) return address
  }
  return null
}

/**
 * The runs of whole pages in [address, address + size) to give back, from their /proc/self/pagemap
 * words (`words[i]` is the page at `first + i` pages): resident and still the file's own.
 */
export function cleanRuns(words: BigUint64Array, first: number): { address: number; bytes: number }[] {
  const runs: { address: number; bytes: number }[] = []
  let start = -1
  for (let i = 0; i <= words.length; i++) {
    const clean = i < words.length && (words[i]! & PRESENT) !== 0n && (words[i]! & FILE_PAGE) !== 0n
    if (clean && start < 0) start = i
    if (!clean && start >= 0) {
      runs.push({ address: (first + start) * PAGE, bytes: (i - start) * PAGE })
      start = -1
    }
  }
  return runs
}

type Madvise = (address: number, bytes: number, advice: number) => number
let madvise: Madvise | null | undefined

/** libc's madvise through bun:ffi, or null where it cannot be had (not Linux, no glibc). */
function libcMadvise(): Madvise | null {
  if (madvise !== undefined) return madvise
  madvise = null
  if (process.platform !== 'linux') return null
  try {
    const lib = dlopen('libc.so.6', {
      madvise: { args: [FFIType.u64, FFIType.u64, FFIType.i32], returns: FFIType.i32 },
    })
    madvise = (address, bytes, advice) => lib.symbols.madvise(address, bytes, advice) as number
  } catch {
    madvise = null
  }
  return madvise
}

/**
 * Gives back the resident pages of [address, address + size) that are still their file's own (a
 * private file mapping's pages never written): they are read again from the file if touched again.
 * Returns the bytes given back.
 */
export function releaseCleanPages(address: number, size: number): number {
  const advise = libcMadvise()
  if (!advise || size <= 0) return 0
  const first = Math.ceil(address / PAGE)
  const last = Math.floor((address + size) / PAGE)
  if (last <= first) return 0
  const words = new BigUint64Array(last - first)
  let fd: number | null = null
  try {
    fd = openSync('/proc/self/pagemap', 'r')
    const bytes = new Uint8Array(words.buffer)
    for (let read = 0; read < bytes.length; ) {
      const n = readSync(fd, bytes, read, bytes.length - read, first * 8 + read)
      if (n <= 0) return 0
      read += n
    }
  } catch {
    return 0
  } finally {
    if (fd !== null) closeSync(fd)
  }
  let released = 0
  for (const run of cleanRuns(words, first)) {
    if (advise(run.address, run.bytes, MADV_DONTNEED) === 0) released += run.bytes
  }
  return released
}

/** Where the running executable's `.bun` section is mapped (null from the sources, or not found). */
let embedded: { address: number; size: number } | null | undefined

function embeddedSection(): { address: number; size: number } | null {
  if (embedded !== undefined) return embedded
  embedded = null
  if (process.platform !== 'linux') return null
  let fd: number | null = null
  try {
    const path = realpathSync('/proc/self/exe')
    fd = openSync(path, 'r')
    const file = fd
    const read = (offset: number, length: number) => {
      const out = Buffer.alloc(length)
      readSync(file, out, 0, length, offset)
      return out
    }
    const section = elfSection(read, '.bun')
    if (!section || section.size === 0) return null
    const address = mappedAt(readFileSync('/proc/self/maps', 'utf8'), path, section)
    if (address !== null) embedded = { address, size: section.size }
  } catch {
    embedded = null
  } finally {
    if (fd !== null) closeSync(fd)
  }
  return embedded
}

/**
 * Gives back the executable's embedded pages read so far (see the file's head); returns the bytes
 * given back, 0 from the sources.
 */
export function releaseEmbeddedPages(): number {
  const section = embeddedSection()
  return section ? releaseCleanPages(section.address, section.size) : 0
}
