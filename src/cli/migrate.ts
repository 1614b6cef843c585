import type { Config } from '../platform/config/config.load'
import { openStores } from './runtime'

/**
 * `engram migrate`: applies the migrations this build has to the data dir's SQLite file and, when
 * `ENGRAM_DATABASE_URL` is set, to that PostgreSQL database, and prints what it applied to the
 * features' store (PostgreSQL's, when it is configured).
 */
export async function migrateCommand(config: Config): Promise<void> {
  const rt = await openStores(config)
  await rt.close()
  console.log(rt.applied.length ? `applied: ${rt.applied.join(', ')}` : 'database is up to date')
}
