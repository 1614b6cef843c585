import { migrations as pgMigrations } from '../../migrations-pg/index'
import type { Config } from '../platform/config/config.load'
import { openPostgres } from '../platform/db/open-postgres'
import { openRuntime } from './runtime'

/**
 * `engram migrate`: applies the migrations this build has to the configured database, PostgreSQL
 * when `ENGRAM_DATABASE_URL` is set, else the data dir's SQLite file, and prints what it applied.
 */
export async function migrateCommand(config: Config): Promise<void> {
  const url = config.data.database_url
  if (url) {
    const pg = await openPostgres(url, pgMigrations, { max: 1 })
    await pg.close()
    return void console.log(report(pg.applied))
  }
  const rt = openRuntime(config)
  console.log(report(rt.applied))
  rt.db.$client.close()
}

function report(applied: string[]): string {
  return applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date'
}
