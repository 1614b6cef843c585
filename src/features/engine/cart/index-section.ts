// A run's chunking of its sections (on a compile thread, CompileThreads.index, or in process).
import { type PassageInput, sectionPassages } from './passages'

/**
 * A section chunked for the index, as a run writes it: its passages (their `terms` left empty) and
 * each passage's terms as the FTS5 row holds them (ftsTerm, joined by spaces; the base's key is
 * put before each where the row is written), with how many there are.
 */
export interface IndexedSection {
  passages: PassageInput[]
  fts: { terms: string; count: number }[]
}

/**
 * A run's group being chunked (CompileThreads.index): `take`, when the run is about to write it,
 * chunks it on the event loop now unless a thread has started it (then its answer is waited for).
 */
export type Chunking = Promise<IndexedSection[]> & { take?: () => void }

/** A section's text chunked for the index (sectionPassages), its terms ready for the FTS5 rows. */
export function indexSection(text: string): IndexedSection {
  const fts: IndexedSection['fts'] = []
  const passages = sectionPassages(text, fts)
  return { passages, fts }
}
