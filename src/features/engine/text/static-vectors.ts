import { readFileSync } from 'node:fs'
import VECTORS_PATH from '../../../../assets/engine/static-vectors.bin' with { type: 'file' }
import { FNV_OFFSET, FNV_PRIME } from './wordscan'

// Built-in static word vectors (scripts/static-vectors/, docs/onboarding-and-answers.md): 128
// dimensions a word, fitted so that the sum of a text's word vectors points where Google's Universal
// Sentence Encoder lite puts the text. Each vector is stored already multiplied by its word's idf, as
// int8 with a float32 scale. File: "ESV1", dims, count, vocabulary bytes (u32 LE each); the
// vocabulary, one word a line (padded to 4 bytes); count scales; count x dims int8 values.

/** The model name of these vectors (passages embedded by another model are embedded again). */
export const STATIC_MODEL = 'engram-static-1'

/** Words left out of a text's vector, as when the vectors were fitted. */
const STOP = new Set(
  'a an the of to in on at by for with from and or but is are was were be been being do does did what which who whom whose when where why how that this these those it its as into than then there their they he she his her him i you we our your not no can could would should may might will shall has have had s'.split(
    ' ',
  ),
)

// A text's words are its runs of ASCII letters and digits, lower-cased; every other character
// separates words. A word is looked up without making a string: FNV-1a over its lower-cased
// character codes picks a slot of an open-addressing table of the vocabulary, and the word is
// compared with the vocabulary's bytes there.

export interface StaticVectorTable {
  dims: number
  scales: Float32Array
  values: Int8Array
  /** The vocabulary's bytes, and where each word starts in them (one entry more: past the last). */
  vocab: Uint8Array
  starts: Uint32Array
  /** 1 for a stop word, by word index. */
  stop: Uint8Array
  /** Word index + 1 per slot (0: empty). */
  slots: Int32Array
  mask: number
}

let table: StaticVectorTable | null = null

/** Whether a character code is an ASCII lower-case letter or digit. */
const isWordCode = (c: number) => (c >= 97 && c <= 122) || (c >= 48 && c <= 57)

function load(): StaticVectorTable {
  table ??= staticVectorTable()
  return table
}

/** Takes a table another thread read (staticVectorTable's), unless this one has its own already. */
export function adoptStaticVectors(built: StaticVectorTable): void {
  table ??= built
}

/** This thread's table if it has one (read, or adopted), without reading it. */
export function loadedStaticVectors(): StaticVectorTable | null {
  return table
}

/** This thread's table, read now unless it has one (to send to another thread: it shares its memory). */
export function staticVectors(): StaticVectorTable {
  return load()
}

/** Rounds up to a multiple of 4 (where a 4-byte array may start). */
const align4 = (n: number) => (n + 3) & ~3

/**
 * Reads the file into a new table whose arrays all lie in one SharedArrayBuffer (about 20 MB): a
 * table sent to another thread is shared, not copied, so a compile thread and the event loop hold
 * one copy. (The file's bytes are read first, then copied in: in the executable it is embedded data,
 * which only a whole read reaches.)
 */
export function staticVectorTable(): StaticVectorTable {
  const bytes = readFileSync(VECTORS_PATH)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (new TextDecoder().decode(bytes.subarray(0, 4)) !== 'ESV1')
    throw new Error('static-vectors.bin: bad header')
  const dims = view.getUint32(4, true)
  const count = view.getUint32(8, true)
  const vocabBytes = view.getUint32(12, true)
  let size = 1
  while (size < count * 2) size *= 2
  // The file placed so that its scales (after the header and vocabulary) start 4-byte aligned; then
  // the word starts, the slots and the stop marks.
  const fileAt = (4 - ((16 + vocabBytes) % 4)) % 4
  const startsAt = align4(fileAt + bytes.byteLength)
  const slotsAt = startsAt + (count + 1) * 4
  const stopAt = slotsAt + size * 4
  const shared = new SharedArrayBuffer(stopAt + count)
  new Uint8Array(shared, fileAt, bytes.byteLength).set(bytes)
  const scalesAt = fileAt + 16 + vocabBytes
  return fill({
    dims,
    scales: new Float32Array(shared, scalesAt, count),
    values: new Int8Array(shared, scalesAt + count * 4, count * dims),
    vocab: new Uint8Array(shared, fileAt + 16, vocabBytes),
    starts: new Uint32Array(shared, startsAt, count + 1),
    stop: new Uint8Array(shared, stopAt, count),
    slots: new Int32Array(shared, slotsAt, size),
    mask: size - 1,
  })
}

/** Fills a table's word starts, slots and stop marks from its vocabulary. */
function fill(built: StaticVectorTable): StaticVectorTable {
  const { vocab, starts, slots, mask } = built
  const count = starts.length - 1
  const size = mask + 1
  for (let i = 0; i < count; i++) starts[i + 1] = vocab.indexOf(10, starts[i]) + 1
  for (let i = 0; i < count; i++) {
    const from = starts[i]!
    const to = starts[i + 1]! - 1
    let h = FNV_OFFSET
    let spellable = to > from
    for (let j = from; j < to; j++) {
      spellable &&= isWordCode(vocab[j]!)
      h = Math.imul(h ^ vocab[j]!, FNV_PRIME)
    }
    // A word no text can spell (not only a-z and 0-9) needs no slot.
    if (!spellable) continue
    let at = h & (size - 1)
    while (slots[at] !== 0) at = (at + 1) & (size - 1)
    slots[at] = i + 1
  }
  for (const w of STOP) {
    let h = FNV_OFFSET
    for (let j = 0; j < w.length; j++) h = Math.imul(h ^ w.charCodeAt(j), FNV_PRIME)
    const i = wordIndex(built, w, 0, w.length, h)
    if (i >= 0) built.stop[i] = 1
  }
  return built
}

/** The word index of `text[from, to)` lower-cased, whose hash is `h`; -1 when it is not in the vocabulary. */
function wordIndex(t: StaticVectorTable, text: string, from: number, to: number, h: number): number {
  const { slots, starts, vocab, mask } = t
  for (let at = h & mask; slots[at] !== 0; at = (at + 1) & mask) {
    const index = slots[at]! - 1
    const start = starts[index]!
    if (starts[index + 1]! - 1 - start !== to - from) continue
    let j = 0
    while (j < to - from && lower(text.charCodeAt(from + j)) === vocab[start + j]) j++
    if (j === to - from) return index
  }
  return -1
}

/** An ASCII upper-case letter's lower case; any other code unchanged. */
const lower = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c)

/** Loads the table now (about 20 MB), not on the first text. */
export function prepareStaticVectors(): void {
  load()
}

/** Dimensions of a static vector. */
export function staticDims(): number {
  return load().dims
}

/** A text's static vector: the sum of its words' vectors, unit length (all zeros when no word is known). */
export function staticVector(text: string): Float32Array {
  const t = load()
  const { dims, scales, values, stop } = t
  const v = new Float32Array(dims)
  const add = (i: number) => {
    if (i < 0 || stop[i] === 1) return
    const s = scales[i]!
    const at = i * dims
    for (let d = 0; d < dims; d++) v[d]! += s * values[at + d]!
  }
  let from = -1
  let h = FNV_OFFSET
  for (let i = 0; i < text.length; i++) {
    const c = lower(text.charCodeAt(i))
    if (isWordCode(c)) {
      if (from < 0) {
        from = i
        h = FNV_OFFSET
      }
      h = Math.imul(h ^ c, FNV_PRIME)
    } else if (from >= 0) {
      add(wordIndex(t, text, from, i, h))
      from = -1
    }
  }
  if (from >= 0) add(wordIndex(t, text, from, text.length, h))
  let norm = 0
  for (let d = 0; d < dims; d++) norm += v[d]! * v[d]!
  if (norm > 0) {
    const r = 1 / Math.sqrt(norm)
    for (let d = 0; d < dims; d++) v[d]! *= r
  }
  return v
}
