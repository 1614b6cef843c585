import { describe, expect, test } from 'bun:test'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { USE_LITE_PACKAGE } from '../../../scripts/build-use-lite-int8'
import {
  fileSlices,
  type KernelMatrix,
  kernelMemory,
  loadUseLite,
  type ReadBytes,
  readAssetWeights,
  readUseLite,
} from '../../../src/features/engine/support/index'

// The encoder's thread reads its int8 asset a weight at a time, each dense layer's matrix straight
// into the kernel's memory, instead of reading the asset whole (7 MB) and copying its matrices out
// of it (issue 38: the encoder's load was the 1x peak's moment). The same vectors, bit for bit.
const ASSET = join(import.meta.dir, '../../../assets/engine/use-lite-int8.bin')
const FILES = { weights: ASSET, vocabulary: USE_LITE_PACKAGE.vocabulary }
const DENSE = 'module/Encoder_en/hidden_layers/tanh_layer_0/weights'
const vocabulary = JSON.parse(readFileSync(USE_LITE_PACKAGE.vocabulary, 'utf8')) as unknown[]

/** Reads the asset by slices, noting each read's size. */
function counted(sizes: number[]): ReadBytes {
  const read = fileSlices(ASSET)
  return async (offset, bytes) => {
    sizes.push(bytes)
    return read(offset, bytes)
  }
}

describe('the encoder reading its asset a weight at a time', () => {
  test('no read is more than one weight; every byte is read once', async () => {
    const sizes: number[] = []
    let calls = 0
    const model = await readUseLite(FILES, () => calls++, counted(sizes))
    expect(calls).toBe(1)
    const asset = statSync(ASSET).size
    // The largest weight is the table of pieces' vectors (about 2 MB of the 7).
    expect(Math.max(...sizes)).toBeLessThan(asset / 3)
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(asset)
    expect(sizes.reduce((a, b) => a + b, 0)).toBeGreaterThan(asset * 0.99)
    expect(model.embed('When was the cartridge compiled?').length).toBe(512)
  })

  test("a dense layer's matrix is read into the memory the model's kernel computes in", async () => {
    const { weights, memory } = await readAssetWeights(fileSlices(ASSET))
    const dense = weights.matrix(DENSE, 512, 512, true)
    expect(dense.w.buffer).toBe(memory.buffer)
    expect(dense.scale!.buffer).toBe(memory.buffer)
    const table = weights.matrix('module/Embeddings_en', vocabulary.length + 2, 256, false)
    expect(table.w.buffer).not.toBe(memory.buffer)
  })

  test('the vectors are the same bits as the asset read whole', async () => {
    const whole = loadUseLite(FILES)
    const sliced = await readUseLite(FILES)
    for (const text of [
      'When was the cartridge compiled?',
      'The first cartridge warms the thread. It was compiled in 1973 by Engram.',
      'Ünïcödé, emoji 🙂 and 漢字 in one passage of text, repeated. '.repeat(20),
    ]) {
      expect(Array.from(sliced.embed(text))).toEqual(Array.from(whole.embed(text)))
    }
  })

  test('the kernel leaves a matrix already in its memory where it is, and grows for the rest', () => {
    const memory = new WebAssembly.Memory({ initial: 1 })
    const rows = 8
    const cols = 16
    const w = new Int8Array(memory.buffer, 1024, rows * cols)
    const scale = new Float32Array(memory.buffer, 256, rows)
    for (let i = 0; i < w.length; i++) w[i] = (i % 11) - 5
    scale.fill(0.5)
    const there: KernelMatrix = { w, scale, bias: new Float32Array(rows).fill(1), rows, cols }
    const copied: KernelMatrix = {
      w: w.slice(),
      scale: scale.slice(),
      bias: new Float32Array(rows).fill(1),
      rows,
      cols,
    }
    const placed = kernelMemory([there, copied], [4 * cols, 4 * rows, 4 * rows], memory)!
    expect(placed).not.toBeNull()
    expect(placed.placed[0]!.w).toBe(1024)
    expect(placed.placed[0]!.scale).toBe(256)
    expect(placed.placed[1]!.w).toBeGreaterThanOrEqual(65536)
    expect(memory.buffer.byteLength).toBeGreaterThan(65536)
    expect(there.w.buffer).toBe(memory.buffer)
    expect(Array.from(there.w)).toEqual(Array.from(copied.w))
    const [a, out0, out1] = placed.buffers as [Float32Array, Float32Array, Float32Array]
    for (let i = 0; i < a.length; i++) a[i] = (i % 7) - 3
    for (const [i, out] of [out0, out1].entries()) {
      const at = placed.placed[i]!
      placed.dense(a.byteOffset, 4, at.w, at.scale, at.bias, rows, cols, out.byteOffset)
    }
    expect(Array.from(out0)).toEqual(Array.from(out1))
    expect(out0.some((v) => v !== 0)).toBe(true)
  })

  test('a file cut short is refused', async () => {
    const read = fileSlices(ASSET)
    // The header whole, a weight a byte short.
    const short: ReadBytes = async (offset, bytes) =>
      (await read(offset, bytes)).subarray(0, offset > 4 && bytes > 4096 ? bytes - 1 : bytes)
    await expect(readAssetWeights(short)).rejects.toThrow('end inside')
  })
})
