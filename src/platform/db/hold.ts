import { type SQL, sql } from 'drizzle-orm'
import type { Store } from './store'

/** A drizzle PostgreSQL handle's raw statement (the store's `db` is typed as SQLite's). */
interface Executes {
  execute(query: SQL): Promise<unknown>
}

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
  await (store.db as unknown as Executes).execute(
    sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`,
  )
}
