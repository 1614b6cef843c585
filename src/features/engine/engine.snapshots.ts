import type { Database } from 'bun:sqlite'
import { type PassageInput, passageTerms } from './cart/index'
import { SECTION_COLUMNS } from './engine.builds.repo'
import type { EngineRepo } from './engine.repo'
import type { SectionRow } from './engine.rows'
import type { enginePassages } from './engine.tables'

// A base's snapshot: its rows of the engine's index in a SQLite file of their own, the form in which a
// base's index travels between replicas (docs/scale-out.md, "The passage index across replicas"). It
// holds the base's sections, passages, vectors and encodings as the index stores them, and no FTS5
// rows: their tokens carry the base's key, which is each replica's own, so a replica that takes a
// snapshot indexes its passages' terms again under its key (as moving a base to its own table does).

/** The tables of a snapshot, each filled from the index's table of the same rows for one base. */
const COPIES: { name: string; select: string }[] = [
  { name: 'sections', select: 'SELECT * FROM main.engine_sections WHERE base_id = ?1' },
  {
    name: 'passages',
    select: `SELECT p.* FROM main.engine_passages p JOIN main.engine_sections s ON s.section_id = p.section_id
             WHERE s.base_id = ?1 ORDER BY p.section_id, p.ordinal`,
  },
  {
    name: 'vectors',
    select: `SELECT v.* FROM main.engine_vectors v JOIN main.engine_sections s ON s.section_id = v.section_id
             WHERE s.base_id = ?1`,
  },
  {
    name: 'encodings',
    select: `SELECT e.* FROM main.engine_encodings e JOIN main.engine_sections s ON s.section_id = e.section_id
             WHERE s.base_id = ?1`,
  },
]

/** A passage as a snapshot stores it. */
type SnapshotPassage = Pick<
  typeof enginePassages.$inferSelect,
  'sectionId' | 'ordinal' | 'text' | 'sents' | 'words' | 'start'
>

/** Runs `work` with the file at `path` attached to the index's connection as `snap` (no unit may be open). */
function attached<T>(client: Database, path: string, work: () => T): T {
  client.run('ATTACH DATABASE ? AS snap', [path])
  try {
    return work()
  } finally {
    client.run('DETACH DATABASE snap')
  }
}

/**
 * Writes a base's rows into a new SQLite file at `path` (which must not exist), read in one
 * transaction so the copy is of one moment; returns how many sections it holds.
 */
export function exportBase(client: Database, baseId: string, path: string): number {
  return attached(client, path, () =>
    client.transaction(() => {
      for (const c of COPIES) client.run(`CREATE TABLE snap.${c.name} AS ${c.select}`, [baseId])
      return (client.query('SELECT count(*) AS n FROM snap.sections').get() as { n: number }).n
    })(),
  )
}

/**
 * Replaces a base's rows in the index with a snapshot's, in one transaction: its sections now are
 * removed, the snapshot's indexed under this replica's key for the base, their vectors and encodings
 * copied. The base keeps its key and its generation moves on, so nothing cached for it stays.
 * Returns the sections it held before, so their cached vectors and cartridges can be forgotten.
 */
export function importBase(repo: EngineRepo, baseId: string, path: string): SectionRow[] {
  const client = repo.client
  return attached(client, path, () =>
    client.transaction(() => {
      const counts = new Map<string, number>([[baseId, 0]])
      const before = repo.sections(baseId)
      for (const s of before) repo.removeSection(s.sectionId, counts)
      const sections = client.query(`SELECT ${SECTION_COLUMNS} FROM snap.sections`).all() as SectionRow[]
      const passages = client.prepare(
        'SELECT section_id AS sectionId, ordinal, text, sents, words, start FROM snap.passages WHERE section_id = ? ORDER BY ordinal',
      )
      for (const row of sections) {
        const rows = passages.all(row.sectionId) as SnapshotPassage[]
        const inputs = rows.map(passageInput)
        repo.putSection({ ...row, baseId }, inputs, null, { words: rows.map((p) => p.words), counts })
      }
      client.run('INSERT INTO main.engine_vectors SELECT * FROM snap.vectors')
      client.run('INSERT INTO main.engine_encodings SELECT * FROM snap.encodings')
      repo.addCounts(counts)
      return before
    })(),
  )
}

/** A stored passage as the index takes it again: its terms read from its text and sentence spans. */
function passageInput(p: SnapshotPassage): PassageInput {
  const sents = new Uint32Array(Uint8Array.from(p.sents).buffer)
  return {
    ordinal: p.ordinal,
    text: p.text,
    sents,
    terms: passageTerms(p.text, sents),
    start: p.start ?? undefined,
  }
}
