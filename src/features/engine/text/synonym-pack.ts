import { readFileSync } from 'node:fs'
import PACKED_PATH from '../../../../assets/engine/synonyms.bin' with { type: 'file' }

// The stemmed synonym table as built from synonyms.txt (variants.ts, buildSynonyms), packed into a
// file at build time (scripts/build-synonym-table.ts; a unit test checks it is current), so that a
// process reads it in a few milliseconds instead of stemming the file's 131,000 words (0.15 s on a
// quiet machine, most of a second on a busy one, ahead of a base's first question). File: "ESY1",
// then the stem count, the slot count, the link count and the names' bytes (u32 LE each); starts
// (count + 1), slots, off (count + 1) and list (u32 or i32 each); the names, ASCII.

/** The stemmed synonym table, packed: what a process reads and what threads hand over. */
export interface SynonymTable {
  /** The stems, one after another; stem i is names[starts[i], starts[i + 1]). */
  names: string
  starts: Uint32Array
  /** Stem number + 1 per slot (0: empty). */
  slots: Int32Array
  mask: number
  /** Stem i's related stems are list[off[i], off[i + 1]), in the order the file first links them. */
  off: Uint32Array
  list: Int32Array
}

const MAGIC = 'ESY1'
const HEADER = 20

/** Where the packed table is: beside the other engine assets (embedded in the compiled executable). */
export const SYNONYMS_PACKED_PATH = PACKED_PATH

/** A table's bytes as the file holds them. */
export function packSynonyms(t: SynonymTable): Uint8Array {
  const names = new TextEncoder().encode(t.names)
  const arrays = [t.starts, t.slots, t.off, t.list]
  const size = HEADER + arrays.reduce((n, a) => n + a.byteLength, 0) + names.length
  const out = new Uint8Array(size)
  out.set(new TextEncoder().encode(MAGIC), 0)
  const view = new DataView(out.buffer)
  view.setUint32(4, t.starts.length - 1, true)
  view.setUint32(8, t.slots.length, true)
  view.setUint32(12, t.list.length, true)
  view.setUint32(16, names.length, true)
  let at = HEADER
  for (const a of arrays) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at)
    at += a.byteLength
  }
  out.set(names, at)
  return out
}

/**
 * The table a file's bytes hold: its arrays copied out of them into one SharedArrayBuffer (so the
 * bytes can go), which a compile thread's answer shares with the event loop instead of copying.
 */
export function unpackSynonyms(bytes: Uint8Array): SynonymTable {
  if (new TextDecoder().decode(bytes.subarray(0, 4)) !== MAGIC) throw new Error('synonyms.bin: bad header')
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const count = view.getUint32(4, true)
  const size = view.getUint32(8, true)
  const links = view.getUint32(12, true)
  const nameBytes = view.getUint32(16, true)
  const words = 2 * (count + 1) + size + links
  if (bytes.byteLength < HEADER + words * 4 + nameBytes) throw new Error('synonyms.bin: too short')
  // One copy, shared: the thread that read it and every thread it is posted to see the same memory.
  const shared = new SharedArrayBuffer(words * 4)
  new Uint8Array(shared).set(bytes.subarray(HEADER, HEADER + words * 4))
  let at = 0
  const take = <T>(make: (b: SharedArrayBuffer, at: number, n: number) => T, n: number): T => {
    const a = make(shared, at, n)
    at += n * 4
    return a
  }
  const starts = take((b, o, n) => new Uint32Array(b, o, n), count + 1)
  const slots = take((b, o, n) => new Int32Array(b, o, n), size)
  const off = take((b, o, n) => new Uint32Array(b, o, n), count + 1)
  const list = take((b, o, n) => new Int32Array(b, o, n), links)
  const names = new TextDecoder().decode(bytes.subarray(HEADER + at, HEADER + at + nameBytes))
  return { names, starts, slots, mask: size - 1, off, list }
}

/** The packed table the build wrote. */
export function readPackedSynonyms(): SynonymTable {
  return unpackSynonyms(readFileSync(SYNONYMS_PACKED_PATH))
}
