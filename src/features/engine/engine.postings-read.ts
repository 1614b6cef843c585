import type { Statement } from 'bun:sqlite'

// A small base's posting lists read at once. A list read by itself is an fts5vocab query, and each
// such query prepares and runs a statement of FTS5's own to find the table (fts5_vocab.c's xOpen):
// 8 µs in a script that only reads, 30-45 µs in the server. A small base's every list comes in one
// scan (about 10 ms at 1x squad-dev, 79,140 occurrences of 10,746 terms), kept packed (the terms in
// one string, the occurrences' rowids in one typed array) and read by binary search. The lengths'
// readers (varints, hexByte) are here too.

/** Passages and occurrences (the base's token count) up to which a base's lists are read at once. */
export const WHOLE_ROWS = 16_384
export const WHOLE_TOKENS = 1 << 18
/** Bases whose whole lists are kept at once (the least recently searched goes first). */
export const WHOLE_BASES = 4

/**
 * Every term of a base's table and its occurrences, packed: term i is `terms` from `termAt[i]` to
 * `termAt[i + 1] - 1` (a space after each), its occurrences' rowids `docs` from `docAt[i]` to
 * `docAt[i + 1]` (one per occurrence, in rowid order). Terms ascending.
 */
export interface WholeLists {
  terms: string
  termAt: Int32Array
  docs: Int32Array
  docAt: Int32Array
}

/**
 * Reads a table's every list (`lists`: each term, a space, its rowids comma-separated, a space, the
 * next term...), or null when the terms are not in JavaScript's ascending order (a term past U+D7FF)
 * or a list is not in rowid order, which binary search and the lists' reader need.
 */
export function readWhole(all: Statement): WholeLists | null {
  const text = (all.get() as { lists: string | null }).lists ?? ''
  const names: string[] = []
  const termAt = [0]
  const docs: number[] = []
  const docAt = [0]
  let at = 0
  while (at < text.length) {
    const space = text.indexOf(' ', at)
    const name = text.slice(at, space)
    if (names.length > 0 && !(names[names.length - 1]! < name)) return null
    names.push(name)
    termAt.push(termAt[termAt.length - 1]! + name.length + 1)
    // The rowids, up to the next space or the end, each at least the one before.
    let n = 0
    let last = -1
    for (at = space + 1; at <= text.length; at++) {
      const c = at < text.length ? text.charCodeAt(at) : 32
      if (c !== 44 && c !== 32) n = n * 10 + c - 48
      else {
        if (n < last) return null
        docs.push(n)
        last = n
        n = 0
        if (c === 32) break
      }
    }
    docAt.push(docs.length)
    at++
  }
  return {
    terms: names.length === 0 ? '' : `${names.join(' ')} `,
    termAt: Int32Array.from(termAt),
    docs: Int32Array.from(docs),
    docAt: Int32Array.from(docAt),
  }
}

/** A term's occurrences' rowids (none for a term the table lacks). */
export function wholeDocs(whole: WholeLists, term: string): Int32Array {
  const { terms, termAt } = whole
  let lo = 0
  let hi = termAt.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (compareAt(terms, termAt[mid]!, termAt[mid + 1]! - 1, term) < 0) lo = mid + 1
    else hi = mid
  }
  if (lo === termAt.length - 1 || compareAt(terms, termAt[lo]!, termAt[lo + 1]! - 1, term) !== 0)
    return whole.docs.subarray(0, 0)
  return whole.docs.subarray(whole.docAt[lo]!, whole.docAt[lo + 1]!)
}

/** `text` from `from` to `to` against `term`, by UTF-16 code units as `<` compares strings. */
function compareAt(text: string, from: number, to: number, term: string): number {
  const n = Math.min(to - from, term.length)
  for (let i = 0; i < n; i++) {
    const d = text.charCodeAt(from + i) - term.charCodeAt(i)
    if (d !== 0) return d
  }
  return to - from - term.length
}

/**
 * Reads `count` SQLite varints (fts5's encoding of sizes and counts) into `out` from `byte(i)`, the
 * i-th byte. Counts here stay far below the 9-byte form's range, which this does not read.
 */
export function varints(byte: (i: number) => number, out: Uint32Array | number[], count: number): void {
  let at = 0
  for (let i = 0; i < count; i++) {
    let v = 0
    let b: number
    do {
      b = byte(at++)
      v = v * 128 + (b & 0x7f)
    } while (b >= 0x80)
    out[i] = v
  }
}

/** The i-th byte of an upper-case hex string (SQLite's hex()). */
export function hexByte(hex: string, i: number): number {
  const digit = (c: number) => (c <= 57 ? c - 48 : c - 55)
  return (digit(hex.charCodeAt(2 * i)) << 4) | digit(hex.charCodeAt(2 * i + 1))
}

/** Comma-separated integers, appended through `each`. */
export function eachInt(list: string, each: (n: number) => void): void {
  let n = 0
  for (let i = 0; i < list.length; i++) {
    const c = list.charCodeAt(i)
    if (c === 44) {
      each(n)
      n = 0
    } else n = n * 10 + c - 48
  }
  if (list.length > 0) each(n)
}
