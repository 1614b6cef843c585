import { SQL } from 'bun'
import { drizzle } from 'drizzle-orm/bun-sql'
import type { Db } from './db'
import type { Migration } from './migrate'
import { migratePg } from './migrate-pg'
import { PostgresStore } from './store.postgres'

/** A store on a PostgreSQL database, its migrations applied, and how to close what it opened. */
export interface OpenPostgres {
  store: PostgresStore
  /** The tags of the migrations this opening applied. */
  applied: string[]
  close(): Promise<void>
}

/** How many pooled connections a process keeps by default; the listener has one of its own. */
const POOL = 10

/**
 * Settings of each connection. JIT compilation off: the job queue's claim (a recursive CTE, claim.ts)
 * is estimated above PostgreSQL's `jit_above_cost`, and compiling it took 33 ms a query where running
 * it takes 0.4-0.6 ms (measured on PostgreSQL 15); the data layer's queries are short, and JIT pays
 * only for long analytic ones.
 */
const SESSION = { application_name: 'engram', jit: 'off' }

/**
 * Opens a PostgreSQL database for the data layer (`ENGRAM_DATABASE_URL`): a pool of connections for
 * queries and units, and one more that listens for other processes' commits (store.postgres.ts), then
 * applies the migrations this build has (migrate-pg.ts; an advisory lock makes processes starting
 * together apply each once). A failure to connect or migrate says what failed without the URL, which
 * may carry a password.
 */
export async function openPostgres(
  url: string,
  migrations: readonly Migration[],
  opts: { max?: number; now?: () => number } = {},
): Promise<OpenPostgres> {
  const pg = connectPostgres(url, opts)
  try {
    const applied = await migratePg(pg.client, migrations, opts.now)
    await pg.listening
    return { store: pg.store, applied, close: pg.close }
  } catch (e) {
    await pg.close().catch(() => {})
    throw new Error(`PostgreSQL at ${redactUrl(url)}: ${withoutSecret((e as Error).message, url)}`)
  }
}

/**
 * The store on a database already migrated, made at once: its pool connects on first use, and it
 * listens for other processes' commits once `listening` settles (until then its memos read every
 * time, which is correct, only slower).
 */
export function connectPostgres(
  url: string,
  opts: { max?: number } = {},
): { store: PostgresStore; client: SQL; listening: Promise<boolean>; close(): Promise<void> } {
  const client = new SQL({ url, max: opts.max ?? POOL, connection: SESSION })
  const listener = new SQL({ url, max: 1, connection: SESSION })
  const store = new PostgresStore(drizzle({ client }) as unknown as Db)
  return {
    store,
    client,
    listening: store.commits.listen(listener),
    async close() {
      await listener.close()
      await client.close()
    },
  }
}

/** The URL with its password (and any query string, which may hold one) left out. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    u.search = ''
    return u.toString()
  } catch {
    return 'the configured URL'
  }
}

/** A driver's message with the URL's password taken out, should the driver have echoed it. */
function withoutSecret(message: string, url: string): string {
  let password = ''
  try {
    password = decodeURIComponent(new URL(url).password)
  } catch {}
  return password ? message.split(password).join('***') : message
}
