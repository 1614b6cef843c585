import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { EmbeddingsModel } from '@energetic-ai/embeddings'
import { renderUseLiteInt8, USE_LITE_PACKAGE } from '../../../scripts/build-use-lite-int8'
import {
  denseInScript,
  type KernelMatrix,
  kernelMemory,
  loadUseLite,
  MAX_PIECES,
  PieceTokenizer,
  packageWeights,
  quantizeRows,
  UseLite,
  type Vocabulary,
} from '../../../src/features/engine/support/index'

// The built-in encoder computed in plain JavaScript (use-lite.ts) against what TensorFlow.js gave
// for the same model before it replaced it: the vectors in use-lite.fixture.json were made by the
// TensorFlow.js worker (WebAssembly backend) on these texts. With the package's float32 weights it
// must give them to 1e-5 (float32 sums in another order move a vector by about 1e-6), so this
// fails if a piece, a layer or the pooling differs; with the int8 weights the thread loads, to a
// cosine of 0.999 (measured: 0.9993 at worst over 105 texts, about 0.9997 typically), and the
// cosines between two texts, which the support check reads, within 0.01 (0.009 at worst over those
// texts; the check's declines on 600 questions were the same: bench/RESULTS.md, issue 38 session 22).
const ASSET = join(import.meta.dir, '../../../assets/engine/use-lite-int8.bin')
const fixture = JSON.parse(readFileSync(join(import.meta.dir, 'use-lite.fixture.json'), 'utf8')) as {
  texts: string[]
  vectors: number[][]
}
const vocabulary = JSON.parse(readFileSync(USE_LITE_PACKAGE.vocabulary, 'utf8')) as Vocabulary
const float = new UseLite(packageWeights(USE_LITE_PACKAGE, false), vocabulary)
const int8 = loadUseLite({ weights: ASSET, vocabulary: USE_LITE_PACKAGE.vocabulary })

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!
  return s
}

describe('the built-in encoder in JavaScript', () => {
  test("with the package's float32 weights: TensorFlow.js's vectors, to 1e-5 in every dimension", () => {
    for (const [i, text] of fixture.texts.entries()) {
      const v = float.embed(text)
      const want = fixture.vectors[i]!
      expect(v.length).toBe(512)
      let worst = 0
      for (let d = 0; d < 512; d++) worst = Math.max(worst, Math.abs(v[d]! - want[d]!))
      expect({ text, worst: worst < 1e-5 }).toEqual({ text, worst: true })
    }
  })

  test('with the int8 weights the thread loads: each vector within a cosine of 0.999, and cosines between texts within 0.01', () => {
    const ours = fixture.texts.map((t) => int8.embed(t))
    for (const [i, text] of fixture.texts.entries())
      expect({ text, cos: dot(ours[i]!, fixture.vectors[i]!) > 0.999 }).toEqual({ text, cos: true })
    // What the support check reads: cosines between a question and passages.
    for (let i = 0; i < ours.length; i++)
      for (let j = i + 1; j < ours.length; j++)
        expect(
          Math.abs(dot(ours[i]!, ours[j]!) - dot(fixture.vectors[i]!, fixture.vectors[j]!)),
        ).toBeLessThan(0.01)
  })

  test('the committed int8 weights are those of the package (scripts/build-use-lite-int8.ts)', () => {
    expect(Bun.hash(readFileSync(ASSET))).toBe(Bun.hash(renderUseLiteInt8()))
  })

  test('int8 rows: each weight within half a step of its row (largest magnitude / 127)', () => {
    const w = Float32Array.from({ length: 3 * 50 }, (_, i) => Math.sin(i * 0.37) * (1 + (i % 7)))
    const q = quantizeRows(w, 3, 50)
    for (let r = 0; r < 3; r++)
      for (let c = 0; c < 50; c++)
        expect(Math.abs(q.w[r * 50 + c]! * q.scale![r]! - w[r * 50 + c]!)).toBeLessThanOrEqual(
          q.scale![r]! / 2 + 1e-7,
        )
  })

  test("the WebAssembly kernel's int8 dense layer is JavaScript's, within its int16 inputs' rounding", () => {
    let seed = 7
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed / 2147483648
    }
    const [rows, cols, n] = [24, 64, 5]
    const matrix = (): KernelMatrix => ({
      ...quantizeRows(
        Float32Array.from({ length: rows * cols }, () => rand() - 0.5),
        rows,
        cols,
      ),
      bias: Float32Array.from({ length: rows }, () => rand()),
    })
    const [m1, m2] = [matrix(), matrix()]
    const want = new Float32Array(8 * rows)
    const input = Float32Array.from({ length: 8 * cols }, () => rand() * 2 - 1)
    denseInScript(input, n, m2, want)
    const k = kernelMemory([m1, m2], [8 * cols, 8 * rows])!
    expect(k).not.toBeNull()
    const [a, out] = k.buffers as [Float32Array, Float32Array]
    a.set(input)
    k.dense(
      a.byteOffset,
      8,
      k.placed[1]!.w,
      k.placed[1]!.scale,
      k.placed[1]!.bias,
      rows,
      cols,
      out.byteOffset,
    )
    // The kernel rounds each input row to int16 (its largest magnitude to 16383): a sum may move by
    // half a step of each input times its weight (use-lite-kernel.test.ts holds its exact sums).
    for (let i = 0; i < n; i++) {
      let max = 0
      for (let p = 0; p < cols; p++) max = Math.max(max, Math.abs(input[i * cols + p]!))
      for (let j = 0; j < rows; j++) {
        let weights = 0
        for (let p = 0; p < cols; p++) weights += Math.abs(m2.w[j * cols + p]!)
        const bound =
          0.51 * (max / 16383) * weights * m2.scale![j]! + 1e-5 * (1 + Math.abs(want[i * rows + j]!))
        expect(Math.abs(out[i * rows + j]! - want[i * rows + j]!)).toBeLessThan(bound)
      }
    }
  })

  test('reads at most 128 pieces of a long text (the rest changes nothing)', () => {
    const long = fixture.texts.find((t) => int8.pieces(t).length === MAX_PIECES)!
    expect(long).toBeDefined()
    const more = `${long} And a last sentence about something else entirely, past what the model reads.`
    expect(Array.from(int8.embed(more))).toEqual(Array.from(int8.embed(long)))
  })

  test("a pass stopped at any of its steps for another text's gives the same bits, and the other text its own", async () => {
    const long = fixture.texts.find((t) => int8.pieces(t).length === MAX_PIECES)!
    const question = 'Who designed the first reactor at Harwell?'
    const [alone, questionAlone] = [int8.embed(long), int8.embed(question)]
    const bits = (v: Float32Array) => Array.from(new Uint32Array(v.slice().buffer))
    let stops = 0
    await int8.embedWithStops(long, async () => void stops++)
    // Before each layer, after its query, key and value product, each of attention's four heads,
    // its output product and its first feed-forward product.
    expect(stops).toBe(16)
    for (let at = 0; at < stops; at++) {
      // The passage's pass, the question embedded whole at its at-th stop.
      const order: string[] = []
      let q: Float32Array | null = null
      let stop = 0
      const passage = await int8.embedWithStops(long, async () => {
        if (stop++ === at) {
          q = int8.embed(question)
          order.push('question')
        }
      })
      order.push('passage')
      expect({ at, order, passage: bits(passage), question: bits(q!) }).toEqual({
        at,
        order: ['question', 'passage'],
        passage: bits(alone),
        question: bits(questionAlone),
      })
    }
  })

  test('a vector is unit length and does not depend on the texts computed before it', () => {
    const first = int8.embed('Who approves the travel budget?')
    int8.embed(fixture.texts[5]!)
    const again = int8.embed('Who approves the travel budget?')
    expect(Array.from(again)).toEqual(Array.from(first))
    expect(Math.hypot(...first)).toBeCloseTo(1, 5)
  })
})

describe("the encoder's tokenizer", () => {
  test("splits texts into the package's pieces, unknown characters and ties included", () => {
    const ours = new PieceTokenizer(vocabulary)
    // The package's own tokenizer (its model is not needed to split a text).
    const theirs = new EmbeddingsModel({ vocabulary, model: null } as never) as unknown as {
      tokenizer: { encode(text: string): number[] }
    }
    const articles = readFileSync(
      join(import.meta.dir, '../../../src/features/engine/support/reference.ts'),
      'utf8',
    )
    const texts = [
      ...fixture.texts,
      '',
      ' ',
      '😀😀 ☃☃☃ x',
      'ﬁne Ⅻ ①②', // NFKC folds these
      'AAAA BBBB 1234567890 !!!??? ...',
      ...articles.split('\n').filter((l) => l.trim().length > 0),
    ]
    // Texts made of the vocabulary's pieces and stray characters, deterministically.
    let seed = 38
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed
    }
    const stray = ['é', '😀', '\u00a0', '—', 'ß', '中', ' ', '  ', '\t']
    for (let t = 0; t < 200; t++) {
      let text = ''
      for (let w = 0; w < 1 + (next() % 12); w++)
        text +=
          next() % 4 === 0
            ? stray[next() % stray.length]
            : vocabulary[6 + (next() % (vocabulary.length - 6))]![0].replace(/\u2581/g, ' ')
      texts.push(text)
    }
    for (const text of texts)
      expect({ text, ids: ours.encode(text) }).toEqual({ text, ids: theirs.tokenizer.encode(text) })
  })
})
