// The fair claim on the store, on either engine: what an owner runs, the due candidates (fair-claim.ts
// says how they are read and chosen), and taking the chosen ones. Where the engines differ there is
// one function per dialect: the order that breaks ties between jobs due at the same time (SQLite's
// rowid, insertion order; on PostgreSQL the creation time, then the id, the table having no
// sequence column), and the lock (SQLite's unit holds the one write lock from its first statement;
// PostgreSQL locks the chosen rows FOR UPDATE SKIP LOCKED, so a concurrent claimer skips them and no
// job is claimed twice).
import { and, asc, count, desc, eq, inArray, type SQL, sql } from 'drizzle-orm'
import type { Db } from '../db/db'
import { rawRows } from '../db/raw'
import type { Store } from '../db/store'
import type { Candidate, ClaimPolicy, Running } from './fair-claim'
import { jobs } from './jobs.tables'

type JobsTable = typeof jobs

/** What `owner` runs now, by workspace, and how many of those are bulk. */
export async function runningOf(store: Store, owner: string, policy: ClaimPolicy): Promise<Running> {
  const j = store.table(jobs)
  const bulk = new Set(policy.bulk)
  const running: Running = { byWorkspace: new Map(), bulk: 0 }
  const rows = await store.db
    .select({ workspaceId: j.workspaceId, kind: j.kind, n: count() })
    .from(j)
    .where(and(eq(j.status, 'running'), eq(j.leaseOwner, owner)))
    .groupBy(j.workspaceId, j.kind)
  for (const r of rows) {
    running.byWorkspace.set(r.workspaceId, (running.byWorkspace.get(r.workspaceId) ?? 0) + r.n)
    if (bulk.has(r.kind)) running.bulk += r.n
  }
  return running
}

/** Insertion order for the builder's orderBy, per dialect (see the top of this file). */
export function inserted(store: Store, j: JobsTable, dir: 'asc' | 'desc'): SQL[] {
  const d = dir === 'asc' ? asc : desc
  if (store.dialect === 'sqlite') return [d(sql`rowid`)]
  return [d(j.createdAt), d(j.id)]
}

/** The sum of the numbers job results hold at `field`, per dialect (JSON is text on both). */
export function resultSum(store: Store, j: JobsTable, field: string): SQL {
  if (store.dialect === 'sqlite') return sql`sum(json_extract(${j.result}, ${`$.${field}`}))`
  return sql`sum(((${j.result})::jsonb ->> ${field})::double precision)`
}

/** The tie-break between jobs due at the same time, per dialect (see the top of this file). */
function seqOf(store: Store): { order: SQL; seq: SQL } {
  if (store.dialect === 'sqlite') return { order: sql`d.rowid`, seq: sql`j.rowid` }
  return { order: sql`d.created_at, d.id`, seq: sql`j.created_at` }
}

/**
 * The due pending jobs of `kinds`, at most `perKind` a workspace of each kind, read through the
 * workspaces that have pending jobs. One query a kind: with the kind in the index before `run_at`,
 * each workspace's due jobs of a kind are one index range already in age order, so a workspace
 * with 50,000 waiting extractions costs one seek, not a scan, when its one sync is looked for.
 */
export async function candidatesOf(
  store: Store,
  kinds: readonly string[],
  now: number,
  perKind: number,
): Promise<Candidate[]> {
  const t = store.table(jobs)
  const { order, seq } = seqOf(store)
  const out: Candidate[] = []
  for (const kind of kinds) {
    const rows = await rawRows(
      store,
      sql`WITH RECURSIVE ws(id) AS (
         SELECT min(workspace_id) FROM ${t} WHERE status = 'pending'
         UNION ALL
         SELECT (SELECT min(workspace_id) FROM ${t} WHERE status = 'pending' AND workspace_id > ws.id)
         FROM ws WHERE ws.id IS NOT NULL
       )
       SELECT j.id AS id, j.workspace_id AS ws, j.kind AS kind, j.run_at AS run_at, ${seq} AS seq
       FROM ws JOIN ${t} j ON j.id IN (
         SELECT d.id FROM ${t} d
         WHERE d.status = 'pending' AND d.workspace_id = ws.id AND d.kind = ${kind} AND d.run_at <= ${now}
         ORDER BY d.run_at, ${order} LIMIT ${perKind}
       )`,
    )
    // Raw rows: PostgreSQL's client gives integers as strings.
    for (const r of rows)
      out.push({
        id: String(r.id),
        workspaceId: String(r.ws),
        kind: String(r.kind),
        runAt: Number(r.run_at),
        seq: Number(r.seq),
      })
  }
  return out
}

/**
 * Takes the chosen jobs for `owner` in the caller's unit, guarded by their pending status; returns
 * the rows taken. On PostgreSQL the rows are locked first, skipping any another claimer holds.
 */
export async function take(
  store: Store,
  ids: string[],
  set: Record<string, unknown>,
): Promise<(typeof jobs.$inferSelect)[]> {
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
