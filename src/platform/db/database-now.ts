import { sql } from 'drizzle-orm'
import { rawRows } from './raw'
import type { Store } from './store'

/**
 * The database's clock, in ms since the epoch (PostgreSQL's `now()`, in a statement of its own); null
 * on SQLite, whose processes share this machine's clock.
 */
export async function databaseNow(store: Store): Promise<number | null> {
  if (store.dialect !== 'postgres') return null
  const rows = await rawRows(store, sql`SELECT (extract(epoch FROM now()) * 1000)::float8 AS ms`)
  return Number(rows[0]?.ms)
}
