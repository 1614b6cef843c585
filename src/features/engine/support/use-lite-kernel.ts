// The built-in encoder's one hot loop (use-lite.ts's int8 dense layers) in WebAssembly SIMD: four
// weights a step (int8, widened to floats), four rows of the input a weight read. Plain JavaScript
// did about 1-2 billion multiply-adds a second on this project's machine, which made a question's
// encoding 2-3 times slower than TensorFlow.js's; this is the same sums in float32 lanes. The module
// is a few hundred bytes, assembled here (no toolchain, no file), over a memory the caller makes.

// Value types and the instructions used, by their binary codes (WebAssembly core spec 2.0, SIMD).
const I32 = 0x7f
const V128 = 0x7b
const op = {
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  end: [0x0b],
  br: (d: number) => [0x0c, d],
  brIf: (d: number) => [0x0d, d],
  get: (i: number) => [0x20, i],
  set: (i: number) => [0x21, i],
  i32: (v: number) => [0x41, ...sleb(v)],
  add: [0x6a],
  mul: [0x6c],
  shl: [0x74],
  geU: [0x4f],
  f32Load: [0x2a, 2, 0],
  f32Store: [0x38, 2, 0],
  f32Add: [0x92],
  f32Mul: [0x94],
  v128Load: [0xfd, 0x00, 0, 0],
  v128Load32Zero: [0xfd, 0x5c, 0, 0],
  v128Zero: [0xfd, 0x0c, ...new Array(16).fill(0)],
  lane: (l: number) => [0xfd, 0x1f, l],
  widen8: [0xfd, 0x87, 0x01],
  widen16: [0xfd, 0xa7, 0x01],
  toF32: [0xfd, 0xfa, 0x01],
  f32x4Add: [0xfd, 0xe4, 0x01],
  f32x4Mul: [0xfd, 0xe6, 0x01],
}

function sleb(v: number): number[] {
  const out: number[] = []
  for (;;) {
    const b = v & 0x7f
    v >>= 7
    if ((v === 0 && !(b & 0x40)) || (v === -1 && b & 0x40)) return [...out, b]
    out.push(b | 0x80)
  }
}

function uleb(v: number): number[] {
  const out: number[] = []
  do {
    const b = v & 0x7f
    v >>>= 7
    out.push(v ? b | 0x80 : b)
  } while (v)
  return out
}

const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()]
const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body]
const name = (s: string) => vec([...s].map((c) => [c.charCodeAt(0)]))

// Parameters: a (f32 rows of k), n (rows, a multiple of 4), w (int8 rows of k), scale, bias (f32 a
// row of w), m (rows of w), k (a multiple of 4), out (f32 rows of m). Byte addresses.
const [A, N, W, SCALE, BIAS, M, KK, OUT] = [0, 1, 2, 3, 4, 5, 6, 7]
// Locals.
const [I, J, P, KB, AROW, WROW, AP, ACC] = [8, 9, 10, 11, 12, 13, 14, 15] // ACC..ACC+3, then WV
const WV = ACC + 4

/** acc[r] += a[row r][p..p+3] * wv */
const accumulate = (r: number) => [
  ...op.get(ACC + r),
  ...op.get(AP),
  ...(r === 0 ? [] : [...op.get(KB), ...op.i32(r), ...op.mul, ...op.add]),
  ...op.v128Load,
  ...op.get(WV),
  ...op.f32x4Mul,
  ...op.f32x4Add,
  ...op.set(ACC + r),
]

/** out[(i + r) * m + j] = (lane sum of acc[r]) * scale[j] + bias[j] */
const store = (r: number) => [
  ...op.get(OUT),
  ...op.get(I),
  ...op.i32(r),
  ...op.add,
  ...op.get(M),
  ...op.mul,
  ...op.get(J),
  ...op.add,
  ...op.i32(2),
  ...op.shl,
  ...op.add,
  ...op.get(ACC + r),
  ...op.lane(0),
  ...op.get(ACC + r),
  ...op.lane(1),
  ...op.f32Add,
  ...op.get(ACC + r),
  ...op.lane(2),
  ...op.f32Add,
  ...op.get(ACC + r),
  ...op.lane(3),
  ...op.f32Add,
  ...op.get(SCALE),
  ...op.get(J),
  ...op.i32(2),
  ...op.shl,
  ...op.add,
  ...op.f32Load,
  ...op.f32Mul,
  ...op.get(BIAS),
  ...op.get(J),
  ...op.i32(2),
  ...op.shl,
  ...op.add,
  ...op.f32Load,
  ...op.f32Add,
  ...op.f32Store,
]

const body = [
  ...vec([
    [7, I32],
    [5, V128],
  ]),
  ...op.get(KK),
  ...op.i32(2),
  ...op.shl,
  ...op.set(KB),
  ...op.i32(0),
  ...op.set(I),
  ...op.block,
  ...op.loop,
  ...op.get(I),
  ...op.get(N),
  ...op.geU,
  ...op.brIf(1),
  ...op.i32(0),
  ...op.set(J),
  ...op.block,
  ...op.loop,
  ...op.get(J),
  ...op.get(M),
  ...op.geU,
  ...op.brIf(1),
  ...[0, 1, 2, 3].flatMap((r) => [...op.v128Zero, ...op.set(ACC + r)]),
  ...[...op.get(A), ...op.get(I), ...op.get(KB), ...op.mul, ...op.add, ...op.set(AROW)],
  ...[...op.get(W), ...op.get(J), ...op.get(KK), ...op.mul, ...op.add, ...op.set(WROW)],
  ...op.i32(0),
  ...op.set(P),
  ...op.block,
  ...op.loop,
  ...op.get(P),
  ...op.get(KK),
  ...op.geU,
  ...op.brIf(1),
  // wv = four int8 weights as floats
  ...[
    ...op.get(WROW),
    ...op.get(P),
    ...op.add,
    ...op.v128Load32Zero,
    ...op.widen8,
    ...op.widen16,
    ...op.toF32,
  ],
  ...op.set(WV),
  ...[...op.get(AROW), ...op.get(P), ...op.i32(2), ...op.shl, ...op.add, ...op.set(AP)],
  ...[0, 1, 2, 3].flatMap(accumulate),
  ...[...op.get(P), ...op.i32(4), ...op.add, ...op.set(P)],
  ...op.br(0),
  ...op.end,
  ...op.end,
  ...[0, 1, 2, 3].flatMap(store),
  ...[...op.get(J), ...op.i32(1), ...op.add, ...op.set(J)],
  ...op.br(0),
  ...op.end,
  ...op.end,
  ...[...op.get(I), ...op.i32(4), ...op.add, ...op.set(I)],
  ...op.br(0),
  ...op.end,
  ...op.end,
  ...op.end,
]

const MODULE = new Uint8Array([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
  ...section(1, vec([[0x60, ...vec(new Array(8).fill([I32])), 0]])),
  ...section(2, vec([[...name('m'), ...name('memory'), 0x02, 0x00, 0x00]])),
  ...section(3, vec([[0]])),
  ...section(7, vec([[...name('dense'), 0x00, 0]])),
  ...section(10, vec([[...uleb(body.length), ...body]])),
])

/** out = a · wᵀ (int8 rows, scaled) + bias, over byte addresses in `memory`; n rounded up to 4 by the caller. */
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

/** The kernel over this memory, or null where WebAssembly SIMD is not available. */
export function denseKernel(memory: WebAssembly.Memory): DenseKernel | null {
  try {
    const instance = new WebAssembly.Instance(new WebAssembly.Module(MODULE), { m: { memory } })
    return instance.exports.dense as DenseKernel
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
}

/**
 * One WebAssembly memory holding copies of these int8 matrices and float buffers of these lengths
 * (views of it), and the kernel over it; null when a matrix is float32 or SIMD is missing (the
 * caller computes in JavaScript). The memory never grows: the views stay valid.
 */
export function kernelMemory(
  matrices: KernelMatrix[],
  buffers: number[],
): { dense: DenseKernel; placed: Placed[]; buffers: Float32Array[] } | null {
  if (matrices.some((m) => !m.scale)) return null
  const pad = (n: number) => (n + 15) & ~15
  let size = 0
  const take = (bytes: number) => {
    const at = size
    size += pad(bytes)
    return at
  }
  const placed = matrices.map((m) => ({
    w: take(m.w.byteLength),
    scale: take(m.rows * 4),
    bias: take(m.rows * 4),
  }))
  const starts = buffers.map((n) => take(n * 4))
  const memory = new WebAssembly.Memory({ initial: Math.ceil(size / 65536) })
  const dense = denseKernel(memory)
  if (!dense) return null
  const bytes = new Uint8Array(memory.buffer)
  for (const [i, m] of matrices.entries()) {
    bytes.set(new Uint8Array(m.w.buffer, m.w.byteOffset, m.w.byteLength), placed[i]!.w)
    new Float32Array(memory.buffer, placed[i]!.scale, m.rows).set(m.scale!)
    new Float32Array(memory.buffer, placed[i]!.bias, m.rows).set(m.bias)
    // The matrix is read from the kernel's memory from now on: its own arrays can go.
    m.w = new Int8Array(memory.buffer, placed[i]!.w, m.w.byteLength)
    m.scale = new Float32Array(memory.buffer, placed[i]!.scale, m.rows)
    m.bias = new Float32Array(memory.buffer, placed[i]!.bias, m.rows)
  }
  return { dense, placed, buffers: starts.map((at, i) => new Float32Array(memory.buffer, at, buffers[i])) }
}
