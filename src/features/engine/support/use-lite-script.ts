// The built-in encoder's dense layers in JavaScript, beside their WebAssembly kernel
// (use-lite-kernel.ts): the same sums, where the kernel is not used.
import type { KernelMatrix } from './use-lite-kernel'

/**
 * The same in JavaScript (float32 or int8 rows; where WebAssembly SIMD is missing, and for the
 * package's float32 weights): four rows of `a` at a time (each weight read once for four), an int8
 * row's sum scaled once at its end; sums in doubles.
 */
export function denseInScript(a: Float32Array, n: number, d: KernelMatrix, out: Float32Array): void {
  const { w, scale, rows: m, cols: k, bias } = d
  let i = 0
  for (; i + 4 <= n; i += 4) {
    const a0 = i * k
    const a1 = a0 + k
    const a2 = a1 + k
    const a3 = a2 + k
    for (let j = 0; j < m; j++) {
      const w0 = j * k
      let s0 = 0
      let s1 = 0
      let s2 = 0
      let s3 = 0
      for (let p = 0; p < k; p++) {
        const x = w[w0 + p]!
        s0 += a[a0 + p]! * x
        s1 += a[a1 + p]! * x
        s2 += a[a2 + p]! * x
        s3 += a[a3 + p]! * x
      }
      const sc = scale ? scale[j]! : 1
      const b = bias[j]!
      out[i * m + j] = s0 * sc + b
      out[(i + 1) * m + j] = s1 * sc + b
      out[(i + 2) * m + j] = s2 * sc + b
      out[(i + 3) * m + j] = s3 * sc + b
    }
  }
  for (; i < n; i++) {
    const a0 = i * k
    for (let j = 0; j < m; j++) {
      const w0 = j * k
      let s = 0
      for (let p = 0; p < k; p++) s += a[a0 + p]! * w[w0 + p]!
      out[i * m + j] = s * (scale ? scale[j]! : 1) + bias[j]!
    }
  }
}
