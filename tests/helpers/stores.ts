// Stores on both engines for tests that must hold on either: a migrated SQLite database in a
// directory of its own, and a migrated database on the test process's PostgreSQL (postgres.ts;
// skipped with the reason printed when there is none, unless CI requires it).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SQL } from 'bun'
import { drizzle } from 'drizzle-orm/bun-sql'
import { migrations } from '../../migrations/index'
import { migrations as pgMigrations } from '../../migrations-pg/index'
import { type Db, openDatabase } from '../../src/platform/db/db'
import { migrate } from '../../src/platform/db/migrate'
import { migratePg } from '../../src/platform/db/migrate-pg'
import { PostgresStore, SqliteStore, type Store } from '../../src/platform/db/store'
import { testPostgres } from './postgres'

/** A migrated store and how to close it. */
export interface OpenStore {
  store: Store
  close(): Promise<void>
}

/** One engine a test runs on: its name, and a new migrated store of it (null: skipped, with why). */
export interface Engine {
  name: 'sqlite' | 'postgres'
  skip: string | null
  open(): Promise<OpenStore>
}

/** SQLite, and PostgreSQL when the test process has one (see postgres.ts for when it must). */
export async function engines(): Promise<Engine[]> {
  const pg = await testPostgres()
  return [
    {
      name: 'sqlite',
      skip: null,
      async open() {
        const dir = mkdtempSync(join(tmpdir(), 'engram-store-'))
        const db = openDatabase(join(dir, 'engram.db'))
        migrate(db, migrations)
        return {
          store: new SqliteStore(db),
          async close() {
            db.$client.close()
            rmSync(dir, { recursive: true, force: true })
          },
        }
      },
    },
    {
      name: 'postgres',
      skip: pg.available ? null : pg.reason,
      async open() {
        if (!pg.available) throw new Error(pg.reason)
        const client = new SQL({ url: await pg.freshDatabase(), max: 4 })
        await migratePg(client, pgMigrations)
        return {
          store: new PostgresStore(drizzle({ client }) as unknown as Db),
          close: () => client.close(),
        }
      },
    },
  ]
}
