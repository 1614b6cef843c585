// The encoder's thread reads the int8 asset (use-lite-files.ts's format) a weight at a time, each
// dense layer's matrix straight into the kernel's memory (use-lite-kernel.ts): read whole, the
// asset's 7 MB were held beside the memory they were copied into (issue 38: the encoder's load was
// the 1x peak's moment). The embedded file cannot be opened for reads at an offset (it has no
// descriptor), so a weight is a slice of the file, read as a Blob's bytes.
import { readFileSync } from 'node:fs'
import { EMBEDDINGS, type Matrix, UseLite, type UseLiteWeights } from './use-lite'
import { type AssetEntry, assetHeader, pad4 } from './use-lite-files'

/** `bytes` of the file from `offset`, in a buffer of their own (detached once copied elsewhere). */
export type ReadBytes = (offset: number, bytes: number) => Promise<Uint8Array>

/** Reads from a file (an embedded one too) by slices. */
export function fileSlices(path: string): ReadBytes {
  const file = Bun.file(path)
  return async (offset, bytes) => new Uint8Array(await file.slice(offset, offset + bytes).arrayBuffer())
}

const pad16 = (n: number) => (n + 15) & ~15

/** A weight's bytes in the asset: a vector's floats, or a matrix's scales then its rows. */
function entryBytes(e: AssetEntry): number {
  return e.length !== undefined ? e.length * 4 : pad4(e.rows! * 4) + e.rows! * e.cols!
}

/**
 * The asset's weights read a weight at a time: the dense layers' matrices into a new memory (the
 * kernel's: UseLite's `memory`), the table of pieces' vectors and the vectors each into arrays of
 * their own. At most one weight's bytes are held besides.
 */
export async function readAssetWeights(
  read: ReadBytes,
): Promise<{ weights: UseLiteWeights; memory: WebAssembly.Memory }> {
  const length = new DataView((await read(0, 4)).buffer).getUint32(0, true)
  const entries = assetHeader(await read(4, length))
  const start = pad4(4 + length)
  const dense = (e: AssetEntry) => e.rows !== undefined && e.name !== EMBEDDINGS
  let size = 0
  const at = new Map<string, { scale: number; w: number }>()
  for (const e of entries.filter(dense)) {
    const scale = size
    const w = pad16(scale + e.rows! * 4)
    size = pad16(w + e.rows! * e.cols!)
    at.set(e.name, { scale, w })
  }
  const memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(size / 65536)) })
  const vectors = new Map<string, Float32Array>()
  const matrices = new Map<string, Matrix>()
  for (const e of entries) {
    const read4 = await read(start + e.offset, entryBytes(e))
    // Views of floats need a 4-byte aligned start.
    const bytes = read4.byteOffset % 4 === 0 ? read4 : read4.slice()
    if (bytes.byteLength !== entryBytes(e)) throw new Error(`the encoder's weights end inside ${e.name}`)
    if (e.length !== undefined) {
      vectors.set(e.name, new Float32Array(bytes.buffer, bytes.byteOffset, e.length))
      continue
    }
    const rows = e.rows!
    const cols = e.cols!
    const place = at.get(e.name)
    if (!place) {
      // The table is read in place, its bytes its own.
      const scale = new Float32Array(bytes.buffer, bytes.byteOffset, rows)
      matrices.set(e.name, {
        w: new Int8Array(bytes.buffer, bytes.byteOffset + pad4(rows * 4), rows * cols),
        scale,
        rows,
        cols,
      })
      continue
    }
    const into = new Uint8Array(memory.buffer)
    into.set(bytes.subarray(0, rows * 4), place.scale)
    into.set(bytes.subarray(pad4(rows * 4), pad4(rows * 4) + rows * cols), place.w)
    matrices.set(e.name, {
      w: new Int8Array(memory.buffer, place.w, rows * cols),
      scale: new Float32Array(memory.buffer, place.scale, rows),
      rows,
      cols,
    })
    // Garbage until the thread's next collection, the read would be held with every one after it
    // (7 MB in all); detached, its memory goes back at once.
    ;(read4.buffer as ArrayBuffer).transfer(0)
  }
  const weights: UseLiteWeights = {
    vector(name) {
      const v = vectors.get(name)
      if (!v) throw new Error(`the encoder's weights have no ${name}`)
      return v
    },
    matrix(name, rows, cols) {
      const m = matrices.get(name)
      if (!m) throw new Error(`the encoder's weights have no ${name}`)
      if (m.rows !== rows || m.cols !== cols)
        throw new Error(`the encoder's ${name} is not ${rows} by ${cols}`)
      return m
    },
  }
  return { weights, memory }
}

/**
 * The encoder as its thread loads it, its asset read a weight at a time (readAssetWeights).
 * `afterRead` is called once the files are read, before the model is made of them.
 */
export async function readUseLite(
  files: { weights: string; vocabulary: string },
  afterRead?: () => void,
  read: ReadBytes = fileSlices(files.weights),
): Promise<UseLite> {
  const { weights, memory } = await readAssetWeights(read)
  const vocabulary = JSON.parse(readFileSync(files.vocabulary, 'utf8'))
  afterRead?.()
  return new UseLite(weights, vocabulary, memory)
}
