import { drizzle } from 'drizzle-orm/bun-sqlite'
import type { Db } from '../../src/platform/db/db'
import { type Store, sqliteStore } from '../../src/platform/db/store'
import { watchedClient } from './watched-statements'

/**
 * The SQLite store of `db` whose reads outside units run on `db`'s own connection, watched: each
 * statement run calls `ran` with its SQL (watched-statements.ts), so a test can count or inspect
 * what a repository on the store executes. Units run as the store's own.
 */
export function watchedStore(db: Db, ran: (sql: string) => void): Store {
  const inner = sqliteStore(db)
  const watched = drizzle({ client: watchedClient(db.$client, ran) }) as unknown as Db
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'db') return target.inUnit() ? target.db : watched
      const v = Reflect.get(target, prop, target)
      return typeof v === 'function' ? v.bind(target) : v
    },
  })
}
