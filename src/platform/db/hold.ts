import { sql } from 'drizzle-orm'
import { rawRows } from './raw'
import type { Store } from './store'

/**
 * Makes the calling unit the only one holding `key` until it ends, for a read-check-write that two
 * units must not both pass (a count against a plan's cap, then the insert): on PostgreSQL a
 * transaction-scoped advisory lock on the key's 64-bit hash (two transactions would otherwise both
 * read before either writes); on SQLite nothing, a unit holds the one write lock. Called in the
 * unit before its first read of what it checks.
 */
export async function holdInUnit(store: Store, key: string): Promise<void> {
  if (!store.inUnit()) throw new Error(`holdInUnit(${key}) outside a unit of work`)
  if (store.dialect !== 'postgres') return
  await rawRows(store, sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`)
}
