import type { Clock } from '../../platform/clock/clock'
import type { Config } from '../../platform/config/config.load'
import { createEmbeddingsClient } from '../../platform/llm/embeddings-client'
import type { Logger } from '../../platform/log/log'
import type { Embedder } from './engine.vectors'
import { EncoderThread } from './support/index'
import { prepareStaticVectors, STATIC_MODEL, staticVector } from './text/index'

/** The built-in static word vectors' model name (passages embedded by another model are embedded again). */
export const BUILTIN_MODEL = STATIC_MODEL

// A failing embeddings server is reported at most this often (every question would fail alike).
const REPORT_EVERY_MS = 60_000

/** The built-in embedder: static word vectors summed in process; it never fails. */
export function builtinEmbedder(weight: number): Embedder {
  return {
    model: BUILTIN_MODEL,
    weight,
    embed: async (texts) => texts.map(staticVector),
    embedNow: (texts) => texts.map(staticVector),
    prepare: prepareStaticVectors,
  }
}

/**
 * The engine's embedder from `[embed]` configuration: the embeddings server when one is configured,
 * else the built-in static vectors when `builtin` is on, else null.
 */
export function embedderFrom(c: Config['embed'], clock: Clock, log: Logger): Embedder | null {
  if (!c.url) return c.builtin ? builtinEmbedder(c.builtin_weight) : null
  const client = createEmbeddingsClient({
    url: c.url,
    model: c.model,
    apiKey: c.api_key,
    timeoutMs: c.timeout_ms,
    batch: c.batch,
  })
  let reported = Number.NEGATIVE_INFINITY
  return {
    model: client.model,
    weight: c.weight,
    embed: (texts) => client.embed(texts),
    onQuestionFailure: (error) => {
      const now = clock.now().getTime()
      if (now - reported < REPORT_EVERY_MS) return
      reported = now
      log.warn('questions are answered without re-ranking by meaning: the embeddings server failed', {
        error: error.message,
      })
    },
  }
}

/**
 * The built-in sentence encoder from `[embed]` configuration, for the support check: on its thread
 * when `encoder` is on and no embeddings server is configured (the server's model gives the check
 * its signal), else null. A failure of the thread is logged once.
 */
export function encoderFrom(c: Config['embed'], log: Logger): EncoderThread | null {
  if (!c.encoder || c.url) return null
  return new EncoderThread({
    idleMs: c.encoder_idle_seconds * 1000,
    onFailure: (reason) =>
      log.warn('the support check is now word-level only: the built-in encoder failed', { reason }),
  })
}

/**
 * How long a question waits for the built-in encoder (`encoder_wait_ms`), and the report of waits
 * that ran out: logged at most once a minute, with how many since the last report.
 */
export function encoderWaitFrom(
  c: Config['embed'],
  clock: Clock,
  log: Logger,
): { waitMs: number; onTimeout: () => void } {
  let reported = Number.NEGATIVE_INFINITY
  let missed = 0
  return {
    waitMs: c.encoder_wait_ms,
    onTimeout: () => {
      missed++
      const now = clock.now().getTime()
      if (now - reported < REPORT_EVERY_MS) return
      reported = now
      log.warn('questions were checked without the built-in encoder: it did not answer in time', {
        questions: missed,
        wait_ms: c.encoder_wait_ms,
      })
      missed = 0
    },
  }
}
