import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { USE_LITE_PACKAGE } from '../../../scripts/build-use-lite-int8'
import {
  assetWeights,
  loadUseLite,
  UseLite,
  type UseLiteWeights,
  type Vocabulary,
} from '../../../src/features/engine/support/index'

// The encoder's thread loads the int8 asset once: a dense layer's matrix is copied into the kernel's
// memory, so it is lent as a view of the asset's bytes instead of being copied out first (7 MB more
// at once while the thread loaded); the table of pieces' vectors, read in place, still gets a copy of
// its own, so the asset's bytes can go. The vectors are the same bits as with every matrix copied.
const ASSET = join(import.meta.dir, '../../../assets/engine/use-lite-int8.bin')
const DENSE = 'module/Encoder_en/hidden_layers/tanh_layer_0/weights'
const TABLE = 'module/Embeddings_en'
const vocabulary = JSON.parse(readFileSync(USE_LITE_PACKAGE.vocabulary, 'utf8')) as Vocabulary

/** The asset's weights with every matrix copied out (as the thread loaded them before). */
function copied(weights: UseLiteWeights): UseLiteWeights {
  return {
    vector: (name) => weights.vector(name),
    matrix: (name, rows, cols, transpose) => {
      const m = weights.matrix(name, rows, cols, transpose)
      return { ...m, w: m.w.slice(), scale: m.scale?.slice() ?? null }
    },
  }
}

describe('the encoder loading its int8 asset', () => {
  test("a dense layer's matrix is a view of the asset's bytes, the table and vectors are copies", () => {
    const bytes = new Uint8Array(readFileSync(ASSET))
    const weights = assetWeights(bytes)
    const dense = weights.matrix(DENSE, 512, 512, true)
    expect(dense.w.buffer).toBe(bytes.buffer)
    expect(dense.scale!.buffer).toBe(bytes.buffer)
    const table = weights.matrix(TABLE, vocabulary.length + 2, 256, false)
    expect(table.w.buffer).not.toBe(bytes.buffer)
    expect(table.scale!.buffer).not.toBe(bytes.buffer)
    expect(weights.vector('module/Encoder_en/hidden_layers/tanh_layer_0/bias').buffer).not.toBe(bytes.buffer)
  })

  test('the vectors are the same bits as with every matrix copied out', () => {
    const lent = new UseLite(assetWeights(new Uint8Array(readFileSync(ASSET))), vocabulary)
    const copies = new UseLite(copied(assetWeights(new Uint8Array(readFileSync(ASSET)))), vocabulary)
    for (const text of [
      'When was the cartridge compiled?',
      'The first cartridge warms the thread. It was compiled in 1973 by Engram.',
      'Ünïcödé, emoji 🙂 and 漢字 in one passage of text, repeated. '.repeat(20),
    ]) {
      expect(Array.from(lent.embed(text))).toEqual(Array.from(copies.embed(text)))
    }
  })

  test('loading calls afterRead once, after the files are read and before the model is made', () => {
    let calls = 0
    const model = loadUseLite({ weights: ASSET, vocabulary: USE_LITE_PACKAGE.vocabulary }, () => calls++)
    expect(calls).toBe(1)
    expect(model.embed('When was the cartridge compiled?').length).toBe(512)
    expect(() =>
      loadUseLite(
        { weights: join(import.meta.dir, 'no-such-asset.bin'), vocabulary: USE_LITE_PACKAGE.vocabulary },
        () => calls++,
      ),
    ).toThrow()
    expect(calls).toBe(1)
  })
})
