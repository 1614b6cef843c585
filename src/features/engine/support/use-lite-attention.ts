// The built-in encoder's attention (use-lite.ts), a head at a time: a piece's scores against every
// piece, their softmax and its weighted sum of the values, in doubles; the scores and the weighted
// sums in the kernel (use-lite-kernel.wat's "scores" and "weighted", the same sums in the same
// order: the same bits) where it is, the softmax in JavaScript (Math.exp).
import type { AttentionKernel } from './use-lite-kernel'

/** The kernel and its scratch in its memory: keys or values as doubles, a query row, scores, sums. */
export interface AttentionScratch {
  kernel: AttentionKernel
  /** (maxPieces rounded up to 8) × widest head doubles (the keys d-major, then the values). */
  kv: Float64Array
  /** widest head doubles. */
  qrow: Float64Array
  /** maxPieces × (maxPieces rounded up to 8) doubles. */
  scores: Float64Array
  /** maxPieces doubles. */
  sums: Float64Array
}

/** One attention layer's scratch: a piece's scores, its scaled query row and its weighted values. */
export class Attention {
  private readonly scores: Float64Array
  private readonly query: Float64Array
  private readonly values: Float64Array

  constructor(
    maxPieces: number,
    widestHead: number,
    private readonly inKernel: AttentionScratch | null = null,
  ) {
    this.scores = new Float64Array(maxPieces)
    this.query = new Float64Array(widestHead)
    this.values = new Float64Array(widestHead)
  }

  /** Head `hd` as `head` computes it, its two products in the kernel (`inKernel`). */
  private headInKernel(
    k: AttentionScratch,
    wide: Float32Array,
    out: Float32Array,
    n: number,
    input: number,
    hd: number,
    dh: number,
  ) {
    const p = (n + 7) & ~7
    const row = 3 * input * 4
    const { scores, sums } = k
    k.kernel.scores(
      wide.byteOffset,
      n,
      row,
      hd * dh * 4,
      (input + hd * dh) * 4,
      dh,
      1 / Math.sqrt(dh),
      k.kv.byteOffset,
      k.qrow.byteOffset,
      scores.byteOffset,
    )
    for (let i = 0; i < n; i++) {
      const o = i * p
      let max = Number.NEGATIVE_INFINITY
      for (let j = 0; j < n; j++) if (scores[o + j]! > max) max = scores[o + j]!
      let sum = 0
      for (let j = 0; j < n; j++) {
        scores[o + j] = Math.exp(scores[o + j]! - max)
        sum += scores[o + j]!
      }
      sums[i] = sum
    }
    k.kernel.weighted(
      wide.byteOffset,
      n,
      row,
      (2 * input + hd * dh) * 4,
      dh,
      scores.byteOffset,
      sums.byteOffset,
      k.kv.byteOffset,
      out.byteOffset + hd * dh * 4,
      input * 4,
    )
  }

  /**
   * Head `hd` (of `heads`) over the query, key and value rows in `wide` (n rows of 3 × input), into
   * its columns of `out` (n rows of input). Each score is a dot product summed d ascending, each
   * value column summed j ascending: four keys (or four values' rows) a loop, each its own sum in its
   * own order, so the loop is not one chain of dependent additions and the sums are the same bits.
   */
  head(wide: Float32Array, out: Float32Array, n: number, input: number, heads: number, hd: number): void {
    const dh = input / heads
    if (this.inKernel) {
      this.headInKernel(this.inKernel, wide, out, n, input, hd, dh)
      return
    }
    const { scores, query, values } = this
    const scale = 1 / Math.sqrt(dh)
    const stride = 3 * input
    const qo = hd * dh
    const ko = input + hd * dh
    const vo = 2 * input + hd * dh
    for (let i = 0; i < n; i++) {
      for (let d = 0; d < dh; d++) query[d] = Math.fround(wide[i * stride + qo + d]! * scale)
      let j = 0
      for (; j + 4 <= n; j += 4) {
        const k0 = j * stride + ko
        const k1 = k0 + stride
        const k2 = k1 + stride
        const k3 = k2 + stride
        let s0 = 0
        let s1 = 0
        let s2 = 0
        let s3 = 0
        for (let d = 0; d < dh; d++) {
          const q = query[d]!
          s0 += q * wide[k0 + d]!
          s1 += q * wide[k1 + d]!
          s2 += q * wide[k2 + d]!
          s3 += q * wide[k3 + d]!
        }
        scores[j] = s0
        scores[j + 1] = s1
        scores[j + 2] = s2
        scores[j + 3] = s3
      }
      for (; j < n; j++) {
        let s = 0
        const kj = j * stride + ko
        for (let d = 0; d < dh; d++) s += query[d]! * wide[kj + d]!
        scores[j] = s
      }
      let max = Number.NEGATIVE_INFINITY
      for (j = 0; j < n; j++) if (scores[j]! > max) max = scores[j]!
      let sum = 0
      for (j = 0; j < n; j++) {
        scores[j] = Math.exp(scores[j]! - max)
        sum += scores[j]!
      }
      values.fill(0, 0, dh)
      j = 0
      for (; j + 4 <= n; j += 4) {
        const s0 = scores[j]!
        const s1 = scores[j + 1]!
        const s2 = scores[j + 2]!
        const s3 = scores[j + 3]!
        const v0 = j * stride + vo
        const v1 = v0 + stride
        const v2 = v1 + stride
        const v3 = v2 + stride
        for (let d = 0; d < dh; d++)
          values[d] =
            values[d]! + s0 * wide[v0 + d]! + s1 * wide[v1 + d]! + s2 * wide[v2 + d]! + s3 * wide[v3 + d]!
      }
      for (; j < n; j++) {
        const sj = scores[j]!
        const vj = j * stride + vo
        for (let d = 0; d < dh; d++) values[d] = values[d]! + sj * wide[vj + d]!
      }
      for (let d = 0; d < dh; d++) out[i * input + qo + d] = values[d]! / sum
    }
  }
}
