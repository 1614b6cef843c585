import REFERENCES_FILE from '../../../../assets/engine/encoder-references.json' with { type: 'json' }
import { modelSignal, type References } from './reference'

/**
 * The word-level support (support.ts, no model) between which the built-in encoder is asked too:
 * below it the question is declined and above it answered whatever the encoder says, or nearly so.
 * Chosen on the tuning split: asking about 8% of questions there (5% of the answerable ones) keeps
 * what asking every question gives (93.4% of foreign questions declined against 93.5%, at the same
 * 2.5% of answerable ones lost; RESULTS.md).
 */
export const ENCODER_BAND = { low: 0.15, high: 0.6 } as const

/**
 * The characters of a text the encoder is given: questions and passages are shorter, and the model's
 * work and memory grow with the square of a text's length.
 */
export const ENCODER_MAX_CHARS = 2000

/** Texts to unit-length vectors under the built-in sentence encoder (EncoderThread.embed; `bulk`: background work). */
export type EncoderEmbed = (texts: string[], bulk?: boolean) => Promise<Float32Array[]>

/**
 * The reference texts under the built-in encoder, made ahead (scripts/build-encoder-references.ts):
 * the mean of the sentences' vectors stands for them, since the measure reads only their mean cosine
 * with the question and its cosine is a dot product.
 */
export const ENCODER_REFERENCES: References = {
  sentences: [Float32Array.from(REFERENCES_FILE.mean)],
  related: REFERENCES_FILE.related,
  unrelated: REFERENCES_FILE.unrelated,
}

/** Whether a question whose best passage has this word-level support is one to ask the encoder about. */
export function unsure(support: number): boolean {
  return support >= ENCODER_BAND.low && support <= ENCODER_BAND.high
}

/**
 * The `model` signal (reference.ts modelSignal) of each passage under the built-in encoder: the
 * question embedded with the passages given as texts (each cut at ENCODER_MAX_CHARS), in one
 * request; a passage given as its vector (encoded at onboarding, EncoderCheck) is not embedded
 * again. Empty when the encoder fails, is busy or is off: the check then stays word-level.
 */
export async function encoderSignals(
  embed: EncoderEmbed,
  question: string,
  passages: (string | Float32Array)[],
): Promise<(number | null)[]> {
  const texts = [question, ...passages.filter((p): p is string => typeof p === 'string')]
  let vectors: Float32Array[]
  try {
    vectors = await embed(texts.map((t) => t.slice(0, ENCODER_MAX_CHARS)))
  } catch {
    return []
  }
  const q = vectors[0]
  if (!q || vectors.length !== texts.length) return []
  let next = 1
  const list = passages.map((p) => (typeof p === 'string' ? vectors[next++]! : p))
  return modelSignal(q, ENCODER_REFERENCES, list)
}

/**
 * The built-in encoder's vectors kept by base and text, so passages that answer many questions (and
 * questions asked again) are embedded once; when full, the least recently used go first. Keys are
 * the base's id and a hash of the text: a base's answers never depend on what another base asked.
 */
export class EncoderCache {
  private readonly vectors = new Map<string, Float32Array>()

  constructor(
    private readonly embed: EncoderEmbed,
    private readonly capacity = ENCODER_CACHE_VECTORS,
  ) {}

  /** The texts' vectors for one base: those kept, and the others embedded in one request. */
  async vectorsFor(baseId: string, texts: string[]): Promise<Float32Array[]> {
    const keys = texts.map((t) => `${baseId}\u0000${Bun.hash(t).toString(36)}\u0000${t.length}`)
    const missing = [...new Set(keys.filter((k) => !this.vectors.has(k)))]
    if (missing.length > 0) {
      const made = await this.embed(missing.map((k) => texts[keys.indexOf(k)]!))
      if (made.length !== missing.length) throw new Error('the encoder answered another number of vectors')
      for (const [i, k] of missing.entries()) this.vectors.set(k, made[i]!)
    }
    const out = keys.map((k) => {
      const v = this.vectors.get(k)!
      // Most recently used last: a Map keeps insertion order.
      this.vectors.delete(k)
      this.vectors.set(k, v)
      return v
    })
    for (const k of this.vectors.keys()) {
      if (this.vectors.size <= this.capacity) break
      this.vectors.delete(k)
    }
    return out
  }

  /** How many vectors are kept (at most the capacity). */
  get size(): number {
    return this.vectors.size
  }
}

/** Vectors the cache keeps: 4,096 of 512 floats, 8 MB. */
export const ENCODER_CACHE_VECTORS = 4096
