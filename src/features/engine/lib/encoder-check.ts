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

/** Texts to unit-length vectors under the built-in sentence encoder (EncoderThread.embed). */
export type EncoderEmbed = (texts: string[]) => Promise<Float32Array[]>

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
 * question and the passages' texts embedded together (each cut at ENCODER_MAX_CHARS). Empty when
 * the encoder fails, is busy or is off: the check then stays word-level.
 */
export async function encoderSignals(
  embed: EncoderEmbed,
  question: string,
  passages: string[],
): Promise<(number | null)[]> {
  let vectors: Float32Array[]
  try {
    vectors = await embed([question, ...passages].map((t) => t.slice(0, ENCODER_MAX_CHARS)))
  } catch {
    return []
  }
  const q = vectors[0]
  return q && vectors.length === passages.length + 1
    ? modelSignal(q, ENCODER_REFERENCES, vectors.slice(1))
    : []
}
