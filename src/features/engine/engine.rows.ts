import type { engineBases, enginePassages, engineSections } from './engine.tables'

// The rows the engine's repos read and write, inferred from its tables (engine.tables.ts). Raw
// statements name the columns under these keys (`section_id AS sectionId`: SECTION_COLUMNS).

/** A base's key and counters. */
export type BaseRow = typeof engineBases.$inferSelect

/** What the engine records about an indexed section (the source fields come from here). */
export type SectionRow = typeof engineSections.$inferSelect

/** A passage as rag reads it back: its text, sentence spans within it, and its section's fields. */
export type PassageRow = Pick<
  typeof enginePassages.$inferSelect,
  'id' | 'sectionId' | 'ordinal' | 'text' | 'sents' | 'words'
> &
  Pick<SectionRow, 'documentId' | 'title' | 'filename'>

/** What EngineRepo.putSection writes besides the rows (see there). */
export interface SectionWrites {
  words?: (Uint8Array | null)[] | null
  fts?: { terms: string; count: number }[]
  /** The token prefix `fts`'s rows already have before each term (IndexedSection.prefix); '' for none. */
  prefix?: string
  counts?: Map<string, number>
  /** The section's earlier row was removed already, in the same transaction (its group's writes). */
  removed?: boolean
}
