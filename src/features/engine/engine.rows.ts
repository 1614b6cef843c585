// The rows the engine's repo reads and writes (engine.repo.ts).

/** What the engine records about an indexed section (the source fields come from here). */
export interface SectionRow {
  section_id: string
  base_id: string
  document_id: string
  title: string
  filename: string
  cart_key: string
  n_passages: number
  /** Bytes of the cartridge in the store; 0 while unknown (sections indexed before it was recorded). */
  cart_bytes: number
}

/** A passage as rag reads it back: its text, sentence spans within it, and its section's fields. */
export interface PassageRow {
  id: number
  section_id: string
  ordinal: number
  text: string
  sents: Uint8Array
  /** Its content words as ranking reads them (rank/passage-words.ts); null when indexed before they were stored. */
  words: Uint8Array | null
  document_id: string
  title: string
  filename: string
}

/** What EngineRepo.putSection writes besides the rows (see there). */
export interface SectionWrites {
  words?: Uint8Array[] | null
  fts?: { terms: string; count: number }[]
  counts?: Map<string, number>
}
