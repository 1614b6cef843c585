import type { Db } from './db'

/**
 * Runs `work` as one unit: its writes land together or not at all. Called inside another
 * transaction it becomes a savepoint of the outer one, so a repo method that must be atomic on its
 * own can wrap itself and still take part in a caller's larger unit (registering a batch of
 * documents with their sync run and extraction jobs, for example). `work` must be synchronous:
 * SQLite's transaction belongs to the connection, and an `await` inside would let other requests'
 * writes into it.
 */
export function transaction<T>(db: Db, work: () => T): T {
  return db.$client.transaction(work)()
}
