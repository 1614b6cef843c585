// The built-in encoder's one hot loop (use-lite.ts's int8 dense layers) in WebAssembly SIMD: each
// input row quantized to int16 (its own scale), sixteen int8 weights a step widened to int16, their
// products summed in i32 lanes (i32x4.dot_i16x8_s), eight rows of the input a weight read. Plain
// JavaScript did about 1-2 billion multiply-adds a second on this project's machine; float32 lanes
// (sessions 22-24) about 11 billion; integer lanes about three times that (issue 38). Beside it, the
// same sums over a row's inputs that are not 0 only ("sparse", for the feed-forward layers' second
// product) and attention's two products in doubles (use-lite-attention.ts). Its source
// is use-lite-kernel.wat beside this file, assembled by scripts/build-use-lite-kernel.ts (wabt) into
// assets/engine/use-lite-kernel.wasm, which is imported as a file (so `bun build --compile` embeds
// it) and compiled here over a memory the caller makes; no assembler at run time.
import { readFileSync } from 'node:fs'
import KERNEL_PATH from '../../../../assets/engine/use-lite-kernel.wasm' with { type: 'file' }

/** The compiled kernel, null where this engine cannot compile it (no SIMD); read once a thread. */
let compiled: WebAssembly.Module | null | undefined

/** out = a · wᵀ (int8 rows, scaled) + bias, over byte addresses in `memory` (n rows, any number). */
export type DenseKernel = (
  a: number,
  n: number,
  w: number,
  scale: number,
  bias: number,
  m: number,
  k: number,
  out: number,
) => void

/** The module's exports: DenseKernel and its scratch (eight int16 rows of k, eight float32 scales; sparse's list). */
interface RawKernel extends AttentionKernel {
  dense: (...args: [...Parameters<DenseKernel>, q: number, qs: number]) => void
  sparse: (...args: [...Parameters<DenseKernel>, q: number, qs: number, nz: number]) => void
}

/** Attention's two products for a head, over byte addresses (the kernel's "scores" and "weighted"). */
export interface AttentionKernel {
  scores: (
    wide: number,
    n: number,
    stride: number,
    qo: number,
    ko: number,
    dh: number,
    scale: number,
    kt: number,
    qrow: number,
    out: number,
  ) => void
  weighted: (
    wide: number,
    n: number,
    stride: number,
    vo: number,
    dh: number,
    scores: number,
    sums: number,
    vt: number,
    out: number,
    outStride: number,
  ) => void
}

/** The kernel over this memory, or null where WebAssembly SIMD is not available. */
function denseKernel(memory: WebAssembly.Memory): RawKernel | null {
  if (compiled === undefined) {
    // Read outside the try: a missing file is a broken build, not a machine without SIMD.
    const bytes = readFileSync(KERNEL_PATH)
    try {
      compiled = new WebAssembly.Module(bytes)
    } catch {
      compiled = null
    }
  }
  if (!compiled) return null
  try {
    const instance = new WebAssembly.Instance(compiled, { m: { memory } })
    return instance.exports as unknown as RawKernel
  } catch {
    return null
  }
}

/** A matrix as the kernel reads it: int8 rows, a scale and a bias a row. */
export interface KernelMatrix {
  w: Float32Array | Int8Array
  scale: Float32Array | null
  bias: Float32Array
  rows: number
  cols: number
}

/** A matrix copied into the kernel's memory: its byte addresses there. */
export interface Placed {
  w: number
  scale: number
  bias: number
  /** Laid out for the kernel's sparse product (sparseLayout), which computes it. */
  sparse: boolean
}

/** The order of sixteen outputs in a row of sparseLayout (see the kernel's "sparse"). */
const SPARSE_ORDER = [0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15]

/**
 * An m-by-k matrix's rows (an output's weights a row) laid out, in place, for the kernel's sparse
 * product: a block for each 32 outputs, of k rows of 32 bytes (row p: input p's weights for the
 * block's outputs, each sixteen in SPARSE_ORDER), so the inputs not 0 of a row are read from one
 * block of 32k bytes for its 32 outputs. A block holds the same bytes as its outputs' 32 rows did, so
 * each is laid out from a copy of those rows alone (32k bytes held besides, not the matrix).
 */
export function sparseLayout(w: Int8Array, m: number, k: number): void {
  const rows = new Int8Array(32 * k)
  for (let j0 = 0; j0 < m; j0 += 32) {
    const block = w.subarray(j0 * k, (j0 + 32) * k)
    rows.set(block)
    for (let t = 0; t < 32; t++) {
      const row = ((t & 16) + SPARSE_ORDER[t & 15]!) * k
      for (let p = 0; p < k; p++) block[p * 32 + t] = rows[row + p]!
    }
  }
}

/**
 * One WebAssembly memory holding these int8 matrices and float buffers of these lengths (views of
 * it), the kernel's scratch, and the kernel over it; null when a matrix is float32, its width not a
 * multiple of 16, or SIMD is missing (the caller computes in JavaScript). `memory`, when given, is used instead of a new one: a matrix already read into it
 * (its rows and scales views of it) stays where it is, not copied, and the memory grows by what the
 * rest need (growing detaches its old views: every matrix gets views of the grown memory). Not
 * grown after: the views stay valid. The matrices in `sparse` (their outputs a multiple of 32) are
 * laid out for the kernel's sparse product instead (sparseLayout; `w` then holds that layout) and
 * computed by `sparse`.
 */
export function kernelMemory(
  matrices: KernelMatrix[],
  buffers: number[],
  memory?: WebAssembly.Memory,
  sparse: ReadonlySet<KernelMatrix> = new Set(),
): {
  dense: DenseKernel
  sparse: DenseKernel
  attention: AttentionKernel
  placed: Placed[]
  buffers: Float32Array[]
} | null {
  if (matrices.some((m) => !m.scale || m.cols % 16 !== 0 || (sparse.has(m) && m.rows % 32 !== 0))) return null
  const pad = (n: number) => (n + 15) & ~15
  const held = memory?.buffer
  let size = held?.byteLength ?? 0
  const take = (bytes: number) => {
    const at = size
    size += pad(bytes)
    return at
  }
  const inPlace = matrices.map((m) => held !== undefined && m.w.buffer === held && m.scale!.buffer === held)
  const lengths = matrices.map((m) => m.w.byteLength)
  const placed = matrices.map((m, i) => ({
    w: inPlace[i] ? m.w.byteOffset : take(m.w.byteLength),
    scale: inPlace[i] ? m.scale!.byteOffset : take(m.rows * 4),
    bias: take(m.rows * 4),
    sparse: sparse.has(m),
  }))
  const starts = buffers.map((n) => take(n * 4))
  // The kernel's scratch: eight rows of the widest matrix's input as int16, and their scales; the
  // sparse product's list of inputs (12 bytes each) and its sums.
  const widest = Math.max(16, ...matrices.map((m) => m.cols))
  const q = take(8 * widest * 2)
  const qs = take(8 * 4)
  const nz = take(widest * 12 + 384)
  const mem = memory ?? new WebAssembly.Memory({ initial: Math.ceil(size / 65536) })
  const raw = denseKernel(mem)
  if (!raw) return null
  const dense: DenseKernel = (a, n, w, scale, bias, m, k, out) =>
    raw.dense(a, n, w, scale, bias, m, k, out, q, qs)
  const sparseProduct: DenseKernel = (a, n, w, scale, bias, m, k, out) =>
    raw.sparse(a, n, w, scale, bias, m, k, out, q, qs, nz)
  if (size > mem.buffer.byteLength) mem.grow(Math.ceil((size - mem.buffer.byteLength) / 65536))
  const bytes = new Uint8Array(mem.buffer)
  for (const [i, m] of matrices.entries()) {
    const at = placed[i]!
    if (!inPlace[i]) {
      bytes.set(new Uint8Array(m.w.buffer, m.w.byteOffset, m.w.byteLength), at.w)
      new Float32Array(mem.buffer, at.scale, m.rows).set(m.scale!)
    }
    new Float32Array(mem.buffer, at.bias, m.rows).set(m.bias)
    // The matrix is read from the kernel's memory from now on: its own arrays can go.
    m.w = new Int8Array(mem.buffer, at.w, lengths[i])
    m.scale = new Float32Array(mem.buffer, at.scale, m.rows)
    m.bias = new Float32Array(mem.buffer, at.bias, m.rows)
    if (at.sparse) sparseLayout(m.w, m.rows, m.cols)
  }
  return {
    dense,
    sparse: sparseProduct,
    attention: { scores: raw.scores, weighted: raw.weighted },
    placed,
    buffers: starts.map((at, i) => new Float32Array(mem.buffer, at, buffers[i])),
  }
}
