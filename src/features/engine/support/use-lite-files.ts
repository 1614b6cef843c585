// The built-in encoder's weights (use-lite.ts): read from the model package's files (model.json's
// manifest and its float32 weight files), or from the int8 asset made of them
// (assets/engine/use-lite-int8.bin, scripts/build-use-lite-int8.ts), which the thread loads: a
// quarter of the bytes, resident once (the executable's embedded file is the weights; no copy).
import { readFileSync, statSync } from 'node:fs'
import { type Matrix, UseLite, type UseLiteWeights } from './use-lite'
import type { Vocabulary } from './use-lite-tokens'

/** int8 rows, each scaled by its largest magnitude over 127 (the scale a float32). */
export function quantizeRows(w: Float32Array, rows: number, cols: number): Matrix {
  const q = new Int8Array(rows * cols)
  const scale = new Float32Array(rows)
  for (let r = 0; r < rows; r++) {
    let max = 0
    for (let c = 0; c < cols; c++) max = Math.max(max, Math.abs(w[r * cols + c]!))
    const sc = Math.fround(max / 127) || 1
    scale[r] = sc
    for (let c = 0; c < cols; c++)
      q[r * cols + c] = Math.max(-127, Math.min(127, Math.round(w[r * cols + c]! / sc)))
  }
  return { w: q, scale, rows, cols }
}

/** A [rows][cols] float32 matrix, transposed. */
export function transpose(w: Float32Array, rows: number, cols: number): Float32Array {
  const t = new Float32Array(rows * cols)
  for (let i = 0; i < rows; i++) for (let o = 0; o < cols; o++) t[o * rows + i] = w[i * cols + o]!
  return t
}

/** Where the model package's files are (paths; inside the compiled executable, its embedded files). */
export interface UseLitePackage {
  model: string
  /** The weight files, in the manifest's order. */
  shards: string[]
}

/** A weight as model.json's manifest lists it. */
interface WeightSpec {
  name: string
  shape: number[]
}

/** The package's float32 weights, as they are or (`int8`) quantized a row at a time. */
export function packageWeights(files: UseLitePackage, int8: boolean): UseLiteWeights {
  const { weightsManifest } = JSON.parse(readFileSync(files.model, 'utf8')) as {
    weightsManifest: { weights: WeightSpec[] }[]
  }
  const place = new Map<string, { offset: number; count: number }>()
  let offset = 0
  for (const s of weightsManifest.flatMap((g) => g.weights)) {
    const count = s.shape.reduce((a, b) => a * b, 1)
    place.set(s.name, { offset, count })
    offset += count * 4
  }
  const bytes = shardBytes(files.shards)
  const vector = (name: string) => {
    const p = place.get(name)
    if (!p) throw new Error(`the encoder's weights have no ${name}`)
    return new Float32Array(bytes(p.offset, p.count * 4).buffer)
  }
  return {
    vector,
    matrix(name, rows, cols, transposed) {
      const raw = vector(name)
      const w = transposed ? transpose(raw, cols, rows) : raw
      return int8 ? quantizeRows(w, rows, cols) : { w, scale: null, rows, cols }
    },
  }
}

/** Bytes of the weight files laid end to end, read a file at a time (the last one kept). */
function shardBytes(paths: string[]): (offset: number, bytes: number) => Uint8Array {
  const starts: number[] = []
  let total = 0
  for (const p of paths) {
    starts.push(total)
    total += statSync(p).size
  }
  let held: { index: number; bytes: Uint8Array } | null = null
  const shard = (index: number) => {
    if (held?.index !== index) held = { index, bytes: readFileSync(paths[index]!) }
    return held.bytes
  }
  return (offset, bytes) => {
    const out = new Uint8Array(bytes)
    let done = 0
    while (done < bytes) {
      const at = offset + done
      let index = starts.length - 1
      while (starts[index]! > at) index--
      const file = shard(index)
      const from = at - starts[index]!
      const n = Math.min(bytes - done, file.byteLength - from)
      if (n <= 0) throw new Error('the encoder’s weight files are shorter than their manifest')
      out.set(file.subarray(from, from + n), done)
      done += n
    }
    return out
  }
}

/** One weight in the asset: where its bytes start (after the header), and what it is. */
export interface AssetEntry {
  name: string
  /** A vector's floats, or a matrix's rows and columns (its scales, then its int8 rows). */
  length?: number
  rows?: number
  cols?: number
  offset: number
}

const FORMAT = 'use-lite-int8/1'
export const pad4 = (n: number) => (n + 3) & ~3

/**
 * The asset's bytes: every weight UseLite reads from `weights` (int8 matrices), in the order it
 * reads them, behind a JSON header (its length a u32 first).
 */
export function int8Asset(weights: UseLiteWeights, vocabulary: Vocabulary): Uint8Array {
  const parts: { entry: AssetEntry; data: Uint8Array[] }[] = []
  let offset = 0
  const add = (entry: Omit<AssetEntry, 'offset'>, data: Uint8Array[]) => {
    parts.push({ entry: { ...entry, offset }, data })
    offset += data.reduce((n, d) => n + pad4(d.byteLength), 0)
  }
  new UseLite(
    {
      vector(name) {
        const v = weights.vector(name)
        add({ name, length: v.length }, [new Uint8Array(v.buffer, v.byteOffset, v.byteLength)])
        return v
      },
      matrix(name, rows, cols, transposed) {
        const m = weights.matrix(name, rows, cols, transposed)
        if (!m.scale) throw new Error('the asset holds int8 matrices')
        add({ name, rows, cols }, [
          new Uint8Array(m.scale.buffer, m.scale.byteOffset, m.scale.byteLength),
          new Uint8Array(m.w.buffer, m.w.byteOffset, m.w.byteLength),
        ])
        return m
      },
    },
    vocabulary,
  )
  const header = new TextEncoder().encode(
    JSON.stringify({ format: FORMAT, entries: parts.map((p) => p.entry) }),
  )
  const start = pad4(4 + header.byteLength)
  const out = new Uint8Array(start + offset)
  new DataView(out.buffer).setUint32(0, header.byteLength, true)
  out.set(header, 4)
  for (const p of parts) {
    let at = start + p.entry.offset
    for (const d of p.data) {
      out.set(d, at)
      at += pad4(d.byteLength)
    }
  }
  return out
}

/** The asset's header (the bytes after its length): its weights, in the order UseLite reads them. */
export function assetHeader(bytes: Uint8Array): AssetEntry[] {
  const header = JSON.parse(new TextDecoder().decode(bytes)) as { format: string; entries: AssetEntry[] }
  if (header.format !== FORMAT) throw new Error(`the encoder's weights are not ${FORMAT}`)
  return header.entries
}

/**
 * The asset's weights: vectors and the table copied out of its bytes, dense layers' matrices lent as
 * views of them (copied once into the kernel's memory; held as views where there is no kernel).
 */
export function assetWeights(bytes: Uint8Array): UseLiteWeights {
  // Views of floats need a 4-byte aligned start.
  const buf = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice()
  const length = new DataView(buf.buffer, buf.byteOffset).getUint32(0, true)
  const start = buf.byteOffset + pad4(4 + length)
  const entries = new Map(assetHeader(buf.subarray(4, 4 + length)).map((e) => [e.name, e]))
  const entry = (name: string) => {
    const e = entries.get(name)
    if (!e) throw new Error(`the encoder's weights have no ${name}`)
    return e
  }
  return {
    vector: (name) => {
      const e = entry(name)
      return new Float32Array(buf.buffer, start + e.offset, e.length).slice()
    },
    matrix(name, rows, cols, transpose): Matrix {
      const e = entry(name)
      if (e.rows !== rows || e.cols !== cols)
        throw new Error(`the encoder's ${name} is not ${rows} by ${cols}`)
      const scale = new Float32Array(buf.buffer, start + e.offset, rows)
      const w = new Int8Array(buf.buffer, start + e.offset + pad4(rows * 4), rows * cols)
      // A dense layer's matrix is copied into the kernel's memory (use-lite-kernel.ts), which then
      // holds the only copy: it is lent as a view of the asset's bytes, not copied twice. The table
      // of pieces' vectors, read where it is, gets a copy of its own, so the bytes can go.
      return transpose ? { w, scale, rows, cols } : { w: w.slice(), scale: scale.slice(), rows, cols }
    },
  }
}

/**
 * The encoder as its thread loads it: the int8 asset and the package's vocabulary. `afterRead` is
 * called once both are read, before the model is made of them (the thread gives back the
 * executable's pages they were read from there, so they are not resident beside the model's
 * memory as it is made).
 */
export function loadUseLite(files: { weights: string; vocabulary: string }, afterRead?: () => void): UseLite {
  const weights = readFileSync(files.weights)
  const vocabulary = JSON.parse(readFileSync(files.vocabulary, 'utf8'))
  afterRead?.()
  return new UseLite(assetWeights(weights), vocabulary)
}
