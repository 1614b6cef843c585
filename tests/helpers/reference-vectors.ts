import { REFERENCE_PAIRS, REFERENCE_SENTENCES } from '../../src/features/engine/support/index'

/**
 * Vectors an embeddings stand-in can give the support check's reference texts (reference.ts): every
 * sentence along axis 0; each pair's example along an axis of its own, its definition between that
 * axis and a second one of its own (cosine 1/√5 with its example, 0 with the others). Axes 1 and 2
 * are left for a test's own texts (`vector`).
 */
export const REFERENCE_DIMS = 3 + 2 * REFERENCE_PAIRS.length

const sentences = new Set(REFERENCE_SENTENCES)
const pairAxes = new Map<string, number[]>()
for (const [i, [definition, example]] of REFERENCE_PAIRS.entries()) {
  const own = 3 + i
  const other = 3 + REFERENCE_PAIRS.length + i
  pairAxes.set(example, [own])
  pairAxes.set(definition, [own, other, other])
}

/** A vector of REFERENCE_DIMS values with `head` first (a test's own text), zeros after. */
export function vector(...head: number[]): number[] {
  return [...head, ...new Array(REFERENCE_DIMS - head.length).fill(0)]
}

/** The stand-in's vector (of length one) of a reference text, or null for any other text. */
export function referenceVector(text: string): number[] | null {
  if (sentences.has(text)) return vector(1)
  const axes = pairAxes.get(text)
  if (!axes) return null
  const v = vector()
  for (const a of axes) v[a]! += 1
  const n = Math.hypot(...v)
  return v.map((x) => x / n)
}
