// What a failed statement means, on either engine: the server's own error is a `cause` of drizzle's
// (DrizzleQueryError, whose message quotes the statement and its parameters, or DrizzleError).
import { DrizzleError, DrizzleQueryError } from 'drizzle-orm'

/** Drizzle's wrap of a statement the database refused (the server's error its `cause`). */
function isStatementError(e: Error): e is Error & { cause: Error } {
  return (e instanceof DrizzleQueryError || e instanceof DrizzleError) && e.cause instanceof Error
}

type Failure = { code?: unknown; errno?: unknown; cause?: unknown } | undefined

/** The codes of `e` and of each error it was caused by (bun:sqlite's `code`, PostgreSQL's SQLSTATE). */
function* codesOf(e: unknown): Generator<unknown> {
  for (let c = e as Failure; c && typeof c === 'object'; c = c.cause as Failure) {
    yield c.code
    yield c.errno
  }
}

/**
 * Whether an error is a unique or primary-key rule refusing a write: bun:sqlite's
 * `SQLITE_CONSTRAINT_UNIQUE` / `_PRIMARYKEY` code, or PostgreSQL's SQLSTATE 23505. On PostgreSQL
 * that error aborts the transaction: the unit it happened in must end, not go on.
 */
export function isUniqueViolation(e: unknown): boolean {
  for (const code of codesOf(e)) {
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505')
      return true
  }
  return false
}

/**
 * Whether a unit failed only for meeting another at once, and would pass if run again: PostgreSQL's
 * deadlock (40P01, the server ended one of two units waiting for each other's rows) or serialization
 * failure (40001).
 */
export function isConflict(e: unknown): boolean {
  for (const code of codesOf(e)) if (code === '40P01' || code === '40001') return true
  return false
}

/**
 * The message to record for an error: for a failed statement, the database's reason ("deadlock
 * detected") rather than drizzle's, which quotes the statement and the values it was given.
 */
export function reasonOf(e: unknown): string {
  if (!(e instanceof Error)) return String(e)
  return isStatementError(e) ? `A database statement failed: ${e.cause.message}` : e.message
}

/**
 * What a log line says of an error: its stack, with a failed statement's reason (reasonOf) in place of
 * drizzle's message, so no value a statement was given reaches the log.
 */
export function stackOf(e: unknown): string {
  if (!(e instanceof Error)) return String(e)
  if (!isStatementError(e)) return e.stack ?? e.message
  const frames = (e.stack ?? '').split('\n').filter((l) => l.startsWith('    at '))
  return [reasonOf(e), ...frames].join('\n')
}
