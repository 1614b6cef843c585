import type { Database } from 'bun:sqlite'
import type { BaseRow } from './engine.rows'

// FTS5's merges of a base's own index (engine.fts.repo.ts) while a run writes it, and after. Each of a
// run's groups commits one FTS5 segment (engine.onboard.ts), and by default (automerge 4, crisismerge
// 16) FTS5 merges segments inside those commits: at 10x a quarter of the groups' CPU. While a run
// writes, the base's table merges a level only once it is full (automerge 0; crisismerge 900 in a
// base's first run, 64 in later ones; kept by FTS5 in the table's config rows, so they are rolled
// back with the group that set them); the deferred job ends the hold and merges in bounded steps
// (DeferredJobs), before the cartridges, so questions interleave. bm25(), its statistics and the
// posting lists read through fts5vocab are the same whatever the segments; a question meanwhile
// reads each of its terms from every segment.

/** FTS5's default automerge and crisismerge, which a base's table gets back once its run's merges are done. */
const AUTOMERGE = 4
const CRISISMERGE = 16
/**
 * Segments a level holds in a base's first run before FTS5 merges them at once: so many that a first
 * run of 100x (about 650 groups) merges nothing in its commits (a crisis merge was a commit of 70 ms
 * at 30x, three times, and a third of a 100x run's writes: bench/RESULTS.md, issue 38 session 32);
 * the deferred job merges after, in steps. Not more: FTS5 refuses a 2,000th segment in one index
 * (FTS5_MAX_SEGMENT, SQLITE_FULL), so two levels just short of this many, and what earlier merges
 * left, stay below that (the second level gains a segment a merge of the first: about 100 GB of text
 * in one run).
 */
const FIRST_RUN_CRISISMERGE = 900
/**
 * The same in a later run: a base that answers questions already (a forced run, a sync). A question
 * reads each of its terms from every segment, so while a 100x base's 650 segments wait for their
 * merges its answers took 50-85 ms (3 ms merged) for 14 s and more after the run, and twice as long
 * during it: a later run merges as it goes, 64 segments at a time.
 */
const HELD_CRISISMERGE = 64
/** Pages of segments a merge step writes at most (FTS5's `merge` command; about 20 ms here). */
export const MERGE_PAGES = 256

/** A base's own FTS5 table, or null (no row yet, or a base still in the shared table). */
function tableOf(client: Database, baseId: string): string | null {
  const row = client
    .query('SELECT key, own_index AS ownIndex FROM engine_bases WHERE base_id = ?')
    .get(baseId) as Pick<BaseRow, 'key' | 'ownIndex'> | null
  return row && row.ownIndex === 1 ? `engine_fts_${Math.trunc(row.key)}` : null
}

/**
 * A setting of the table as FTS5 keeps it: undefined when never set, null when the table is not there.
 * Read straight from its config table (a missing table is SQLite's "no such table"): each of a run's
 * groups asks, and a look-up in sqlite_master first scanned the schema's rows (65 µs, 1,176 times for
 * 5,000 small files: bench/RESULTS.md, issue 38, session 37).
 */
function settingOf(client: Database, table: string, key: 'automerge' | 'crisismerge') {
  let row: { v: number } | null
  try {
    row = client.query(`SELECT v FROM ${table}_config WHERE k = ?`).get(key) as { v: number } | null
  } catch (e) {
    if (e instanceof Error && /no such table/i.test(e.message)) return null
    throw e
  }
  return row ? Number(row.v) : undefined
}
const automergeOf = (client: Database, table: string) => {
  const v = settingOf(client, table, 'automerge')
  return v === undefined ? AUTOMERGE : v
}
const crisismergeOf = (client: Database, table: string) => {
  const v = settingOf(client, table, 'crisismerge')
  return v === undefined ? CRISISMERGE : v
}

/**
 * Holds the merges of the bases' own tables (in a run's group transaction: its commit merges nothing
 * below the crisis level): a table never held before (its base's first run), or whose first run's
 * segments are not all merged yet (its next commit would merge them all at once at a lower level),
 * to FIRST_RUN_CRISISMERGE segments a level; any other to HELD_CRISISMERGE.
 */
export function holdMerges(client: Database, baseIds: Iterable<string>): void {
  for (const baseId of baseIds) {
    const table = tableOf(client, baseId)
    const automerge = table && settingOf(client, table, 'automerge')
    if (!table || automerge === 0) continue
    const first = automerge === undefined || crisismergeOf(client, table)! > HELD_CRISISMERGE
    const crisis = first ? FIRST_RUN_CRISISMERGE : HELD_CRISISMERGE
    client.run(`INSERT INTO ${table} (${table}, rank) VALUES ('automerge', 0)`)
    client.run(`INSERT INTO ${table} (${table}, rank) VALUES ('crisismerge', ${crisis})`)
  }
}

/**
 * Whether a run holds the base's merges (its table's automerge is 0), or the merges after it are not
 * all done yet (its crisismerge not FTS5's default again: mergeStep puts it back once they are).
 */
export function mergesHeld(client: Database, baseId: string): boolean {
  const table = tableOf(client, baseId)
  const automerge = table && automergeOf(client, table)
  // No table (none yet, or dropped under it): nothing held.
  if (automerge === null) return false
  return automerge === 0 || crisismergeOf(client, table!) !== CRISISMERGE
}

/**
 * Ends a run's hold on the base's merges (FTS5's default automerge again) and merges a step: up to
 * `pages` pages of the levels with four segments or more (FTS5's `merge` with usermerge's default,
 * the shape automerge would have left). Returns whether it merged anything (call again while it
 * does). A level merges at once at FTS5's default crisismerge again only once nothing is left to
 * merge: before, the next commit that writes a segment (a deleted document's) would merge all of a
 * run's segments in it.
 */
export function mergeStep(client: Database, baseId: string, pages = MERGE_PAGES): boolean {
  const table = tableOf(client, baseId)
  if (table === null || automergeOf(client, table) === null) return false
  return client.transaction(() => {
    if (automergeOf(client, table) !== AUTOMERGE)
      client.run(`INSERT INTO ${table} (${table}, rank) VALUES ('automerge', ${AUTOMERGE})`)
    // FTS5 says a merge did something when it changed two rows or more (its documentation).
    const before = client.query('SELECT total_changes() AS n').get() as { n: number }
    client.run(`INSERT INTO ${table} (${table}, rank) VALUES ('merge', ${Math.max(1, Math.trunc(pages))})`)
    const after = client.query('SELECT total_changes() AS n').get() as { n: number }
    const merged = after.n - before.n >= 2
    if (!merged && crisismergeOf(client, table) !== CRISISMERGE)
      client.run(`INSERT INTO ${table} (${table}, rank) VALUES ('crisismerge', ${CRISISMERGE})`)
    return merged
  })()
}
