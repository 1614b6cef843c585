import { and, eq, gte, lte, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/db'
import { usageDaily } from './usage.tables'

/** What a day's counters add: people's questions, and the load the scale test and compare made. */
export interface QueryCounts {
  queries: number
  loadTestQueries: number
  compareQueries: number
}

/** The counter upsert every answered question runs, prepared once (building it cost more than running it). */
export function prepareAddQueries(
  db: Db,
): (workspaceId: string, corpusId: string, day: string, n: QueryCounts) => void {
  const people = sql.placeholder('queries')
  const load = sql.placeholder('loadTestQueries')
  const compare = sql.placeholder('compareQueries')
  const upsert = db
    .insert(usageDaily)
    .values({
      workspaceId: sql.placeholder('workspaceId'),
      corpusId: sql.placeholder('corpusId'),
      day: sql.placeholder('day'),
      queries: people,
      loadTestQueries: load,
      compareQueries: compare,
    })
    .onConflictDoUpdate({
      target: [usageDaily.workspaceId, usageDaily.corpusId, usageDaily.day],
      set: {
        queries: sql`${usageDaily.queries} + ${people}`,
        loadTestQueries: sql`${usageDaily.loadTestQueries} + ${load}`,
        compareQueries: sql`${usageDaily.compareQueries} + ${compare}`,
      },
    })
    .prepare()
  return (workspaceId, corpusId, day, n) => {
    upsert.run({ workspaceId, corpusId, day, ...n })
  }
}

/** Query counts of a workspace per day and per base between two days (inclusive). */
export function queriesBetween(
  db: Db,
  workspaceId: string,
  from: string,
  to: string,
): ({ corpusId: string; day: string } & QueryCounts)[] {
  return db
    .select({
      corpusId: usageDaily.corpusId,
      day: usageDaily.day,
      queries: usageDaily.queries,
      loadTestQueries: usageDaily.loadTestQueries,
      compareQueries: usageDaily.compareQueries,
    })
    .from(usageDaily)
    .where(and(eq(usageDaily.workspaceId, workspaceId), gte(usageDaily.day, from), lte(usageDaily.day, to)))
    .all()
}
