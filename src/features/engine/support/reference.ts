import REFERENCE from '../../../../assets/engine/reference-sentences.txt' with { type: 'text' }
import { cosine, EMBEDDED_SCALE } from './support'

const ROWS = REFERENCE.split('\n').filter((l) => l !== '' && !l.startsWith('#'))
/** Sentences on no one subject (WordNet glosses: scripts/build-reference-sentences.ts). */
export const REFERENCE_SENTENCES: readonly string[] = ROWS.filter((l) => !l.includes('\t'))
/** WordNet definitions with their own examples, [definition, example]. */
export const REFERENCE_PAIRS: readonly (readonly [string, string])[] = ROWS.filter((l) =>
  l.includes('\t'),
).map((l) => l.split('\t') as [string, string])
/** What an embeddings server embeds for the check, in this order: the sentences, then each pair's definition and example. */
export const REFERENCE_TEXTS: readonly string[] = [...REFERENCE_SENTENCES, ...REFERENCE_PAIRS.flat()]

/** The reference texts under one model. */
export interface References {
  sentences: Float32Array[]
  /** Where a definition falls from its own example (related) and from another's (unrelated), as pastReference measures. */
  related: number
  unrelated: number
}

/** The References of a model, from its vectors of REFERENCE_TEXTS in order. */
export function referencesOf(vectors: Float32Array[]): References {
  const n = REFERENCE_SENTENCES.length
  const sentences = vectors.slice(0, n)
  const pairs = REFERENCE_PAIRS.length
  const definition = (i: number) => vectors[n + 2 * (i % pairs)]!
  const example = (i: number) => vectors[n + 2 * i + 1]!
  // pastReference gives null only for a model that puts every text in one place: read as 0 here.
  const median = (f: (i: number) => number | null) => {
    const xs = Array.from({ length: pairs }, (_, i) => f(i) ?? 0).sort((a, b) => a - b)
    return xs[xs.length >> 1] ?? 0
  }
  return {
    sentences,
    related: median((i) => pastReference(example(i), sentences, [definition(i)])[0] ?? null),
    unrelated: median((i) => pastReference(example(i), sentences, [definition(i + 1)])[0] ?? null),
  }
}

/**
 * The support check's `model` signal of each passage: pastReference, put on the scale of the model
 * the check was fitted with (EMBEDDED_SCALE) by where the reference pairs fall under both. Null
 * where a passage has no vector, and for every passage of a model that puts a definition no nearer
 * its own example than another's.
 */
export function modelSignal(
  question: Float32Array,
  refs: References,
  passages: (Float32Array | null)[],
): (number | null)[] {
  const spread = refs.related - refs.unrelated
  if (!(spread > 1e-6)) return passages.map(() => null)
  const fitted = EMBEDDED_SCALE.related - EMBEDDED_SCALE.unrelated
  return pastReference(question, refs.sentences, passages).map((x) =>
    x === null ? null : EMBEDDED_SCALE.unrelated + ((x - refs.unrelated) * fitted) / spread,
  )
}

/**
 * How much closer each passage is to the question than the reference sentences are, under one
 * model: (cos(q, p) - m) / (1 - m), where m is the question's mean cosine with the references. 0 for
 * a passage no closer than a sentence on no one subject, 1 for the question's own text, whatever
 * range the model's cosines keep to. Null where a passage has no vector of the question's length,
 * and for every passage when the references are as close to the question as its own text.
 */
export function pastReference(
  question: Float32Array,
  references: Float32Array[],
  passages: (Float32Array | null)[],
): (number | null)[] {
  if (references.some((r) => r.length !== question.length)) return passages.map(() => null)
  let m = 0
  for (const r of references) m += cosine(question, r) / references.length
  // A model that puts every text in one place tells nothing.
  if (references.length === 0 || !(1 - m > 1e-6)) return passages.map(() => null)
  return passages.map((p) => (p && p.length === question.length ? (cosine(question, p) - m) / (1 - m) : null))
}
