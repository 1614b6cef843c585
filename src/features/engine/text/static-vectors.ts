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

/** The buffers of a table, to hand it to another thread without copying them. */
export function staticVectorBuffers(t: StaticVectorTable): ArrayBuffer[] {
  const all = [t.scales, t.values, t.vocab, t.starts, t.stop, t.slots].map((a) => a.buffer as ArrayBuffer)
  return [...new Set(all)]
}

/** Reads the file into a new table (its buffers its own: a compile thread hands them over). */
export function staticVectorTable(): StaticVectorTable {
  const bytes = readFileSync(VECTORS_PATH)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (new TextDecoder().decode(bytes.subarray(0, 4)) !== 'ESV1')
    throw new Error('static-vectors.bin: bad header')
  const dims = view.getUint32(4, true)
  const count = view.getUint32(8, true)
  const vocabBytes = view.getUint32(12, true)
  const vocab = bytes.subarray(16, 16 + vocabBytes)
  const starts = new Uint32Array(count + 1)
  for (let i = 0; i < count; i++) starts[i + 1] = vocab.indexOf(10, starts[i]) + 1
  let size = 1
  while (size < count * 2) size *= 2
  const slots = new Int32Array(size)
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
  // The scales are read in place when the file's bytes are 4-byte aligned (a file this size gets a
  // buffer of its own); copied otherwise.
  let at = bytes.byteOffset + 16 + vocabBytes
  let buffer = bytes.buffer as ArrayBuffer
  if (at % 4 !== 0) {
    buffer = buffer.slice(at, bytes.byteOffset + bytes.byteLength)
    at = 0
  }
  const built: StaticVectorTable = {
    dims,
    scales: new Float32Array(buffer, at, count),
    values: new Int8Array(buffer, at + count * 4, count * dims),
    vocab,
    starts,
    stop: new Uint8Array(count),
    slots,
    mask: size - 1,
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
