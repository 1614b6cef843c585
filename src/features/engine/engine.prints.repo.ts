import type { Database } from 'bun:sqlite'

// What a write changed in a base, told without watching the writes: each section's print (its row, the
// ids and count of its passages, how many vectors and encodings it has), read in one statement after the
// write and compared with the prints of the state last published or taken. No trigger: a trigger gives
// its statement a statement journal, which makes FTS5 write a segment there and then
// (engine.builds.repo.ts, CART_BYTES), so a run's group would write a segment a section.
//
// The print reads indexes only (the passages' by section holds their ids), never a passage's row: a
// base's prints are read at every write, so reading its passages' text would make a run's cost grow
// with the square of the base (46 ms a print of 32,000 passages against 2.9). Passages' stored words
// are not in it: they are written only with the section's cartridge (buildDeferred), whose key and size
// are in the section's row.

/** Each section of a base by id, with its print. */
export type Prints = Map<string, { rows: string; passages: string }>

/** What a base's writes changed since its prints were taken. */
export interface Changed {
  /** Sections written, added or removed. */
  touched: string[]
  /** Of them, those whose passages were written again (or added, or removed): ids new in the index. */
  rewritten: string[]
}

const PRINTS = `SELECT s.section_id AS id,
    s.document_id || char(31) || s.title || char(31) || s.filename || char(31) || s.cart_key || char(31) ||
      s.cart_bytes || char(31) || s.n_passages || char(31) ||
      (SELECT count(*) FROM engine_vectors v WHERE v.section_id = s.section_id) || char(31) ||
      (SELECT count(*) FROM engine_encodings e WHERE e.section_id = s.section_id) AS rows,
    (SELECT min(id) || ':' || max(id) || ':' || count(*)
       FROM engine_passages p WHERE p.section_id = s.section_id) AS passages
  FROM engine_sections s WHERE s.base_id = ?`

/** The prints of a base's sections as the index holds them now. */
export function printsOf(client: Database, baseId: string): Prints {
  const rows = client.query(PRINTS).all(baseId) as { id: string; rows: string; passages: string | null }[]
  return new Map(rows.map((r) => [r.id, { rows: r.rows, passages: r.passages ?? '' }]))
}

/** What changed from `before` to `after`. */
export function changed(before: Prints, after: Prints): Changed {
  const touched: string[] = []
  const rewritten: string[] = []
  for (const [id, now] of after) {
    const was = before.get(id)
    if (was && was.rows === now.rows && was.passages === now.passages) continue
    touched.push(id)
    // The passages' ids and count: new ids are passages written again.
    if (!was || was.passages !== now.passages) rewritten.push(id)
  }
  for (const id of before.keys())
    if (!after.has(id)) {
      touched.push(id)
      rewritten.push(id)
    }
  return { touched, rewritten }
}
