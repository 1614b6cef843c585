import { lte, sql } from 'drizzle-orm'
import { Prepared } from '../db/prepared'
import type { Store } from '../db/store'
import { rateLimitWindows } from './rate-limit.tables'

/** A window as a hit left it: how many hits it has counted (at most the limit + 1) and when it ends. */
export interface CountedWindow {
  count: number
  windowEnd: number
}

const p = (name: string) => sql.placeholder(name)

/**
 * The rate-limit windows, on either engine. A hit is one prepared upsert: a new window, or one past
 * its end started again, counts 1; a running one counts one more, up to the limit + 1 (refused hits
 * past it are not added up). On PostgreSQL ON CONFLICT DO UPDATE locks the row, so hits from every
 * process at once are each counted once; on SQLite there is one writer.
 */
export class RateLimitRepo {
  private readonly count: Prepared<CountedWindow[]>
  private readonly sweep: Prepared<unknown>

  constructor(private readonly store: Store) {
    this.count = new Prepared(store, (db) => {
      const t = store.table(rateLimitWindows)
      const over = sql`${t.windowEnd} <= ${p('now')}`
      return db
        .insert(t)
        .values({ name: p('name'), key: p('key'), count: 1, windowEnd: p('end') })
        .onConflictDoUpdate({
          target: [t.name, t.key],
          set: {
            count: sql`CASE WHEN ${over} THEN 1 WHEN ${t.count} > ${p('max')} THEN ${t.count} ELSE ${t.count} + 1 END`,
            windowEnd: sql`CASE WHEN ${over} THEN ${p('end')} ELSE ${t.windowEnd} END`,
          },
        })
        .returning({ count: t.count, windowEnd: t.windowEnd })
        .prepare()
    })
    this.sweep = new Prepared(store, (db) => {
      const t = store.table(rateLimitWindows)
      return db
        .delete(t)
        .where(lte(t.windowEnd, p('now')))
        .prepare()
    })
  }

  /** Counts a hit of `name` for `key` (already hashed) at `now`, in a window of `windowMs`; returns the window. */
  async hit(name: string, key: string, now: number, windowMs: number, max: number): Promise<CountedWindow> {
    // Quiet: no memo keeps these rows.
    const rows = await this.store.unit(
      () => this.count.execute({ name, key, now, end: now + windowMs, max }),
      { quiet: true },
    )
    const row = rows[0]!
    return { count: Number(row.count), windowEnd: Number(row.windowEnd) }
  }

  /** Deletes the windows ended by `now` (the next hit of their key starts a new one anyway). */
  async removeEnded(now: number): Promise<void> {
    await this.store.unit(() => this.sweep.execute({ now }), { quiet: true })
  }
}
