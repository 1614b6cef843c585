// Writes assets/engine/synonyms.bin, the stemmed synonym table built from synonyms.txt (the
// engine's buildSynonyms) packed as processes read it (synonym-pack.ts), so that none stems the
// file's words again. Run after changing synonyms.txt, the stemmer or word normalisation:
// npx bun run scripts/build-synonym-table.ts   (a unit test checks the committed file is current)
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildSynonyms, packSynonyms } from '../src/features/engine/text/index'

/** Where the packed table is committed. */
export const PACKED_PATH = join(import.meta.dir, '../assets/engine/synonyms.bin')

if (import.meta.main) {
  const bytes = packSynonyms(buildSynonyms())
  writeFileSync(PACKED_PATH, bytes)
  console.log(`wrote ${PACKED_PATH} (${bytes.length} bytes)`)
}
