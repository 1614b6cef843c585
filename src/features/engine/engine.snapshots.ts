import type { Database } from 'bun:sqlite'
import { type PassageInput, passageTerms } from './cart/index'
import { SECTION_COLUMNS } from './engine.builds.repo'
import type { EngineRepo } from './engine.repo'
import type { SectionRow } from './engine.rows'
import type { enginePassages } from './engine.tables'

// A base's rows of the engine's index in a SQLite file of their own, the form in which a base's index
// travels between replicas (docs/scale-out.md, "The passage index across replicas"): a snapshot holds
// all of the base's sections, a change those of some sections (written or removed since the generation
// before). Each holds sections, passages, vectors and encodings as the index stores them, and no FTS5
// rows: their tokens carry the base's key, which is each replica's own, so a replica that takes a file
// indexes its passages' terms again under its key (as moving a base to its own table does).

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
             WHERE ${IN_FILE} ORDER BY p.section_id, p.ordinal`,
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

/** The index's tables, besides the sections, whose rows belong to a section. */
const TRACKED = ['engine_passages', 'engine_vectors', 'engine_encodings']

/**
 * Records on the connection, from now on, which sections of which base every write touches (temporary
 * triggers: nothing in the file changes), so a change can be published with the rows of those sections.
 */
export function trackChanges(client: Database): void {
  client.run(
    'CREATE TEMP TABLE IF NOT EXISTS engine_touched (base_id TEXT NOT NULL, section_id TEXT NOT NULL, PRIMARY KEY (base_id, section_id))',
  )
  const touch = (name: string, on: string, row: 'new' | 'old', what: string) =>
    client.run(
      `CREATE TEMP TRIGGER IF NOT EXISTS ${name} AFTER ${on} BEGIN INSERT OR IGNORE INTO engine_touched ${what.replaceAll('$', row)}; END`,
    )
  for (const [verb, row] of [
    ['INSERT', 'new'],
    ['UPDATE', 'new'],
    ['DELETE', 'old'],
  ] as const) {
    const op = verb.toLowerCase()
    touch(
      `engine_touched_sections_${op}`,
      `${verb} ON main.engine_sections`,
      row,
      'VALUES ($.base_id, $.section_id)',
    )
    for (const table of TRACKED)
      touch(
        `engine_touched_${table}_${op}`,
        `${verb} ON main.${table}`,
        row,
        'SELECT base_id, section_id FROM engine_sections WHERE section_id = $.section_id',
      )
  }
}

/** The sections of a base written or removed since they were last published or taken (trackChanges). */
export function touchedSections(client: Database, baseId: string): string[] {
  const rows = client.query('SELECT section_id FROM temp.engine_touched WHERE base_id = ?').all(baseId)
  return (rows as { section_id: string }[]).map((r) => r.section_id)
}

/** Forgets a base's touched sections (`ids`, or all of them) once published or replaced. */
export function forgetTouched(client: Database, baseId: string, ids?: string[]): void {
  if (!ids) client.run('DELETE FROM temp.engine_touched WHERE base_id = ?', [baseId])
  else {
    const del = client.prepare('DELETE FROM temp.engine_touched WHERE base_id = ? AND section_id = ?')
    for (const id of ids) del.run(baseId, id)
  }
}

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
 * transaction so the copy is of one moment: all its sections (a snapshot), or, with `only`, those of
 * them (a change; the ids of those no longer indexed are listed as removed). Returns how many sections
 * it holds.
 */
export function exportBase(client: Database, baseId: string, path: string, only?: string[]): number {
  return attached(client, path, () =>
    client.transaction(() => {
      client.run('CREATE TABLE snap.meta (format INTEGER NOT NULL)')
      client.run('INSERT INTO snap.meta VALUES (?)', [SNAPSHOT_FORMAT])
      client.run('CREATE TABLE snap.ids (section_id TEXT PRIMARY KEY)')
      const id = client.prepare('INSERT INTO snap.ids VALUES (?)')
      for (const s of only ?? []) id.run(s)
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
 * sections, a change those it holds or lists as removed; its sections are indexed under this replica's
 * key for the base, their vectors and encodings copied. The base keeps its key and its generation moves
 * on, so nothing cached for it stays. Returns the ids of the sections replaced or removed, so their
 * cached vectors and cartridges can be forgotten.
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
      const counts = new Map<string, number>([[baseId, 0]])
      const listed =
        'SELECT section_id AS sectionId FROM snap.sections UNION SELECT section_id FROM snap.removed'
      const before = whole ? repo.sections(baseId) : (client.query(listed).all() as { sectionId: string }[])
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
      return before.map((s) => s.sectionId)
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
