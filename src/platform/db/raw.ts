import { type SQL, sql } from 'drizzle-orm'
import type { Store } from './store'

/**
 * Runs a statement drizzle's builder cannot write (a recursive CTE, an advisory lock, a DDL
 * statement) on the store's handle of the moment (a unit's transaction, or the engine's own), and
 * answers its rows on either engine: bun:sqlite's drizzle calls it `all`, PostgreSQL's `execute`.
 * Integers come back as strings from PostgreSQL here (no table's columns map them).
 */
export async function rawRows(store: Store, query: SQL): Promise<Record<string, unknown>[]> {
  if (store.dialect === 'sqlite') return store.db.all(query)
  const rows = await (store.db as unknown as { execute(q: SQL): Promise<Record<string, unknown>[]> }).execute(
    query,
  )
  return [...rows]
}

/** Asks the store's database a trivial question (`SELECT 1`); throws when it does not answer. */
export async function pingStore(store: Store): Promise<void> {
  await rawRows(store, sql`SELECT 1`)
}
