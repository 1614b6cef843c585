import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { migrations } from '../../migrations/index'
import type { AppDeps } from '../app'
import { systemClock } from '../platform/clock/clock'
import { type Config, loadConfig } from '../platform/config/config.load'
import { base62, cryptoRandom } from '../platform/crypto/random'
import { openDatabase } from '../platform/db/db'
import { migrate } from '../platform/db/migrate'
import { type Store, sqliteStore } from '../platform/db/store'
import { privateDir } from '../platform/files/private-files'
import { createLogger } from '../platform/log/log'
import { createObjectStore } from '../platform/storage/create-object-store'

/** Loads configuration from the process environment and the config file. */
export function configFromProcess(env: Record<string, string | undefined>): Config {
  return loadConfig({
    env,
    readFile: (path) => (existsSync(path) ? readFileSync(path, 'utf8') : null),
  })
}

/**
 * Returns the configured signing secret, or the one generated into the data dir on first start
 * (created exclusively and readable by the owner only). With PostgreSQL there is none generated:
 * every process on one database signs sessions and seals stored secrets with it, so all must be
 * given the same (docs/deployment.md); a data dir moved there (export-data) names its own.
 */
export function resolveSecret(config: Config, dataDir: string): string {
  if (config.security.secret) return config.security.secret
  const file = join(dataDir, 'secret')
  if (config.data.database_url) {
    const keep = existsSync(file)
      ? `To keep what this data dir's own secret signed and sealed, set ENGRAM_SECRET to the contents of ${file}.`
      : 'Make one with `openssl rand -base64 48` and give it to every process.'
    throw new Error(
      `ENGRAM_SECRET must be set with ENGRAM_DATABASE_URL: every process on the database signs sessions and seals stored secrets with it, so all must share one. ${keep}`,
    )
  }
  if (!existsSync(file)) {
    try {
      writeFileSync(file, `${base62(cryptoRandom, 64)}\n`, { flag: 'wx', mode: 0o600 })
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
    }
  }
  chmodSync(file, 0o600)
  const secret = readFileSync(file, 'utf8').trim()
  if (secret.length < 32)
    throw new Error(`${file} holds a secret shorter than 32 characters; delete it or fix it.`)
  return secret
}

/** What a command runs on: the app's dependencies, with the store always set, and how to close them. */
export type CliRuntime = AppDeps & {
  store: Store
  dataDir: string
  /** The migrations this opening applied: the store's (PostgreSQL's, when it is the store). */
  applied: string[]
  /** Closes the store's connections and the SQLite file. */
  close(): Promise<void>
}

/**
 * Opens the data dir and its SQLite file (the engine's index on either engine; everything when no
 * PostgreSQL is configured) and, with `ENGRAM_DATABASE_URL`, the PostgreSQL store, applies both
 * engines' migrations, and returns the app's dependencies (docs/data-layer.md).
 */
export async function openRuntime(config: Config): Promise<CliRuntime> {
  const log = createLogger(config.server.log_level)
  const opened = await openStores(config, log)
  let secret: string
  try {
    secret = resolveSecret(config, opened.dataDir)
  } catch (e) {
    await opened.close()
    throw e
  }
  return {
    ...opened,
    config,
    clock: systemClock,
    random: cryptoRandom,
    log,
    secret,
    objects: createObjectStore(config, opened.dataDir, { clock: systemClock }),
  }
}

/** The data dir's SQLite file and the features' store (PostgreSQL's when configured), migrated. */
export type OpenStores = Pick<CliRuntime, 'db' | 'store' | 'dataDir' | 'applied' | 'close'>

/**
 * Opens the data dir and its SQLite file and, with `ENGRAM_DATABASE_URL`, the PostgreSQL store, and
 * applies both engines' migrations: all `engram migrate` needs (no secret, no object store).
 */
export async function openStores(
  config: Config,
  log = createLogger(config.server.log_level),
): Promise<OpenStores> {
  const dataDir = resolve(config.data.dir)
  // Owner-only, and tightened when an older version left it 0755 (see private-files.ts).
  if (!privateDir(dataDir)) {
    log.warn('the data dir is not owned by this user, so it cannot be made readable by its owner only', {
      data_dir: dataDir,
      hint: 'chown it to the user the server runs as, or chmod 700 it',
    })
  }
  const db = openDatabase(join(dataDir, 'engram.db'))
  const sqliteApplied = migrate(db, migrations)
  const pg = config.data.database_url
    ? await openPostgresStore(config.data.database_url).catch((e) => {
        db.$client.close()
        throw e
      })
    : null
  return {
    db,
    store: pg?.store ?? sqliteStore(db),
    dataDir,
    applied: pg?.applied ?? sqliteApplied,
    async close() {
      await pg?.close()
      await sqliteStore(db).close()
      db.$client.close()
    },
  }
}

/**
 * The PostgreSQL store with its migrations applied. Its modules (the driver's, the tables' twins, the
 * migrations' text) are imported only here, so a server on SQLite never loads them.
 */
async function openPostgresStore(url: string) {
  const [{ openPostgres }, { migrations: pgMigrations }] = await Promise.all([
    import('../platform/db/open-postgres'),
    import('../../migrations-pg/index'),
  ])
  return openPostgres(url, pgMigrations)
}
