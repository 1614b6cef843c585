import { describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrations } from '../../migrations/index'
import { openDatabase } from '../../src/platform/db/db'
import { migrate } from '../../src/platform/db/migrate'

const tables = (db: ReturnType<typeof openDatabase>) =>
  db.$client
    .query<{ name: string }, []>(
      "SELECT name FROM sqlite_master WHERE type IN ('table','view') ORDER BY name",
    )
    .all()
    .map((r) => r.name)

describe('migrations', () => {
  test('every prefix of the migration list applies to an empty database, then the rest on top', () => {
    for (let n = 0; n <= migrations.length; n++) {
      const db = openDatabase(':memory:')
      expect(migrate(db, migrations.slice(0, n))).toHaveLength(n)
      expect(migrate(db, migrations)).toHaveLength(migrations.length - n)
      expect(migrate(db, migrations)).toHaveLength(0)
      db.$client.close()
    }
  })

  test('the full list creates the platform tables and the migration ledger', () => {
    const fresh = openDatabase(':memory:')
    migrate(fresh, migrations)
    expect(tables(fresh)).toContain('idempotency_keys')
    expect(tables(fresh)).toContain('__engram_migrations')
  })

  test('a database migrated by a newer build is refused', () => {
    const db = openDatabase(':memory:')
    migrate(db, [...migrations, { tag: '9999_future', sql: 'CREATE TABLE future (id INTEGER)' }])
    expect(() => migrate(db, migrations)).toThrow('unknown migrations: 9999_future')
  })

  test('a failing migration leaves nothing of itself behind', () => {
    const db = openDatabase(':memory:')
    const bad = { tag: '0999_bad', sql: 'CREATE TABLE half (id INTEGER);\n--> statement-breakpoint\nNOT SQL' }
    expect(() => migrate(db, [bad])).toThrow()
    expect(tables(db)).not.toContain('half')
    expect(migrate(db, migrations)).toHaveLength(migrations.length)
  })

  test('the database runs in WAL mode with foreign keys and a busy timeout', () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-pragma-'))
    const db = openDatabase(join(dir, 'engram.db'))
    expect(db.$client.query<{ journal_mode: string }, []>('PRAGMA journal_mode').get()?.journal_mode).toBe(
      'wal',
    )
    expect(db.$client.query<{ foreign_keys: number }, []>('PRAGMA foreign_keys').get()?.foreign_keys).toBe(1)
    expect(db.$client.query<{ timeout: number }, []>('PRAGMA busy_timeout').get()?.timeout).toBe(5000)
    db.$client.close()
    rmSync(dir, { recursive: true })
  })
})
