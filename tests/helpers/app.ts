import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrations } from '../../migrations/index'
import { type App, type AppDeps, createApp } from '../../src/app'
import { ManualClock } from '../../src/platform/clock/clock'
import { type Config, loadConfig } from '../../src/platform/config/config.load'
import { seededRandom } from '../../src/platform/crypto/random'
import { type Db, openDatabase } from '../../src/platform/db/db'
import { migrate } from '../../src/platform/db/migrate'
import { connectPostgres } from '../../src/platform/db/open-postgres'
import type { RouteDef } from '../../src/platform/http/route'
import { memoryLogger } from '../../src/platform/log/log'
import { createObjectStore } from '../../src/platform/storage/create-object-store'
import type { ObjectStore } from '../../src/platform/storage/object-store'
import { testPostgresSync } from './postgres'
import { postgresSql, sqliteSql, type TestSql } from './test-sql'
import { testStorageEnv } from './test-storage'

/** A test app on a fresh data dir and database, with a manual clock and seeded randomness. */
export interface TestApp extends App {
  deps: AppDeps
  db: Db
  clock: ManualClock
  log: ReturnType<typeof memoryLogger>
  dataDir: string
  /**
   * Sends a request through `app.handle`; `path` is relative to http://engram.test. `peer` is the
   * socket address the request seems to come from (in process, there is none: this machine).
   */
  request(path: string, init?: RequestInit & { json?: unknown; peer?: string }): Promise<Response>
  /** Raw SQL on the app's database, on whichever engine it runs (test-sql.ts). */
  sql: TestSql
  /** The PostgreSQL database the features run on (for a CLI given ENGRAM_DATABASE_URL), or null on SQLite. */
  databaseUrl: string | null
  close(): void
}

/** Options: environment overrides (ENGRAM_* names) and extra routes. */
export interface TestAppOptions {
  env?: Record<string, string>
  extraRoutes?: RouteDef[]
  seed?: number
  /**
   * Another object store (an S3 test server) instead of the configured one: local files under the
   * data dir, or in the PostgreSQL pass a bucket on the pass's S3 server (test-storage.ts). A test
   * about local files by nature says ENGRAM_STORAGE=local in `env`.
   */
  objects?: ObjectStore
  /** An existing data dir to open (kept by `close`); a fresh one by default. */
  dataDir?: string
  /**
   * The features' state on this PostgreSQL database (migrated) instead of the data dir's file; null
   * keeps it in the file whatever ENGRAM_TEST_DATABASE says.
   */
  postgresUrl?: string | null
}

/** Builds the real app in-process, as tests through `app.handle` need it. */
export function testApp(opts: TestAppOptions = {}): TestApp {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'engram-test-'))
  // Tests make many workspaces: registration stays on unless a test sets the switch itself. Links
  // come back in the answers (ENGRAM_EMAIL=disabled) so tests can follow them; the default, `log`,
  // has its own tests (tests/api/link-delivery.test.ts).
  const env: Record<string, string> = {
    ENGRAM_DATA_DIR: dataDir,
    ENGRAM_RATE_LIMITS: 'off',
    ENGRAM_REGISTRATION: 'on',
    ENGRAM_EMAIL: 'disabled',
    // In the PostgreSQL pass the objects go to S3 through the real settings, unless the test brings
    // its own store or keeps the app on SQLite (postgresUrl: null).
    ...(opts.objects || opts.postgresUrl === null ? {} : testStorageEnv(dataDir)),
    ...opts.env,
  }
  const config: Config = loadConfig({ env, readFile: () => null })
  const db = openDatabase(join(dataDir, 'engram.db'))
  migrate(db, migrations)
  // ENGRAM_TEST_DATABASE=postgres runs the app's features on a PostgreSQL database of its own (a copy
  // of a migrated template), the engine's index staying in the SQLite file (docs/data-layer.md).
  const pg = opts.postgresUrl
    ? { ...connectPostgres(opts.postgresUrl, { max: 4 }), url: opts.postgresUrl }
    : opts.postgresUrl === undefined && process.env.ENGRAM_TEST_DATABASE === 'postgres'
      ? appPostgres()
      : null
  const clock = new ManualClock('2026-03-01T12:00:00Z')
  const log = memoryLogger()
  const deps: AppDeps = {
    config,
    db,
    ...(pg ? { store: pg.store } : {}),
    clock,
    random: seededRandom(opts.seed ?? 7),
    log,
    secret: 'test-secret-test-secret-test-secret-0123456789',
    objects: opts.objects ?? createObjectStore(config, dataDir, { clock }),
    extraRoutes: opts.extraRoutes,
  }
  const app = createApp(deps)
  // The events a request emitted are delivered before the test sees its answer, as a started
  // dispatcher would shortly after: tests read the subscribers' rows (audit, usage) deterministically.
  // A streamed answer emits while it streams; those are delivered before its last byte is read.
  const settled = async (pending: Promise<Response>): Promise<Response> => {
    const res = await pending
    await app.events.dispatcher.drain()
    if (!res.body) return res
    const tail = new TransformStream<Uint8Array, Uint8Array>({ flush: () => app.events.dispatcher.drain() })
    return new Response(res.body.pipeThrough(tail), res)
  }
  return {
    ...app,
    handle: (request, server) => settled(app.handle(request, server)),
    deps,
    db,
    clock,
    log,
    dataDir,
    sql: pg ? postgresSql(pg.client, pg.url, pg.store.commits) : sqliteSql(db.$client),
    databaseUrl: pg?.url ?? null,
    async request(path, init = {}) {
      const { json, peer, ...rest } = init
      const headers = new Headers(rest.headers)
      if (json !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json')
      return settled(
        app.handle(
          new Request(`http://engram.test${path}`, {
            ...rest,
            headers,
            body: json !== undefined ? JSON.stringify(json) : rest.body,
          }),
          peer === undefined ? undefined : { requestIP: () => ({ address: peer }) },
        ),
      )
    },
    close() {
      void app.store.close()
      void pg?.close()
      db.$client.close()
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** A store on a fresh migrated PostgreSQL database, for an app built synchronously. */
function appPostgres() {
  const pg = testPostgresSync()
  if (!pg.available)
    throw new Error(`ENGRAM_TEST_DATABASE=postgres, but no PostgreSQL could be started: ${pg.reason}`)
  const url = pg.migratedDatabaseSync()
  return { ...connectPostgres(url, { max: 4 }), url }
}
