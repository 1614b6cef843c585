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
// scripts/build-use-lite-kernel.ts into assets/engine/use-lite-kernel.wasm). Its float32 result is
// fixed by the order of its sums (four lanes a row, added ((0 + 1) + 2) + 3 at the end): the
// reference below computes that order in JavaScript, rounding to float32 at every step, and the
// kernel must give the same bits, so an edit to the text that moves a vector's last bit fails here.
// Beside it, the JavaScript fallback (denseInScript, sums in doubles) agrees to 1e-5 of each sum.
const ASSET = join(import.meta.dir, '../../../assets/engine/use-lite-kernel.wasm')
const f = Math.fround

/** The kernel's sums in its own order, in float32. */
function kernelOrder(a: Float32Array, n: number, d: KernelMatrix, out: Float32Array): void {
  const { w, scale, bias, rows: m, cols: k } = d
  for (let i = 0; i < n; i++)
    for (let j = 0; j < m; j++) {
      const lanes = [0, 0, 0, 0]
      for (let p = 0; p < k; p += 4)
        for (let l = 0; l < 4; l++) lanes[l] = f(lanes[l]! + f(a[i * k + p + l]! * w[j * k + p + l]!))
      const sum = f(f(f(lanes[0]! + lanes[1]!) + lanes[2]!) + lanes[3]!)
      out[i * m + j] = f(f(sum * scale![j]!) + bias[j]!)
    }
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

  test("gives the bits of its float32 sums in its order, and JavaScript's sums to 1e-5", () => {
    const rand = generator(38)
    // The model's shapes (k 256 to 2048) and small ones; n as the caller passes it (rounded up to 4).
    for (const [n, m, k] of [
      [4, 8, 4],
      [8, 24, 64],
      [12, 40, 256],
      [4, 16, 2048],
      [128, 16, 512],
    ] as const) {
      const [before, d] = [matrix(m, 8, rand), matrix(m, k, rand)]
      const placed = kernelMemory([before, d], [n * k, n * m])
      expect(placed).not.toBeNull()
      const [a, out] = placed!.buffers as [Float32Array, Float32Array]
      for (let i = 0; i < a.length; i++) a[i] = (rand() - 0.5) * 4
      const at = placed!.placed[1]!
      placed!.dense(a.byteOffset, n, at.w, at.scale, at.bias, m, k, out.byteOffset)
      const want = new Float32Array(n * m)
      kernelOrder(a, n, d, want)
      expect({ n, m, k, bits: Array.from(new Uint32Array(out.slice().buffer)) }).toEqual({
        n,
        m,
        k,
        bits: Array.from(new Uint32Array(want.buffer)),
      })
      const script = new Float32Array(n * m)
      denseInScript(a, n, d, script)
      let worst = 0
      for (let i = 0; i < n * m; i++)
        worst = Math.max(worst, Math.abs(out[i]! - script[i]!) / (1 + Math.abs(script[i]!)))
      expect({ n, m, k, close: worst < 1e-5 }).toEqual({ n, m, k, close: true })
    }
  })
})
