// Writes assets/engine/encoder-references.json: the reference texts (reference.ts, from
// assets/engine/reference-sentences.txt) under the built-in sentence encoder (encoder-worker.ts,
// Universal Sentence Encoder lite). The support check asks the encoder only about questions it is
// unsure of; with these made ahead, it never embeds the 260 texts at run time (seconds of work). It
// keeps what the measure reads: the mean of the reference sentences' unit vectors (the measure's
// cosine is a dot product, so the mean cosine with the sentences is the dot product with their
// mean) and where the definition-example pairs fall.
// Run: npx bun run scripts/build-encoder-references.ts   (a unit test checks the committed file is current)
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { EncoderThread, REFERENCE_TEXTS, referencesOf } from '../src/features/engine/support/index'

/** Texts embedded in one request (the thread computes them one at a time). */
const BATCH = 20

/** The file's content: the mean vector (6 significant digits) and the pairs' two medians. */
export async function renderEncoderReferences(
  embed: (texts: string[]) => Promise<Float32Array[]>,
): Promise<string> {
  const vectors: Float32Array[] = []
  for (let i = 0; i < REFERENCE_TEXTS.length; i += BATCH)
    vectors.push(...(await embed(REFERENCE_TEXTS.slice(i, i + BATCH))))
  const refs = referencesOf(vectors)
  const mean = new Float64Array(vectors[0]!.length)
  for (const v of refs.sentences) for (let i = 0; i < v.length; i++) mean[i]! += v[i]! / refs.sentences.length
  const round = (x: number) => Number(x.toPrecision(6))
  return `${JSON.stringify({
    model: 'universal-sentence-encoder-lite',
    texts: REFERENCE_TEXTS.length,
    related: round(refs.related),
    unrelated: round(refs.unrelated),
    mean: [...mean].map(round),
  })}\n`
}

export const ENCODER_REFERENCES_PATH = join(import.meta.dir, '../assets/engine/encoder-references.json')

if (import.meta.main) {
  const encoder = new EncoderThread({ idleMs: 1000 })
  writeFileSync(ENCODER_REFERENCES_PATH, await renderEncoderReferences((t) => encoder.embed(t)))
  encoder.close()
  console.log(`wrote ${ENCODER_REFERENCES_PATH}`)
}
