import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { assembleUseLiteKernel } from '../../../scripts/build-use-lite-kernel'
import {
  denseInScript,
  type KernelMatrix,
  kernelMemory,
  quantizeRows,
} from '../../../src/features/engine/support/index'

// The encoder's WebAssembly kernel (src/features/engine/support/use-lite-kernel.wat, assembled by
// scripts/build-use-lite-kernel.ts into assets/engine/use-lite-kernel.wasm). It quantizes each input
// row to int16 (its own scale) and sums integer products: the reference below computes the same
// quantization and the same integer sums in JavaScript (exact: every sum is an integer below 2^53),
// then the same float32 steps, and the kernel must give the same bits, so an edit to the text that
// moves a vector's last bit fails here. Beside it, the JavaScript fallback (denseInScript, float
// sums in doubles) agrees within the int16 rounding's bound: each input off by at most half its
// row's step (largest magnitude / 16383), so a sum by at most that times the weights' magnitudes.
const ASSET = join(import.meta.dir, '../../../assets/engine/use-lite-kernel.wasm')
const f = Math.fround

/** x rounded to the nearest integer, ties to even (WebAssembly's nearest). */
const nearest = (x: number) => {
  const r = Math.round(x)
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r
}

/** A row's int16 values and scale, as the kernel quantizes it. */
function quantizeRow(a: Float32Array, at: number, k: number): { q: number[]; scale: number } {
  let max = 0
  for (let p = 0; p < k; p++) max = Math.max(max, Math.abs(a[at + p]!))
  if (max === 0) return { q: new Array(k).fill(0), scale: 0 }
  const factor = f(16383 / max)
  const q: number[] = []
  for (let p = 0; p < k; p++) q.push(nearest(f(a[at + p]! * factor)))
  return { q, scale: f(max / 16383) }
}

/** The kernel's integer sums and float32 steps, in JavaScript. */
function kernelModel(a: Float32Array, n: number, d: KernelMatrix, out: Float32Array): void {
  const { w, scale, bias, rows: m, cols: k } = d
  for (let i = 0; i < n; i++) {
    const { q, scale: rs } = quantizeRow(a, i * k, k)
    for (let j = 0; j < m; j++) {
      let sum = 0
      for (let p = 0; p < k; p++) sum += q[p]! * w[j * k + p]!
      expect(Number.isSafeInteger(sum)).toBe(true)
      out[i * m + j] = f(f(f(f(sum) * rs) * scale![j]!) + bias[j]!)
    }
  }
}

/** How far the kernel may be from float sums: half a step of each input times its weight, summed. */
function roundingBound(a: Float32Array, i: number, d: KernelMatrix, j: number, want: number): number {
  const { w, scale, cols: k } = d
  let max = 0
  let weights = 0
  for (let p = 0; p < k; p++) {
    max = Math.max(max, Math.abs(a[i * k + p]!))
    weights += Math.abs(w[j * k + p]!)
  }
  // 0.51 rather than 0.5: the scaled value is itself rounded to float32 before it is rounded to an integer.
  return 0.51 * (max / 16383) * weights * scale![j]! + 1e-5 * (1 + Math.abs(want))
}

/** A deterministic generator of numbers in [0, 1). */
function generator(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed / 2147483648
  }
}

/** An int8 matrix with random weights and biases. */
function matrix(rows: number, cols: number, rand: () => number): KernelMatrix {
  const w = Float32Array.from({ length: rows * cols }, () => (rand() - 0.5) * 0.2)
  return { ...quantizeRows(w, rows, cols), bias: Float32Array.from({ length: rows }, () => rand() - 0.5) }
}

describe("the encoder's WebAssembly kernel", () => {
  test('the committed .wasm is what scripts/build-use-lite-kernel.ts assembles from the .wat', async () => {
    expect(Bun.hash(readFileSync(ASSET))).toBe(Bun.hash(await assembleUseLiteKernel()))
  })

  test('gives the bits of its integer sums (a JavaScript model of them), and float sums within the rounding bound', () => {
    const rand = generator(38)
    // The model's shapes (k 256, 512, 1536) and small ones.
    for (const [n, m, k] of [
      [4, 8, 16],
      [8, 24, 64],
      [12, 40, 256],
      [16, 24, 1536],
      [4, 16, 2048],
      [128, 16, 512],
    ] as const) {
      const [before, d] = [matrix(m, 16, rand), matrix(m, k, rand)]
      const placed = kernelMemory([before, d], [n * k, n * m])
      expect(placed).not.toBeNull()
      const [a, out] = placed!.buffers as [Float32Array, Float32Array]
      for (let i = 0; i < a.length; i++) a[i] = (rand() - 0.5) * 4
      // A row of zeros, and a row with one large value among small ones.
      a.fill(0, 0, k)
      a.fill(1e-3, k, 2 * k)
      a[k + 3] = -300
      const at = placed!.placed[1]!
      placed!.dense(a.byteOffset, n, at.w, at.scale, at.bias, m, k, out.byteOffset)
      const want = new Float32Array(n * m)
      kernelModel(a, n, d, want)
      expect({ n, m, k, bits: Array.from(new Uint32Array(out.slice().buffer)) }).toEqual({
        n,
        m,
        k,
        bits: Array.from(new Uint32Array(want.buffer)),
      })
      const script = new Float32Array(n * m)
      denseInScript(a, n, d, script)
      let over = 0
      for (let i = 0; i < n; i++)
        for (let j = 0; j < m; j++)
          if (Math.abs(out[i * m + j]! - script[i * m + j]!) > roundingBound(a, i, d, j, script[i * m + j]!))
            over++
      expect({ n, m, k, over }).toEqual({ n, m, k, over: 0 })
    }
  })

  test('sums past 2^31 stay exact: rows at their largest against weights at theirs, k = 2048', () => {
    const [n, m, k] = [8, 4, 2048]
    // Weights all +127 (rows 0, 2) or all -127 (rows 1, 3): each quantized row is its row's sign.
    const d: KernelMatrix = {
      ...quantizeRows(
        Float32Array.from({ length: m * k }, (_, i) => (Math.floor(i / k) % 2 ? -1 : 1)),
        m,
        k,
      ),
      bias: new Float32Array(m),
    }
    const placed = kernelMemory([d], [n * k, n * m])!
    const [a, out] = placed.buffers as [Float32Array, Float32Array]
    // Every input at its row's largest magnitude: 16383 after quantization, each sum 2048 x 16383 x 127.
    for (let i = 0; i < n; i++) a.fill(i + 1, i * k, (i + 1) * k)
    const at = placed.placed[0]!
    placed.dense(a.byteOffset, n, at.w, at.scale, at.bias, m, k, out.byteOffset)
    const want = new Float32Array(n * m)
    kernelModel(a, n, d, want)
    expect(Array.from(out)).toEqual(Array.from(want))
    for (let i = 0; i < n; i++) {
      // The float sum is (i + 1) x 2048 x (127 x scale), scale = 1 / 127 as float32.
      expect(out[i * m]! / ((i + 1) * k)).toBeCloseTo(1, 4)
      expect(out[i * m + 1]! / ((i + 1) * k)).toBeCloseTo(-1, 4)
    }
  })

  test("computes n rows, any n: the model's bits for rows 1 to 19, and no row beyond n written", () => {
    const rand = generator(26)
    const [m, k] = [24, 64]
    const d = matrix(m, k, rand)
    const placed = kernelMemory([d], [20 * k, 20 * m])!
    const [a, out] = placed.buffers as [Float32Array, Float32Array]
    for (let i = 0; i < a.length; i++) a[i] = (rand() - 0.5) * 4
    const at = placed.placed[0]!
    for (let n = 1; n <= 19; n++) {
      out.fill(-7)
      placed.dense(a.byteOffset, n, at.w, at.scale, at.bias, m, k, out.byteOffset)
      const want = new Float32Array(20 * m).fill(-7)
      kernelModel(a, n, d, want)
      // (The kernel rounded n up to 4 and wrote those rows too before, in buffers with rows to spare.)
      expect({ n, bits: Array.from(new Uint32Array(out.slice().buffer)) }).toEqual({
        n,
        bits: Array.from(new Uint32Array(want.buffer)),
      })
    }
  })

  test("the sparse product gives the dense product's bits: inputs mostly zeros, rows of zeros, more than 1024 inputs not 0, sums past 2^31", () => {
    const rand = generator(92)
    for (const [n, m, k, zeros] of [
      [1, 32, 16, 0.5],
      [3, 64, 256, 0.92],
      [14, 512, 1536, 0.92],
      [5, 96, 1536, 0],
      [9, 32, 2048, 0.3],
    ] as const) {
      const d = matrix(m, k, rand)
      // The model reads the matrix as it is; the kernel's copy is laid out for the sparse product.
      const asIs: KernelMatrix = {
        w: d.w.slice(),
        scale: d.scale!.slice(),
        bias: d.bias.slice(),
        rows: m,
        cols: k,
      }
      const placed = kernelMemory([d], [n * k, n * m], undefined, new Set([d]))!
      expect(placed.placed[0]!.sparse).toBe(true)
      const [a, out] = placed.buffers as [Float32Array, Float32Array]
      for (let i = 0; i < a.length; i++) a[i] = rand() < zeros ? 0 : rand() * 4
      if (n > 1) a.fill(0, 0, k)
      const at = placed.placed[0]!
      placed.sparse(a.byteOffset, n, at.w, at.scale, at.bias, m, k, out.byteOffset)
      const want = new Float32Array(n * m)
      kernelModel(a, n, asIs, want)
      expect({ n, m, k, bits: Array.from(new Uint32Array(out.slice().buffer)) }).toEqual({
        n,
        m,
        k,
        bits: Array.from(new Uint32Array(want.buffer)),
      })
    }
    // Every input at its largest against weights at theirs: each sum 1536 x 16383 x 127, past 2^31.
    const [n, m, k] = [2, 32, 1536]
    const w = Float32Array.from({ length: m * k }, (_, i) => (Math.floor(i / k) % 2 ? -1 : 1))
    const d: KernelMatrix = { ...quantizeRows(w, m, k), bias: new Float32Array(m) }
    const asIs: KernelMatrix = { w: d.w.slice(), scale: d.scale!.slice(), bias: d.bias, rows: m, cols: k }
    const placed = kernelMemory([d], [n * k, n * m], undefined, new Set([d]))!
    const [a, out] = placed.buffers as [Float32Array, Float32Array]
    a.fill(3)
    const at = placed.placed[0]!
    placed.sparse(a.byteOffset, n, at.w, at.scale, at.bias, m, k, out.byteOffset)
    const want = new Float32Array(n * m)
    kernelModel(a, n, asIs, want)
    expect(Array.from(out)).toEqual(Array.from(want))
    expect(out[0]! / (3 * k)).toBeCloseTo(1, 4)
    expect(out[1]! / (3 * k)).toBeCloseTo(-1, 4)
  })

  test("attention's scores and weighted sums give JavaScript's bits: sums in doubles, each in its order", () => {
    const rand = generator(64)
    for (const [n, input] of [
      [1, 256],
      [7, 256],
      [14, 512],
      [23, 512],
      [128, 512],
    ] as const) {
      const dh = input / 4
      const p = (n + 7) & ~7
      const placed = kernelMemory(
        [matrix(16, 16, rand)],
        [n * 3 * input, n * input, 2 * p * dh, 2 * dh, 2 * n * p, 2 * n],
      )!
      const [wide, out, kvf, qrowf, scoresf, sumsf] = placed.buffers as Float32Array[]
      const f64 = (b: Float32Array) => new Float64Array(b.buffer, b.byteOffset, b.length / 2)
      const [scores, sums] = [f64(scoresf!), f64(sumsf!)]
      for (let i = 0; i < wide!.length; i++) wide![i] = (rand() - 0.5) * 6
      const want = new Float32Array(n * input)
      for (let hd = 0; hd < 4; hd++) {
        const [qo, ko, vo, stride, scale] = [
          hd * dh,
          input + hd * dh,
          2 * input + hd * dh,
          3 * input,
          1 / Math.sqrt(dh),
        ]
        // The kernel's two products, the softmax between them as use-lite-attention.ts makes it.
        placed.attention.scores(
          wide!.byteOffset,
          n,
          stride * 4,
          qo * 4,
          ko * 4,
          dh,
          scale,
          kvf!.byteOffset,
          qrowf!.byteOffset,
          scoresf!.byteOffset,
        )
        for (let i = 0; i < n; i++) {
          // The model: a score d ascending, a value column j ascending, in doubles.
          const q = Array.from({ length: dh }, (_, d) => f(wide![i * stride + qo + d]! * scale))
          const s = Array.from({ length: n }, (_, j) => {
            let sum = 0
            for (let d = 0; d < dh; d++) sum += q[d]! * wide![j * stride + ko + d]!
            return sum
          })
          expect(Array.from(scores.subarray(i * p, i * p + n))).toEqual(s)
          const max = Math.max(...s)
          let total = 0
          for (let j = 0; j < n; j++) {
            s[j] = Math.exp(s[j]! - max)
            scores[i * p + j] = s[j]!
            total += s[j]!
          }
          sums[i] = total
          for (let d = 0; d < dh; d++) {
            let v = 0
            for (let j = 0; j < n; j++) v = v + s[j]! * wide![j * stride + vo + d]!
            want[i * input + qo + d] = v / total
          }
        }
        placed.attention.weighted(
          wide!.byteOffset,
          n,
          stride * 4,
          vo * 4,
          dh,
          scoresf!.byteOffset,
          sumsf!.byteOffset,
          kvf!.byteOffset,
          out!.byteOffset + qo * 4,
          input * 4,
        )
      }
      expect({ n, input, bits: Array.from(new Uint32Array(out!.slice().buffer)) }).toEqual({
        n,
        input,
        bits: Array.from(new Uint32Array(want.buffer)),
      })
    }
  })
})
