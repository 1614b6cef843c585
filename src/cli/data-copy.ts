// `engram export-data` and `engram import-data`: move a data dir's state between its SQLite file and
// PostgreSQL, and its objects between local files and the configured S3 bucket, with counts checked
// (docs/data-layer.md, "Moving a data dir"). The engine's index stays in the data dir's SQLite file
// on both engines, so it does not move.
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { SQLiteTable } from 'drizzle-orm/sqlite-core'
import { migrations } from '../../migrations/index'
import { migrations as pgMigrations } from '../../migrations-pg/index'
import { ENGINE_INDEX_TABLES } from '../features/engine/engine.index-tables'
import type { Config } from '../platform/config/config.load'
import { type CopiedTable, copyTables } from '../platform/db/copy'
import { postgresTarget, sqliteTarget } from '../platform/db/copy-targets'
import { openDatabase } from '../platform/db/db'
import { migrate } from '../platform/db/migrate'
import { openPostgres } from '../platform/db/open-postgres'
import { sqliteStore } from '../platform/db/store'
import { copyObjects } from '../platform/storage/copy-objects'
import { createObjectStore } from '../platform/storage/create-object-store'
import { CliError } from './cli-error'
import type { CliIo } from './io'

export const DATA_USAGE = `Usage: engram export-data | import-data [--data DIR]

  export-data  Copy the data dir's state into the PostgreSQL database of ENGRAM_DATABASE_URL (which
               must be empty: migrate it first, or let this command do it), and its objects into the
               S3 bucket when ENGRAM_STORAGE=s3. Then start engram serve with the same settings.
  import-data  Copy the state of ENGRAM_DATABASE_URL back into the data dir's SQLite file (its rows
               there are replaced), and the bucket's objects into the data dir when ENGRAM_STORAGE=s3.
               Then start engram serve without ENGRAM_DATABASE_URL (and with ENGRAM_STORAGE=local).

Stop every server of the data dir first. Each table is copied in one transaction of the target's and
counted on both sides; a difference leaves the target as it was. The engine's index stays in the
data dir's SQLite file, which serves both ways.`

/** The tables that move: every declared table but the engine's index (SQLite on both engines). */
async function movedTables(): Promise<SQLiteTable[]> {
  const { declaredTables } = await import('../../migrations-pg/schema')
  const engine = new Set<unknown>(ENGINE_INDEX_TABLES)
  return declaredTables.filter((t) => !engine.has(t)) as SQLiteTable[]
}

/** Runs `export-data` (`to: 'postgres'`) or `import-data` (`to: 'sqlite'`). */
export async function dataCopyCommand(
  config: Config,
  to: 'postgres' | 'sqlite',
  io: Pick<CliIo, 'out'>,
): Promise<number> {
  const url = config.data.database_url
  if (!url)
    throw new CliError(
      `ENGRAM_DATABASE_URL names the PostgreSQL database to copy ${to === 'postgres' ? 'into' : 'from'}.\n\n${DATA_USAGE}`,
      2,
    )
  const dataDir = resolve(config.data.dir)
  const db = openDatabase(`${dataDir}/engram.db`)
  migrate(db, migrations)
  const pg = await openPostgres(url, pgMigrations).catch((e) => {
    db.$client.close()
    throw e
  })
  try {
    const tables = await movedTables()
    const sqlite = sqliteStore(db)
    const counts =
      to === 'postgres'
        ? await copyTables(sqlite, postgresTarget(pg.store), tables)
        : await copyTables(pg.store, sqliteTarget(db, { replace: true }), tables)
    io.out(report(counts))
    if (config.storage.driver === 's3') {
      const local = createObjectStore({ storage: { ...config.storage, driver: 'local' } }, dataDir)
      const bucket = createObjectStore(config, dataDir)
      const moved = to === 'postgres' ? await copyObjects(local, bucket) : await copyObjects(bucket, local)
      const same = moved.target.objects === moved.objects && moved.target.bytes === moved.bytes
      io.out(
        `objects: ${moved.objects} (${moved.bytes} bytes) copied, ${moved.target.objects} (${moved.target.bytes} bytes) found at the target`,
      )
      if (!same) throw new CliError('the objects found at the target differ from those copied', 1)
    } else {
      io.out('objects: stay in the data dir (ENGRAM_STORAGE=local)')
    }
    // What the data dir's own secret signed and sealed (sessions, connection credentials) opens only
    // with it: every process on the database is to be given it (a server there never generates one).
    if (to === 'postgres' && !config.security.secret && existsSync(join(dataDir, 'secret')))
      io.out(
        `secret: start every server on the database with ENGRAM_SECRET set to the contents of ${join(dataDir, 'secret')}`,
      )
    return 0
  } finally {
    await pg.close()
    await sqliteStore(db).close()
    db.$client.close()
  }
}

/** One line a table: its rows read and written. */
function report(counts: CopiedTable[]): string {
  const width = Math.max(...counts.map((c) => c.table.length))
  const total = counts.reduce((n, c) => n + c.target, 0)
  return [
    ...counts.map(
      (c) =>
        `${c.table.padEnd(width)}  ${String(c.source).padStart(8)} read  ${String(c.target).padStart(8)} written`,
    ),
    `${counts.length} tables, ${total} rows, every count the same on both sides`,
  ].join('\n')
}
