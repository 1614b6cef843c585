import type { Database } from 'bun:sqlite'
import type { PassageInput } from './cart/index'
import { SECTION_COLUMNS } from './engine.builds.repo'
import type { Changed } from './engine.prints.repo'
import type { EngineRepo } from './engine.repo'
import type { SectionRow } from './engine.rows'
import type { enginePassages } from './engine.tables'
import { ftsTerms } from './text/index'

// A base's rows of the engine's index in a SQLite file of their own, the form in which a base's index
// travels between replicas (docs/scale-out.md, "The passage index across replicas"): a snapshot holds
// all of the base's sections, a change those of some sections (written or removed since the generation
// before, engine.prints.repo.ts). Each holds sections, passages, vectors and encodings as the index stores
// them, and no FTS5 rows: their tokens carry the base's key, which is each replica's own, so a replica
// that takes a file indexes its passages' terms again under its key (as moving a base to its own table
// does). Passages are taken in the order the writer's ids give them, and a section whose passages the
// writer did not write again keeps its own: ties in ranking, broken by a passage's id, fall the same
// way on every replica.

/**
 * The layout of the files this build writes and reads: a build meeting a file of a layout it does not
 * know refuses it (a replica of an older build beside a newer one during an upgrade) rather than
 * misreading it. Moved on whenever the engine's tables change what the files hold.
 */
export const SNAPSHOT_FORMAT = 1

/** Sections of the base (`?1`) in the file: all of them, or only those listed in `snap.ids`. */
const IN_FILE = '(s.base_id = ?1 AND (?2 = 0 OR s.section_id IN (SELECT section_id FROM snap.ids)))'

/** The tables of a file, each filled from the index's table of the same rows for the sections in it. */
const COPIES: { name: string; select: string }[] = [
  { name: 'sections', select: `SELECT s.* FROM main.engine_sections s WHERE ${IN_FILE}` },
  {
    name: 'passages',
    select: `SELECT p.* FROM main.engine_passages p JOIN main.engine_sections s ON s.section_id = p.section_id
             WHERE ${IN_FILE} ORDER BY p.id`,
  },
  {
    name: 'vectors',
    select: `SELECT v.* FROM main.engine_vectors v JOIN main.engine_sections s ON s.section_id = v.section_id
             WHERE ${IN_FILE}`,
  },
  {
    name: 'encodings',
    select: `SELECT e.* FROM main.engine_encodings e JOIN main.engine_sections s ON s.section_id = e.section_id
             WHERE ${IN_FILE}`,
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
 * transaction so the copy is of one moment: all its sections (a snapshot), or, with `only`, those
 * changed (a change: the ids of those no longer indexed listed as removed, and of those whose passages
 * were written again as rewritten). Returns how many sections it holds.
 */
export function exportBase(client: Database, baseId: string, path: string, only?: Changed): number {
  return attached(client, path, () =>
    client.transaction(() => {
      client.run('CREATE TABLE snap.meta (format INTEGER NOT NULL)')
      client.run('INSERT INTO snap.meta VALUES (?)', [SNAPSHOT_FORMAT])
      client.run('CREATE TABLE snap.ids (section_id TEXT PRIMARY KEY)')
      client.run('CREATE TABLE snap.rewritten (section_id TEXT PRIMARY KEY)')
      const id = client.prepare('INSERT INTO snap.ids VALUES (?)')
      for (const s of only?.touched ?? []) id.run(s)
      const again = client.prepare('INSERT INTO snap.rewritten VALUES (?)')
      for (const s of only?.rewritten ?? []) again.run(s)
      for (const c of COPIES) client.run(`CREATE TABLE snap.${c.name} AS ${c.select}`, [baseId, only ? 1 : 0])
      client.run(
        'CREATE TABLE snap.removed AS SELECT section_id FROM snap.ids WHERE section_id NOT IN (SELECT section_id FROM snap.sections)',
      )
      return (client.query('SELECT count(*) AS n FROM snap.sections').get() as { n: number }).n
    })(),
  )
}

/**
 * Takes a file into the index, in one transaction: a snapshot (`whole`) replaces all of the base's
 * sections, a change those it holds or lists as removed. A section is indexed again under this
 * replica's key for the base when the file's passages of it are new to this replica (all of a
 * snapshot's, a change's rewritten ones), in the order of the writer's ids; otherwise its row and its
 * passages' stored words are brought to the file's and its passages stay. Vectors and encodings are
 * the file's. The base keeps its key and its generation moves on, so nothing cached for it stays.
 * Returns the ids of the sections replaced or removed, so their cached vectors and cartridges go.
 */
export function importBase(repo: EngineRepo, baseId: string, path: string, whole: boolean): string[] {
  const client = repo.client
  return attached(client, path, () =>
    client.transaction(() => {
      const format = (client.query('SELECT format FROM snap.meta').get() as { format: number } | null)?.format
      if (format !== SNAPSHOT_FORMAT)
        throw new Error(
          `the published index of base ${baseId} has layout ${format}; this build reads ${SNAPSHOT_FORMAT}: upgrade this replica`,
        )
      // The file's passages are read a section at a time (below, reindex and keep): without an index
      // each of those reads scanned them all, and taking a base grew with its square (a 25 MB base
      // took 45 s). Made here, in this replica's copy of the file, so the files keep their layout.
      client.run('CREATE INDEX snap.passages_by_section ON passages (section_id, ordinal)')
      const counts = new Map<string, number>([[baseId, 0]])
      const ids = (sql: string) => (client.query(sql).all() as { id: string }[]).map((r) => r.id)
      const removed = whole
        ? repo.sections(baseId).map((s) => s.sectionId)
        : ids('SELECT section_id AS id FROM snap.removed')
      const again = new Set(ids('SELECT section_id AS id FROM snap.rewritten'))
      const local = client.prepare('SELECT 1 AS one FROM engine_sections WHERE section_id = ?')
      for (const id of removed) repo.removeSection(id, counts)
      const sections = client
        .query(
          `SELECT ${SECTION_COLUMNS} FROM snap.sections s
           ORDER BY (SELECT min(p.id) FROM snap.passages p WHERE p.section_id = s.section_id), s.section_id`,
        )
        .all() as SectionRow[]
      for (const row of sections) {
        if (whole || again.has(row.sectionId) || !local.get(row.sectionId)) reindex(repo, baseId, row, counts)
        else keep(client, row)
      }
      client.run('DELETE FROM main.engine_vectors WHERE section_id IN (SELECT section_id FROM snap.sections)')
      client.run('INSERT INTO main.engine_vectors SELECT * FROM snap.vectors')
      client.run(
        'DELETE FROM main.engine_encodings WHERE section_id IN (SELECT section_id FROM snap.sections)',
      )
      client.run('INSERT INTO main.engine_encodings SELECT * FROM snap.encodings')
      repo.addCounts(counts)
      // Each cartridge counted once, as the writer's accounting has it (CART_BYTES).
      client.run(
        `UPDATE engine_bases SET cart_bytes = coalesce((SELECT sum(b) FROM (SELECT max(cart_bytes) AS b
           FROM engine_sections WHERE base_id = ?1 GROUP BY cart_key)), 0) WHERE base_id = ?1`,
        [baseId],
      )
      return [...removed, ...sections.map((s) => s.sectionId)]
    })(),
  )
}

/** A section of the file indexed again: its passages new here, in the writer's order. */
function reindex(repo: EngineRepo, baseId: string, row: SectionRow, counts: Map<string, number>): void {
  const rows = repo.client
    .query(
      'SELECT section_id AS sectionId, ordinal, text, sents, words, start FROM snap.passages WHERE section_id = ? ORDER BY ordinal',
    )
    .all(row.sectionId) as SnapshotPassage[]
  const inputs = rows.map(passageInput)
  const fts = inputs.map(ftsRowOf)
  repo.putSection({ ...row, baseId }, inputs, null, { words: rows.map((p) => p.words), fts, counts })
}

/** A section of the file whose passages this replica has: its row and stored words brought to the file's. */
function keep(client: Database, row: SectionRow): void {
  client.run(
    `UPDATE engine_sections SET document_id = ?, title = ?, filename = ?, cart_key = ?, n_passages = ?, cart_bytes = ?
     WHERE section_id = ?`,
    [row.documentId, row.title, row.filename, row.cartKey, row.nPassages, row.cartBytes, row.sectionId],
  )
  client.run(
    `UPDATE engine_passages SET words = (SELECT f.words FROM snap.passages f
       WHERE f.section_id = engine_passages.section_id AND f.ordinal = engine_passages.ordinal)
     WHERE section_id = ?`,
    [row.sectionId],
  )
}

/** A stored passage as the index takes it again (its FTS5 row is made by ftsRowOf). */
function passageInput(p: SnapshotPassage): PassageInput {
  const sents = new Uint32Array(Uint8Array.from(p.sents).buffer)
  return { ordinal: p.ordinal, text: p.text, sents, terms: [], start: p.start ?? undefined }
}

/**
 * A passage's FTS5 row read again from its text and sentence spans by the routine a run writes rows
 * with (ftsTerms, `sectionPassages`), so a replica taking the file indexes exactly the tokens the
 * writer did, and BM25's lengths and counts, hence scores, are the same on every replica.
 */
function ftsRowOf(p: PassageInput): { terms: string; count: number } {
  const row: string[] = []
  for (let i = 0; i < p.sents.length; i += 2) ftsTerms(p.text, p.sents[i]!, p.sents[i + 1]!, row)
  return { terms: row.join(' '), count: row.length }
}
