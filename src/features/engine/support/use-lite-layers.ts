// The built-in encoder's weights as use-lite.ts computes with them: a matrix (int8 rows with a scale
// each, or float32), a Transformer layer's weights read from the graph's names, and the layer norm.
import type { Placed } from './use-lite-kernel'

/** What the layer norms add to the variance. */
const LN_EPS = 1e-6

/**
 * A matrix kept transposed ([outputs][inputs] rows: each output one dot product over a contiguous
 * row), in float32, or in int8 with one scale a row (quantizeRows; a quarter of the bytes).
 */
export interface Matrix {
  w: Float32Array | Int8Array
  /** The rows' scales when `w` is int8, else null. */
  scale: Float32Array | null
  rows: number
  cols: number
}

/** A matrix with its bias: one dense product of the graph. */
export interface Dense extends Matrix {
  bias: Float32Array
  /** Where it is in the kernel's memory (use-lite-kernel.ts), when computed there. */
  at?: Placed
}

/** Where a UseLite's weights come from (use-lite-files.ts: the package's files, or their int8 asset). */
export interface UseLiteWeights {
  /** A vector of the graph (biases, layer norms, the timing signal's scales). */
  vector(name: string): Float32Array
  /** A graph's [inputs][outputs] matrix, transposed (rows: outputs), or a table as it is (`transpose` false). */
  matrix(name: string, rows: number, cols: number, transpose: boolean): Matrix
}

/** One Transformer layer's weights. */
export interface Layer {
  width: number
  ln1: [Float32Array, Float32Array]
  qkv: Dense
  out: Dense
  /** Layer 0 widens its input (256 to 512) for the residual. */
  adjust: Dense | null
  ln2: [Float32Array, Float32Array]
  ffn1: Dense
  ffn2: Dense
}

/** The graph's prefix of the encoder's weights. */
export const K = 'module_apply_default/Encoder_en/KonaTransformer/Encode/'
/** The pieces' vectors: a table, read by row. */
export const EMBEDDINGS = 'module/Embeddings_en'

/** Layer n's weights: `input` wide in, `width` wide out. */
export function layer(src: UseLiteWeights, n: 0 | 1, width: number, input: number): Layer {
  const L = `${K}Layer_${n}/TransformerLayer/`
  const S = `${K}TransformerStack/Layer_${n}/TransformerLayer/`
  const M = `module/Encoder_en/KonaTransformer/Encode/Layer_${n}/TransformerLayer/MultiheadAttention/`
  const c = '/ConcatPartitions/concat'
  const read = (name: string) => src.vector(name)
  const dense = (name: string, inputs: number, outputs: number, bias: string): Dense => ({
    ...src.matrix(name, outputs, inputs, true),
    bias: read(bias),
  })
  const ln = (at: string): [Float32Array, Float32Array] => [
    read(`${L}${at}layer_prepostprocess/layer_norm/layer_norm_scale${c}`),
    read(`${L}${at}layer_prepostprocess/layer_norm/layer_norm_bias${c}`),
  ]
  return {
    width,
    ln1: ln(''),
    qkv: dense(
      `${M}qkv_transform_single/kernel/part_0`,
      input,
      3 * input,
      `${L}MultiheadAttention/qkv_transform_single/bias${c}`,
    ),
    out: dense(
      `${M}output_transform_single/kernel/part_0`,
      input,
      width,
      `${L}MultiheadAttention/output_transform_single/bias${c}`,
    ),
    adjust: input === width ? null : dense(`${L}dense/kernel${c}`, input, width, `${L}dense/bias${c}`),
    ln2: ln('FFN/'),
    ffn1: dense(`${S}FFN/conv1/Tensordot/Reshape_1`, width, 1536, `${L}FFN/conv1/bias${c}`),
    ffn2: dense(`${S}FFN/conv2/Tensordot/Reshape_1`, 1536, width, `${L}FFN/conv2/bias${c}`),
  }
}

/** Layer norm of each of n rows of `width`, into out. */
export function layerNorm(
  x: Float32Array,
  n: number,
  width: number,
  [g, b]: [Float32Array, Float32Array],
  out: Float32Array,
) {
  for (let i = 0; i < n; i++) {
    const o = i * width
    let mean = 0
    for (let c = 0; c < width; c++) mean += x[o + c]!
    mean = Math.fround(mean / width)
    let v = 0
    for (let c = 0; c < width; c++) v += (x[o + c]! - mean) ** 2
    const r = 1 / Math.sqrt(Math.fround(v / width) + LN_EPS)
    for (let c = 0; c < width; c++) out[o + c] = g[c]! * r * (x[o + c]! - mean) + b[c]!
  }
}

/** The mean of column c of a's n rows of `width`. */
export function columnMean(a: Float32Array, n: number, width: number, c: number): number {
  let s = 0
  for (let i = 0; i < n; i++) s += a[i * width + c]!
  return s / n
}

/**
 * The timing signal added to the pieces' vectors, for positions 0 to n - 1: a position's row holds
 * the sines of its angles (position × each timescale, in float32), then their cosines, each rounded
 * to float32 as the pass rounded it when it computed them for every text.
 */
export function timingSignal(timescales: Float32Array, n: number): Float32Array {
  const half = timescales.length
  const out = new Float32Array(n * 2 * half)
  for (let i = 0; i < n; i++)
    for (let c = 0; c < half; c++) {
      const angle = Math.fround(i * timescales[c]!)
      out[i * 2 * half + c] = Math.sin(angle)
      out[i * 2 * half + half + c] = Math.cos(angle)
    }
  return out
}
