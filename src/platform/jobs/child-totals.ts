// The sums over an aggregate job's children that its progress reads: every poll of a run and every
// batch's settle ask for them, so the query is prepared (once per result field), not built each time.
import { count, eq, type SQL, sql } from 'drizzle-orm'
import { Prepared, PreparedVariants } from '../db/prepared'
import type { Store } from '../db/store'
import { jobs } from './jobs.tables'

/** What an aggregate's children add up to. */
export interface ChildTotals {
  children: number
  ended: number
  unitsTotal: number
  unitsDone: number
  resultSum: number
}

/** The sum of the numbers job results hold at `field`, per dialect (JSON is text on both). */
function resultSum(store: Store, j: typeof jobs, field: string): SQL {
  if (store.dialect === 'sqlite') return sql`sum(json_extract(${j.result}, ${`$.${field}`}))`
  return sql`sum(((${j.result})::jsonb ->> ${field})::double precision)`
}

/** `JobsRepo.childTotals`' statements, one per result field summed ('' for none). */
export class ChildTotalsReads {
  private readonly byField = new PreparedVariants<string, Prepared<ChildTotals[]>>()

  constructor(private readonly store: Store) {}

  /**
   * How many children the aggregate has and have ended, their units, units done (all of a succeeded
   * child's), and with `resultField`, the numbers their results hold there; in one query.
   */
  async of(parentId: string, resultField?: string): Promise<ChildTotals> {
    const query = this.byField.of(resultField ?? '', () => this.prepare(resultField))
    const [row] = await query.execute({ parentId })
    return row ?? { children: 0, ended: 0, unitsTotal: 0, unitsDone: 0, resultSum: 0 }
  }

  private prepare(resultField: string | undefined): Prepared<ChildTotals[]> {
    const j = this.store.table(jobs)
    const num = (q: SQL) => sql`coalesce(${q}, 0)`.mapWith(Number)
    return new Prepared(this.store, (db) =>
      db
        .select({
          children: count(),
          ended: num(
            sql`sum(case when ${j.status} in ('succeeded', 'failed', 'canceled') then 1 else 0 end)`,
          ),
          unitsTotal: num(sql`sum(${j.unitsTotal})`),
          unitsDone: num(
            sql`sum(case when ${j.status} = 'succeeded' then ${j.unitsTotal} else ${j.unitsDone} end)`,
          ),
          resultSum: num(resultField === undefined ? sql`0` : resultSum(this.store, j, resultField)),
        })
        .from(j)
        .where(eq(j.parentId, sql.placeholder('parentId')))
        .prepare(),
    )
  }
}
