import type { Database, Statement } from 'bun:sqlite'

/** Statements a connection keeps prepared, most recently used last; past it the least recent is let go. */
export const STATEMENT_CACHE_SIZE = 256

/**
 * Makes the connection's `prepare` answer a statement it prepared before for the same SQL, instead of
 * compiling the SQL again. drizzle's builder prepares a statement on every call it makes on SQLite
 * (`session.prepareQuery`), and SQLite's compilation is most of a small query's cost: an upload of 24
 * files prepared about 200 statements, the same few SQL texts again and again (bench/RESULTS.md,
 * issue 38, session 31).
 *
 * Sharing a statement is safe on bun:sqlite: a statement runs to its end inside one synchronous
 * call (`run`, `all`, `get`, `values`), and each call binds its own parameters. A statement let go
 * is not finalized (a caller may still hold it: `Prepared`, a repository's own); the collector
 * finalizes it once no one does. At most `max` are kept, so SQL that varies (an `IN` list's length)
 * cannot grow the cache without bound.
 */
export function cacheStatements(client: Database, max = STATEMENT_CACHE_SIZE): void {
  const prepare = client.prepare.bind(client)
  const kept = new Map<string, Statement>()
  client.prepare = ((sql: string, ...params: unknown[]) => {
    // A statement prepared with bound parameters is that caller's own.
    if (params.length > 0) return prepare(sql, ...(params as []))
    let statement = kept.get(sql)
    if (statement) {
      kept.delete(sql)
    } else {
      statement = prepare(sql)
      if (kept.size >= max) kept.delete(kept.keys().next().value!)
    }
    kept.set(sql, statement)
    return statement
  }) as Database['prepare']
}
