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

/**
 * A group's chunking as a compile thread sends it back (packSections): `ints` holds, for each
 * section, its passage count, then for each passage its start and end in the section's text, its
 * FTS5 row's term count, its sentence spans' length and the spans; `rows` the FTS5 rows, a line each.
 * The event loop holds the sections' texts already, so the passages' texts are not sent back: a
 * third of the bytes to copy, and two objects a group to clone instead of five a passage.
 */
export interface PackedSections {
  ints: Uint32Array
  rows: string
  prefix: string
}

/** Sections chunked (indexSection's, with one prefix) packed for the event loop (unpackSections). */
export function packSections(sections: IndexedSection[], prefix = ''): PackedSections {
  let size = 0
  for (const s of sections) {
    size++
    for (const p of s.passages) size += 4 + p.sents.length
  }
  const ints = new Uint32Array(size)
  const rows: string[] = []
  let k = 0
  for (const s of sections) {
    ints[k++] = s.passages.length
    s.passages.forEach((p, i) => {
      ints[k++] = p.start!
      ints[k++] = p.start! + p.text.length
      ints[k++] = s.fts[i]!.count
      ints[k++] = p.sents.length
      ints.set(p.sents, k)
      k += p.sents.length
      rows.push(s.fts[i]!.terms)
    })
  }
  return { ints, rows: rows.join('\n'), prefix }
}

/**
 * The sections packSections packed, given their texts (in the same order): each passage's text a
 * slice of its section's, its sentence spans a view of `ints`.
 */
export function unpackSections(packed: PackedSections, texts: readonly string[]): IndexedSection[] {
  const { ints, prefix } = packed
  const rows = packed.rows.split('\n')
  const out: IndexedSection[] = []
  let k = 0
  let r = 0
  for (const text of texts) {
    const passages: PassageInput[] = []
    const fts: IndexedSection['fts'] = []
    const n = ints[k++]!
    for (let ordinal = 0; ordinal < n; ordinal++) {
      const start = ints[k++]!
      const end = ints[k++]!
      const count = ints[k++]!
      const spans = ints[k++]!
      passages.push({
        ordinal,
        start,
        text: text.slice(start, end),
        sents: ints.subarray(k, k + spans),
        terms: [],
      })
      k += spans
      fts.push({ terms: rows[r++]!, count })
    }
    out.push({ passages, fts, prefix })
  }
  return out
}
