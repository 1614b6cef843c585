import { sql } from 'drizzle-orm'
import { rawRows } from '../../src/platform/db/raw'
import type { Store } from '../../src/platform/db/store'

/**
 * Locks of a type some PostgreSQL transaction waits for (pg_locks, read afresh by every statement):
 * `advisory` (a `holdInUnit` another unit holds), `transactionid` (a row another transaction writes).
 */
export async function waitingLocks(store: Store, type = 'advisory'): Promise<number> {
  const rows = await rawRows(
    store,
    sql`SELECT count(*) AS n FROM pg_locks WHERE locktype = ${type} AND NOT granted`,
  )
  return Number(rows[0]?.n ?? 0)
}

/**
 * Looks (at most 1,000 times, no timer) until some transaction waits for a lock of `type` or `done`
 * says to stop; the number waiting when it stopped.
 */
export async function untilWaiting(
  store: Store,
  opts: { type?: string; done?: () => boolean } = {},
): Promise<number> {
  let n = 0
  for (let i = 0; i < 1000 && !opts.done?.(); i++) {
    n = await waitingLocks(store, opts.type)
    if (n > 0) break
  }
  return n
}
