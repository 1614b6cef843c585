import { SQL } from 'bun'
import { drizzle } from 'drizzle-orm/bun-sql'
import type { Db } from './db'
import type { Migration } from './migrate'
import { migratePg } from './migrate-pg'
import { PING_EVERY_MS, pingChannel, pingEvery, SelfPing } from './self-ping'
import { PostgresStore } from './store.postgres'

/** A store on a PostgreSQL database, its migrations applied, and how to close what it opened. */
export interface OpenPostgres {
  store: PostgresStore
  /** The process's ping to itself (self-ping.ts); ticked every `pingEvery` ms. */
  ping: SelfPing
  /** The tags of the migrations this opening applied. */
  applied: string[]
  close(): Promise<void>
}

/** Pooled connections a process keeps by default; the listener and each owner lock have their own. */
const POOL = 10

/**
 * Settings of each connection. JIT compilation off: the job queue's claim (a recursive CTE, claim.ts)
 * is estimated above PostgreSQL's `jit_above_cost`, and compiling it took 33 ms a query where running
 * it takes 0.4-0.6 ms (measured on PostgreSQL 15); the data layer's queries are short, and JIT pays
 * only for long analytic ones.
 */
const SESSION = { application_name: 'engram', jit: 'off' }

/**
 * Server-side TCP keepalives of the connections whose session matters beyond a query: the one that
 * listens and those holding an owner's lock. A machine that loses power or its network sends
 * nothing, and its connection would stay open on the server until the kernel's keepalive gives up
 * (two hours by default), its lock held all that while; with these PostgreSQL probes an idle
 * connection after 10 s, every 5 s, and drops it after 3 unanswered probes: about 25 s.
 * (Ignored on a Unix socket, where the peer's end is always seen.)
 */
export const KEEPALIVES = {
  tcp_keepalives_idle: '10',
  tcp_keepalives_interval: '5',
  tcp_keepalives_count: '3',
}

/**
 * Opens a PostgreSQL database for the data layer (`ENGRAM_DATABASE_URL`): a pool of connections for
 * queries and units, one for each owner lock a runner holds (store.postgres.ts), and one more that listens for other processes' commits (store.postgres.ts) and
 * notices (notices.ts), then applies the migrations this build has (migrate-pg.ts; an advisory lock
 * makes processes starting together apply each once). A failure to connect or migrate says what
 * failed without the URL, which may carry a password.
 */
export async function openPostgres(
  url: string,
  migrations: readonly Migration[],
  opts: ConnectOptions & { now?: () => number } = {},
): Promise<OpenPostgres> {
  const pg = connectPostgres(url, opts)
  try {
    const applied = await migratePg(pg.client, migrations, opts.now)
    await pg.listening
    return { store: pg.store, ping: pg.ping, applied, close: pg.close }
  } catch (e) {
    await pg.close().catch(() => {})
    throw new Error(`PostgreSQL at ${redactUrl(url)}: ${withoutSecret((e as Error).message, url)}`)
  }
}

/** How a process connects: its pool's size, and how often it pings itself (ms; 0: only by hand). */
export interface ConnectOptions {
  max?: number
  pingEvery?: number
}

/**
 * The store on a database already migrated, made at once: its pool connects on first use, and it
 * listens for other processes' commits once `listening` settles (until then its memos read every
 * time, which is correct, only slower). On the listening connection it also hears its own pings,
 * sent on the pool every `pingEvery` ms (self-ping.ts): while they do not come back, memos read
 * every time too.
 */
export function connectPostgres(
  url: string,
  opts: ConnectOptions = {},
): {
  store: PostgresStore
  client: SQL
  ping: SelfPing
  listening: Promise<boolean>
  close(): Promise<void>
} {
  const client = new SQL({ url, max: opts.max ?? POOL, connection: SESSION })
  const listener = new SQL({ url, max: 1, connection: { ...SESSION, ...KEEPALIVES } })
  const store = new PostgresStore(drizzle({ client }) as unknown as Db, (onclose) =>
    openSession(url, onclose),
  )
  const ping = new SelfPing(store.commits, (self) => client.notify(pingChannel(self), self))
  const listening = (async () => {
    if (!(await store.commits.listen(listener))) return false
    // Pings not heard (their channel not listened on) only make the memos read every time: correct.
    await ping.listen(listener).catch(() => {})
    // Notices not heard (a channel not listened on) leave the job queue to its poll: slower, not wrong.
    await store.notices.listen(listener).catch(() => {})
    return true
  })()
  const stop = pingEvery(ping, opts.pingEvery ?? PING_EVERY_MS)
  return {
    store,
    client,
    ping,
    listening,
    async close() {
      stop()
      await listener.close()
      await client.close()
    },
  }
}

/**
 * A connection of its own for what lives with its session (an owner lock): a pool of one, so that
 * its end is told (`onclose`) and a lock taken again is taken on a new connection, never silently on
 * a pool's next one; with the server's TCP keepalives (KEEPALIVES).
 */
export function openSession(url: string, onclose: (error: Error | null) => void): SQL {
  return new SQL({ url, max: 1, connection: { ...SESSION, ...KEEPALIVES }, onclose })
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
