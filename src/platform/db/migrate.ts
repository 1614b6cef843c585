import type { Db } from './db'

/** One generated migration: its drizzle-kit tag and SQL (statements split by breakpoints). */
export interface Migration {
  tag: string
  sql: string
}

/**
 * Applies, in order and each in its own transaction, the migrations not yet recorded in the
 * database. Refuses a database that has migrations this build does not know (a downgrade).
 * Returns the tags applied.
 */
export function migrate(db: Db, migrations: readonly Migration[], now: () => number = Date.now): string[] {
  const c = db.$client
  c.exec(
    'CREATE TABLE IF NOT EXISTS __engram_migrations (tag TEXT PRIMARY KEY NOT NULL, applied_at INTEGER NOT NULL)',
  )
  const applied = new Set(
    c
      .query<{ tag: string }, []>('SELECT tag FROM __engram_migrations')
      .all()
      .map((r) => r.tag),
  )
  const known = new Set(migrations.map((m) => m.tag))
  const unknown = [...applied].filter((t) => !known.has(t))
  if (unknown.length > 0) {
    throw new Error(
      `The database was migrated by a newer Engram (unknown migrations: ${unknown.join(', ')}). Refusing to start.`,
    )
  }
  const done: string[] = []
  const record = c.query('INSERT INTO __engram_migrations (tag, applied_at) VALUES (?, ?)')
  for (const m of migrations) {
    if (applied.has(m.tag)) continue
    c.transaction(() => {
      for (const stmt of m.sql.split('--> statement-breakpoint')) {
        if (stmt.trim()) c.exec(stmt)
      }
      record.run(m.tag, now())
    })()
    done.push(m.tag)
  }
  return done
}
