import type { SQL } from 'bun'
import type { Migration } from './migrate'

/**
 * Every migrator of a database takes this advisory lock (transaction-scoped), so two processes
 * starting at once apply each migration once: the second waits, then finds it recorded.
 */
const MIGRATION_LOCK = 0x656e6772616d // "engram"

const LEDGER =
  'CREATE TABLE IF NOT EXISTS __engram_migrations (tag text PRIMARY KEY NOT NULL, applied_at bigint NOT NULL)'

/**
 * PostgreSQL's `migrate` (migrate.ts, same rules): applies, in order and each in its own
 * transaction, the migrations (migrations-pg) not yet recorded in the database's own ledger, and
 * refuses a database that has migrations this build does not know (a downgrade). Returns the tags
 * applied.
 */
export async function migratePg(
  client: SQL,
  migrations: readonly Migration[],
  now: () => number = Date.now,
): Promise<string[]> {
  await client.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
    await tx.unsafe(LEDGER)
  })
  const applied = new Set(
    ((await client`SELECT tag FROM __engram_migrations`) as { tag: string }[]).map((r) => r.tag),
  )
  const known = new Set(migrations.map((m) => m.tag))
  const unknown = [...applied].filter((t) => !known.has(t))
  if (unknown.length > 0) {
    throw new Error(
      `The database was migrated by a newer Engram (unknown migrations: ${unknown.join(', ')}). Refusing to start.`,
    )
  }
  const done: string[] = []
  for (const m of migrations) {
    if (applied.has(m.tag)) continue
    const ran = await client.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
      // Another process may have applied it while this one waited for the lock.
      if ((await tx`SELECT 1 FROM __engram_migrations WHERE tag = ${m.tag}`).length > 0) return false
      for (const stmt of m.sql.split('--> statement-breakpoint')) {
        if (stmt.trim()) await tx.unsafe(stmt)
      }
      await tx`INSERT INTO __engram_migrations (tag, applied_at) VALUES (${m.tag}, ${now()})`
      return true
    })
    if (ran) done.push(m.tag)
  }
  return done
}
