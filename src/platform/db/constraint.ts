/**
 * Whether an error is a unique or primary-key rule refusing a write, on either engine: bun:sqlite's
 * `SQLITE_CONSTRAINT_UNIQUE` / `_PRIMARYKEY` code, or PostgreSQL's SQLSTATE 23505, however drizzle
 * wrapped it (the server's error is a `cause`). On PostgreSQL that error aborts the transaction: the
 * unit it happened in must end, not go on.
 */
export function isUniqueViolation(e: unknown): boolean {
  for (
    let c = e as { code?: unknown; errno?: unknown; cause?: unknown } | undefined;
    c;
    c = c.cause as typeof c
  ) {
    if (typeof c !== 'object') return false
    if (c.code === 'SQLITE_CONSTRAINT_UNIQUE' || c.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return true
    if (c.code === '23505' || c.errno === '23505') return true
  }
  return false
}
