// A run's chunking of its sections (on a compile thread, CompileThreads.index, or in process).
import { type PassageInput, sectionPassages } from './passages'

/**
 * A section chunked for the index, as a run writes it: its passages (their `terms` left empty) and
 * each passage's terms as the FTS5 row holds them (ftsTerm, joined by spaces), with how many there
 * are. Each term has `prefix` before it: the base's token prefix when the run knew its key (its row
 * then is written as it is), else nothing (the prefix is put in where the row is written).
 */
export interface IndexedSection {
  passages: PassageInput[]
  fts: { terms: string; count: number }[]
  prefix: string
}

/**
 * A run's group being chunked (CompileThreads.index): `take`, when the run is about to write it,
 * chunks it on the event loop now unless a thread has started it (then its answer is waited for).
 */
export type Chunking = Promise<IndexedSection[]> & { take?: () => void }

/** A section's text chunked for the index (sectionPassages), its terms ready for the FTS5 rows (`prefix` before each). */
export function indexSection(text: string, prefix = ''): IndexedSection {
  const fts: IndexedSection['fts'] = []
  const passages = sectionPassages(text, fts, prefix)
  return { passages, fts, prefix }
}
