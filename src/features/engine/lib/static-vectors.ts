import { readFileSync } from 'node:fs'
import VECTORS_PATH from './static-vectors.bin' with { type: 'file' }

// Built-in static word vectors (scripts/static-vectors/, docs/onboarding-and-answers.md): 128
// dimensions a word, fitted so that the sum of a text's word vectors points where Google's Universal
// Sentence Encoder lite puts the text. Each vector is stored already multiplied by its word's idf, as
// int8 with a float32 scale. File: "ESV1", dims, count, vocabulary bytes (u32 LE each); the
// vocabulary, one word a line (padded to 4 bytes); count scales; count x dims int8 values.

/** Words left out of a text's vector, as when the vectors were fitted. */
const STOP = new Set(
  'a an the of to in on at by for with from and or but is are was were be been being do does did what which who whom whose when where why how that this these those it its as into than then there their they he she his her him i you we our your not no can could would should may might will shall has have had s'.split(
    ' ',
  ),
)
const WORD = /[a-z0-9]+/g

interface Table {
  dims: number
  index: Map<string, number>
  scales: Float32Array
  values: Int8Array
}

let table: Table | null = null

function load(): Table {
  if (table) return table
  const bytes = readFileSync(VECTORS_PATH)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (new TextDecoder().decode(bytes.subarray(0, 4)) !== 'ESV1')
    throw new Error('static-vectors.bin: bad header')
  const dims = view.getUint32(4, true)
  const count = view.getUint32(8, true)
  const vocabBytes = view.getUint32(12, true)
  const words = new TextDecoder().decode(bytes.subarray(16, 16 + vocabBytes)).split('\n')
  const index = new Map<string, number>()
  for (let i = 0; i < count; i++) index.set(words[i]!, i)
  const scalesAt = 16 + vocabBytes
  const buffer = bytes.buffer.slice(bytes.byteOffset + scalesAt, bytes.byteOffset + bytes.byteLength)
  table = {
    dims,
    index,
    scales: new Float32Array(buffer, 0, count),
    values: new Int8Array(buffer, count * 4, count * dims),
  }
  return table
}

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
  const { dims, index, scales, values } = load()
  const v = new Float32Array(dims)
  for (const [word] of text.toLowerCase().matchAll(WORD)) {
    if (STOP.has(word)) continue
    const i = index.get(word)
    if (i === undefined) continue
    const s = scales[i]!
    const at = i * dims
    for (let d = 0; d < dims; d++) v[d]! += s * values[at + d]!
  }
  let norm = 0
  for (let d = 0; d < dims; d++) norm += v[d]! * v[d]!
  if (norm > 0) {
    const r = 1 / Math.sqrt(norm)
    for (let d = 0; d < dims; d++) v[d]! *= r
  }
  return v
}
