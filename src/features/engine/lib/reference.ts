import REFERENCE from '../../../../assets/engine/reference-sentences.txt' with { type: 'text' }

/** Sentences on no one subject (WordNet glosses: scripts/build-reference-sentences.ts). */
export const REFERENCE_SENTENCES: readonly string[] = REFERENCE.split('\n').filter(
  (l) => l !== '' && !l.startsWith('#'),
)

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
  let m = 0
  for (const r of references) m += dot(question, r) / references.length
  // A model that puts every text in one place tells nothing.
  if (references.length === 0 || !(1 - m > 1e-6)) return passages.map(() => null)
  return passages.map((p) => (p && p.length === question.length ? (dot(question, p) - m) / (1 - m) : null))
}

function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0
  let d = 0
  for (let i = 0; i < a.length; i++) d += a[i]! * b[i]!
  return d
}
