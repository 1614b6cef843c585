import { and, eq, gte, lte, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/db'
import { usageDaily } from './usage.tables'

/** Adds `n` queries to a workspace's (and base's) counter for `day`. */
export function addQueries(db: Db, workspaceId: string, corpusId: string, day: string, n: number): void {
  db.insert(usageDaily)
    .values({ workspaceId, corpusId, day, queries: n })
    .onConflictDoUpdate({
      target: [usageDaily.workspaceId, usageDaily.corpusId, usageDaily.day],
      set: { queries: sql`${usageDaily.queries} + ${n}` },
    })
    .run()
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
