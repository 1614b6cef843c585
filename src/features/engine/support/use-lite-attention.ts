// The built-in encoder's attention (use-lite.ts), a head at a time, in JavaScript: a piece's scores
// against every piece, their softmax and its weighted sum of the values, in doubles.

/** One attention layer's scratch: a piece's scores, its scaled query row and its weighted values. */
export class Attention {
  private readonly scores: Float64Array
  private readonly query: Float64Array
  private readonly values: Float64Array

  constructor(maxPieces: number, widestHead: number) {
    this.scores = new Float64Array(maxPieces)
    this.query = new Float64Array(widestHead)
    this.values = new Float64Array(widestHead)
  }

  /**
   * Head `hd` (of `heads`) over the query, key and value rows in `wide` (n rows of 3 × input), into
   * its columns of `out` (n rows of input). Each score is a dot product summed d ascending, each
   * value column summed j ascending: four keys (or four values' rows) a loop, each its own sum in its
   * own order, so the loop is not one chain of dependent additions and the sums are the same bits.
   */
  head(wide: Float32Array, out: Float32Array, n: number, input: number, heads: number, hd: number): void {
    const { scores, query, values } = this
    const dh = input / heads
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
