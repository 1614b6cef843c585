import { and, asc, eq, gt, gte, lte, or, type SQL } from 'drizzle-orm'
import type { Store } from '../../platform/db/store'
import { usageDaily as usageDailyDeclared } from './usage.tables'

/** A day's counters of one base (`corpusId` '' for the workspace-wide ones). */
export type UsageDayRow = typeof usageDailyDeclared.$inferSelect

/**
 * The next `limit` counter rows of a workspace between two days (inclusive), in (day, base) order,
 * strictly after the position `after`: an export reads them batch by batch.
 */
export async function usageRowsAfter(
  store: Store,
  workspaceId: string,
  range: { from: string; to: string },
  after: { day: string; corpusId: string } | null,
  limit: number,
): Promise<UsageDayRow[]> {
  const usageDaily = store.table(usageDailyDeclared)
  const where: (SQL | undefined)[] = [
    eq(usageDaily.workspaceId, workspaceId),
    gte(usageDaily.day, range.from),
    lte(usageDaily.day, range.to),
  ]
  if (after) {
    where.push(
      or(
        gt(usageDaily.day, after.day),
        and(eq(usageDaily.day, after.day), gt(usageDaily.corpusId, after.corpusId)),
      ),
    )
  }
  return store.db
    .select()
    .from(usageDaily)
    .where(and(...where))
    .orderBy(asc(usageDaily.day), asc(usageDaily.corpusId))
    .limit(limit)
}
