import { and, eq, gte, lte, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/db'
import { usageDaily } from './usage.tables'

/** The counter upsert every answered question runs, prepared once (building it cost more than running it). */
export function prepareAddQueries(
  db: Db,
): (workspaceId: string, corpusId: string, day: string, n: number) => void {
  const n = sql.placeholder('n')
  const upsert = db
    .insert(usageDaily)
    .values({
      workspaceId: sql.placeholder('workspaceId'),
      corpusId: sql.placeholder('corpusId'),
      day: sql.placeholder('day'),
      queries: n,
    })
    .onConflictDoUpdate({
      target: [usageDaily.workspaceId, usageDaily.corpusId, usageDaily.day],
      set: { queries: sql`${usageDaily.queries} + ${n}` },
    })
    .prepare()
  return (workspaceId, corpusId, day, count) => {
    upsert.run({ workspaceId, corpusId, day, n: count })
  }
}

/** Query counts of a workspace per day and per base between two days (inclusive). */
export function queriesBetween(
  db: Db,
  workspaceId: string,
  from: string,
  to: string,
): { corpusId: string; day: string; queries: number }[] {
  return db
    .select({ corpusId: usageDaily.corpusId, day: usageDaily.day, queries: usageDaily.queries })
    .from(usageDaily)
    .where(and(eq(usageDaily.workspaceId, workspaceId), gte(usageDaily.day, from), lte(usageDaily.day, to)))
    .all()
}
