// The fair claim on the store, on either engine: what an owner runs, the due candidates (fair-claim.ts
// says how they are read and chosen), and taking the chosen ones. Ties between jobs due at the same
// time break by `seq`, the jobs' insertion order on both engines (jobs.tables.ts). The two reads of
// a poll are prepared once (the candidates' once per set of kinds), so a poll that finds nothing to
// take prepares no statement on SQLite. Where the engines differ there is one function per dialect:
// the lock (SQLite's unit holds the one write lock from its first statement; PostgreSQL locks the
// chosen rows FOR UPDATE SKIP LOCKED, so a concurrent claimer skips them and no job is claimed twice).
import { and, asc, count, desc, eq, inArray, lte, type SQL, sql } from 'drizzle-orm'
import type { Db } from '../db/db'
import { Prepared } from '../db/prepared'
import type { Store } from '../db/store'
import type { Candidate, ClaimPolicy, Running } from './fair-claim'
import type { JobRow } from './job'
import { jobs } from './jobs.tables'

type JobsTable = typeof jobs

/** Insertion order for the builder's orderBy, the same on both engines. */
export function inserted(j: JobsTable, dir: 'asc' | 'desc'): SQL[] {
  return [(dir === 'asc' ? asc : desc)(j.seq)]
}

/** The reads of a claim, prepared on the store: what an owner runs, and the due candidates. */
export class ClaimReads {
  private readonly running: Prepared<{ workspaceId: string; kind: string; n: number }[]>
  /** Whether any pending job is due: one seek on `jobs_claim`. */
  private readonly anyDue: Prepared<{ one: number }[]>
  private readonly candidates = new Map<string, Prepared<Candidate[]>>()

  constructor(private readonly store: Store) {
    const j = store.table(jobs)
    this.running = new Prepared(store, (db) =>
      db
        .select({ workspaceId: j.workspaceId, kind: j.kind, n: count() })
        .from(j)
        .where(and(eq(j.status, 'running'), eq(j.leaseOwner, sql.placeholder('owner'))))
        .groupBy(j.workspaceId, j.kind)
        .prepare(),
    )
    this.anyDue = new Prepared(store, (db) =>
      db
        .select({ one: sql<number>`1` })
        .from(j)
        .where(and(eq(j.status, 'pending'), lte(j.runAt, sql.placeholder('now'))))
        .limit(1)
        .prepare(),
    )
  }

  /** What `owner` runs now, by workspace, and how many of those are bulk. */
  async runningOf(owner: string, policy: ClaimPolicy): Promise<Running> {
    const bulk = new Set(policy.bulk)
    const running: Running = { byWorkspace: new Map(), bulk: 0 }
    for (const r of await this.running.execute({ owner })) {
      running.byWorkspace.set(r.workspaceId, (running.byWorkspace.get(r.workspaceId) ?? 0) + r.n)
      if (bulk.has(r.kind)) running.bulk += r.n
    }
    return running
  }

  /**
   * The due pending jobs of `kinds`, at most `perKind` a workspace of each kind, read through the
   * workspaces that have pending jobs, in one statement built once per set of kinds. With the kind
   * in the index before `run_at` (and `seq` after it), each workspace's due jobs of a kind are one
   * index range already in claim order, so a workspace with 50,000 waiting extractions costs one
   * seek, not a scan, when its one sync is looked for.
   */
  async candidatesOf(kinds: readonly string[], now: number, perKind: number): Promise<Candidate[]> {
    // Most polls find nothing due (the timer's, the pokes as jobs are added and end): one seek says
    // so, where the candidates' statement takes a branch a kind (0.6-0.76 ms for 25 kinds).
    if ((await this.anyDue.execute({ now })).length === 0) return []
    const key = JSON.stringify(kinds)
    let query = this.candidates.get(key)
    if (!query) {
      query = candidatesQuery(this.store, kinds)
      this.candidates.set(key, query)
    }
    return query.execute({ now, perKind })
  }
}

/**
 * The candidates' statement for `kinds`: a recursive CTE walks the workspaces with pending jobs
 * (one index seek each), then, per kind, a correlated subquery takes each one's first due jobs.
 * Written as SQL (drizzle's builder has no recursive CTE) in a select's FROM, so it is prepared,
 * with `now` and `perKind` as placeholders, and its integers are mapped to numbers on both engines.
 */
function candidatesQuery(store: Store, kinds: readonly string[]): Prepared<Candidate[]> {
  const t = store.table(jobs)
  const perKind = kinds.map(
    (kind) => sql`SELECT j.id AS id, j.workspace_id AS ws, j.kind AS kind, j.run_at AS run_at, j.seq AS seq
       FROM ws JOIN ${t} j ON j.id IN (
         SELECT d.id FROM ${t} d
         WHERE d.status = 'pending' AND d.workspace_id = ws.id AND d.kind = ${kind}
           AND d.run_at <= ${sql.placeholder('now')}
         ORDER BY d.run_at, d.seq LIMIT ${sql.placeholder('perKind')}
       )`,
  )
  const from = sql`(WITH RECURSIVE ws(id) AS (
       SELECT min(workspace_id) FROM ${t} WHERE status = 'pending'
       UNION ALL
       SELECT (SELECT min(workspace_id) FROM ${t} WHERE status = 'pending' AND workspace_id > ws.id)
       FROM ws WHERE ws.id IS NOT NULL
     )
     ${sql.join(perKind, sql` UNION ALL `)}) c`
  return new Prepared(store, (db) =>
    db
      .select({
        id: sql<string>`c.id`,
        workspaceId: sql<string>`c.ws`,
        kind: sql<string>`c.kind`,
        runAt: sql<number>`c.run_at`.mapWith(Number),
        seq: sql<number>`c.seq`.mapWith(Number),
      })
      .from(from)
      .prepare(),
  )
}

/**
 * Takes the chosen jobs for `owner` in the caller's unit, guarded by their pending status; returns
 * the rows taken. On PostgreSQL the rows are locked first, skipping any another claimer holds.
 */
export async function take(store: Store, ids: string[], set: Record<string, unknown>): Promise<JobRow[]> {
  const j = store.table(jobs)
  let free = ids
  if (store.dialect === 'postgres') free = await lockFree(store.db, j, ids)
  if (free.length === 0) return []
  return store.db
    .update(j)
    .set(set)
    .where(and(inArray(j.id, free), eq(j.status, 'pending')))
    .returning()
}

/** PostgreSQL: the ids still pending that no other transaction holds, now locked by this one. */
async function lockFree(db: Db, j: JobsTable, ids: string[]): Promise<string[]> {
  const q = db
    .select({ id: j.id })
    .from(j)
    .where(and(inArray(j.id, ids), eq(j.status, 'pending')))
  // The PostgreSQL select builder has `for`; the declaration is typed as SQLite's.
  const locked = await (
    q as unknown as { for(s: 'update', o: { skipLocked: true }): Promise<{ id: string }[]> }
  ).for('update', { skipLocked: true })
  return locked.map((r) => r.id)
}
