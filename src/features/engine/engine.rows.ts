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

/**
 * A base's cartridge bytes as a section row is inserted (`?1` its bytes, `?2` base, `?3` cartridge,
 * `?4` section) or deleted: its cartridge counted once a base. These were triggers (migrations 0012,
 * 0033) until 0034: a trigger gives its statement a statement journal, which makes FTS5 write the
 * terms it holds as a segment there and then, so a run's group wrote a segment a section.
 */
export const CART_BYTES = {
  add: `UPDATE engine_bases SET cart_bytes = cart_bytes + max(0, ?1 - coalesce((SELECT max(s.cart_bytes)
    FROM engine_sections s WHERE s.base_id = ?2 AND s.cart_key = ?3 AND s.section_id != ?4), 0)) WHERE base_id = ?2`,
  take: `UPDATE engine_bases SET cart_bytes = cart_bytes - max(0, ?1 - coalesce((SELECT max(s.cart_bytes)
    FROM engine_sections s WHERE s.base_id = ?2 AND s.cart_key = ?3), 0)) WHERE base_id = ?2`,
}
