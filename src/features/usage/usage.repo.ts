import { and, eq, gte, lte, sql } from 'drizzle-orm'
import { Prepared } from '../../platform/db/prepared'
import type { Store } from '../../platform/db/store'
import { usageDaily } from './usage.tables'

/** What a day's counters add: people's questions, and the load the scale test and compare made. */
export interface QueryCounts {
  queries: number
  loadTestQueries: number
  compareQueries: number
}

/**
 * The counter upsert every answered question runs, prepared once per handle (building it costs more
 * than running it). It runs as the inline subscriber of `question.answered`, in the quiet unit
 * answers publishes that event in (answers.repo.ts).
 */
export function prepareAddQueries(
  store: Store,
): (workspaceId: string, corpusId: string, day: string, n: QueryCounts) => Promise<void> {
  const people = sql.placeholder('queries')
  const load = sql.placeholder('loadTestQueries')
  const compare = sql.placeholder('compareQueries')
  const upsert = new Prepared(store, (db) => {
    const u = store.table(usageDaily)
    return db
      .insert(u)
      .values({
        workspaceId: sql.placeholder('workspaceId'),
        corpusId: sql.placeholder('corpusId'),
        day: sql.placeholder('day'),
        queries: people,
        loadTestQueries: load,
        compareQueries: compare,
      })
      .onConflictDoUpdate({
        target: [u.workspaceId, u.corpusId, u.day],
        set: {
          queries: sql`${u.queries} + ${people}`,
          loadTestQueries: sql`${u.loadTestQueries} + ${load}`,
          compareQueries: sql`${u.compareQueries} + ${compare}`,
        },
      })
      .prepare()
  })
  return async (workspaceId, corpusId, day, n) => {
    await upsert.execute({ workspaceId, corpusId, day, ...n })
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
