import { and, eq, gte, lte, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/db'
import type { Store } from '../../platform/db/store'
import { usageDaily } from './usage.tables'

/** What a day's counters add: people's questions, and the load the scale test and compare made. */
export interface QueryCounts {
  queries: number
  loadTestQueries: number
  compareQueries: number
}

/**
 * The counter upsert every answered question runs, prepared once (building it cost more than running
 * it). Still synchronous bun:sqlite: it runs as the inline subscriber of `question.answered`, which
 * answers emits in a synchronous transaction (answers.repo.ts says why); it moves onto the store
 * with that event.
 */
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

/** Query counts of a workspace per day and per base between two days (inclusive), on either engine. */
export async function queriesBetween(
  store: Store,
  workspaceId: string,
  from: string,
  to: string,
): Promise<({ corpusId: string; day: string } & QueryCounts)[]> {
  const u = store.table(usageDaily)
  return store.db
    .select({
      corpusId: u.corpusId,
      day: u.day,
      queries: u.queries,
      loadTestQueries: u.loadTestQueries,
      compareQueries: u.compareQueries,
    })
    .from(u)
    .where(and(eq(u.workspaceId, workspaceId), gte(u.day, from), lte(u.day, to)))
}
