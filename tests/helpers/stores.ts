// Stores on both engines for tests that must hold on either: a migrated SQLite database in a
// directory of its own, and a migrated database on the test process's PostgreSQL (postgres.ts;
// skipped with the reason printed when there is none, unless CI requires it).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrations } from '../../migrations/index'
import { migrations as pgMigrations } from '../../migrations-pg/index'
import { corpora } from '../../src/features/corpora/corpora.tables'
import { workspaces } from '../../src/features/workspaces/workspaces.tables'
import type { Principal } from '../../src/platform/auth/principal'
import { type Db, openDatabase } from '../../src/platform/db/db'
import { migrate } from '../../src/platform/db/migrate'
import { openPostgres } from '../../src/platform/db/open-postgres'
import { type Store, sqliteStore } from '../../src/platform/db/store'
import { ApiError } from '../../src/platform/errors/errors'
import { testPostgres } from './postgres'

/** A migrated store and how to close it. */
export interface OpenStore {
  store: Store
  /** A store of the same database on connections of its own, as another process would have. */
  another(): Promise<OpenStore>
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
        const file = join(dir, 'engram.db')
        const db = openDatabase(file)
        migrate(db, migrations)
        const extra: Db[] = []
        const another = async (): Promise<OpenStore> => {
          const other = openDatabase(file)
          extra.push(other)
          return { store: sqliteStore(other), another, close: async () => {} }
        }
        return {
          store: sqliteStore(db),
          another,
          async close() {
            for (const d of [...extra, db]) {
              await sqliteStore(d).close()
              d.$client.close()
            }
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
        const url = await pg.freshDatabase()
        const closers: (() => Promise<void>)[] = []
        // Each store is a process's: a pool and a listener of its own (the migrations run once).
        const connect = async (): Promise<OpenStore> => {
          const opened = await openPostgres(url, pgMigrations, { max: 4 })
          closers.push(opened.close)
          return { store: opened.store, another: connect, close: async () => {} }
        }
        const first = await connect()
        return {
          ...first,
          async close() {
            for (const close of closers) await close()
          },
        }
      },
    },
  ]
}

/**
 * The tenants other rows point at, written in one unit: workspaces (on `plan`), then bases
 * (`corpora`) in the workspace each names. Every time is `at`.
 */
export async function seedTenants(
  store: Store,
  o: { workspaces: string[]; bases?: { id: string; workspaceId: string }[]; plan?: string; at: number },
): Promise<void> {
  await store.unit(async () => {
    for (const id of o.workspaces) {
      await store.db
        .insert(store.table(workspaces))
        .values({ id, name: id, plan: o.plan ?? 'beta', createdAt: o.at, updatedAt: o.at })
    }
    for (const b of o.bases ?? []) {
      await store.db
        .insert(store.table(corpora))
        .values({ id: b.id, workspaceId: b.workspaceId, name: b.id, createdAt: o.at, updatedAt: o.at })
    }
  })
}

/** A workspace admin's session, as the store tests act: every scope, every base. */
export function sessionAdmin(workspaceId = 'ws_1', userId = 'usr_1'): Principal {
  return { kind: 'session', workspaceId, userId, role: 'admin', scopes: null, keyId: null, corpusIds: null }
}

/** What a call came to: 'ok', or the code of the ApiError it threw (anything else is rethrown). */
export async function outcomeCode(p: Promise<unknown>): Promise<string> {
  try {
    await p
    return 'ok'
  } catch (e) {
    if (e instanceof ApiError) return e.code
    throw e
  }
}
