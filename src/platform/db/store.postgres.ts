import { AsyncLocalStorage } from 'node:async_hooks'
import type { SQL } from 'bun'
import { sql } from 'drizzle-orm'
import type { SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { CommitWatch } from './commit-watch'
import type { Db } from './db'
import { PostgresNotices } from './notices'
import { pgTwin } from './pg-tables'
import { rawRows } from './raw'
import type { PingWatch } from './self-ping'
import { type OpenUnit, runCommitted, type Store, type UnitOptions } from './store'

/** The channel every unit's commit is told on, so each process's memos know to read again. */
export const COMMITS_CHANNEL = 'engram_commits'

/**
 * Commits as a PostgreSQL process can know them: its own (at once, after each unit) and every other
 * process's, told by `NOTIFY` on COMMITS_CHANNEL, which PostgreSQL delivers only when the notifying
 * transaction commits. Until this process is listening, and while its listening connection is lost
 * (its ping to itself does not come back: self-ping.ts), every look is a change, so a memo reads the
 * database every time rather than trust what it cannot know. Another process's commit is seen once
 * its notification arrives: a memo may answer from before it for that long (about a round trip);
 * docs/data-layer.md, "Memos and commits".
 */
export class NotifiedCommits implements CommitWatch, PingWatch {
  readonly kind = 'none'
  private count = 0
  /** `trusted` only while the listening connection hears: not yet (`waiting`), or not now (`lost`). */
  private state: 'waiting' | 'trusted' | 'lost' = 'waiting'
  private waiters: (() => void)[] = []
  /** What this process's notifications carry, so that it skips its own (it counted them at commit). */
  readonly self = `${process.pid}.${crypto.randomUUID()}`

  /**
   * Starts listening on `client` (a connection of its own); false when that failed. Bun reconnects a
   * listening connection that dropped and listens again (`onlisten` runs each time): what was told
   * while it was down is lost, so a listen after the first is a change, and every memo reads again.
   */
  async listen(client: SQL): Promise<boolean> {
    let listened = false
    try {
      await client.listen(
        COMMITS_CHANNEL,
        (from: string) => {
          if (from !== this.self) this.changed()
        },
        () => {
          if (listened) this.trust()
          listened = true
        },
      )
      this.state = 'trusted'
    } catch {
      this.state = 'waiting'
    }
    return this.state === 'trusted'
  }

  /** Stops trusting the memos (the listening connection no longer hears). */
  lost(): void {
    if (this.state !== 'trusted') return
    this.state = 'lost'
    this.changed()
  }

  /** The lost listening connection hears again (its ping came back): every memo reads once more. */
  found(): void {
    if (this.state === 'lost') this.trust()
  }

  version(): number {
    if (this.state !== 'trusted') this.count++
    return this.count
  }

  // A quiet unit (store.ts) is simply not counted nor told here.
  quietMark(): number {
    return -1
  }

  quietDone(): void {}

  /** Something committed (this process's unit, or another process's notification). */
  changed(): void {
    this.count++
    for (const wake of this.waiters.splice(0)) wake()
  }

  /** Listening again: what was told meanwhile is lost, so it is a change. */
  private trust(): void {
    this.state = 'trusted'
    this.changed()
  }

  /** Resolves at the next change; for tests, which must not sleep to wait for it. */
  next(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve))
  }
}

/**
 * The PostgreSQL store: a pool of connections (Bun's `SQL`, through drizzle). A unit is a real
 * transaction on one of them (nested units are savepoints); inside it `db` is that transaction,
 * found through the async context, so a repository's code is the same on both engines. Units may
 * wait on the network here, but the code also runs on SQLite, where they must not (store.ts).
 * Each unit tells its commit to the other processes (`NOTIFY`, in the transaction) and to this one.
 * A unit may also tell them a notice (`notices`: a job enqueued, a cancel), delivered on commit too.
 */
export class PostgresStore implements Store {
  readonly dialect = 'postgres'
  readonly commits = new NotifiedCommits()
  /** Hints told to other processes on commit (notices.ts): the job queue's. */
  readonly notices = new PostgresNotices(this.commits.self, (q) =>
    (this.db as unknown as Executes).execute(q),
  )
  private readonly open = new AsyncLocalStorage<OpenUnit>()

  /**
   * `root` is drizzle's `bun-sql` database, typed as the handle repositories are written against;
   * `sessions` opens a connection of its own (not the pool's), for what lives with a session
   * (holdWhileAlive), telling when that connection ends.
   */
  constructor(
    private readonly root: Db,
    private readonly sessions?: OpenSession,
  ) {}

  /**
   * Holds `key` (a session advisory lock on its 64-bit hash) on a connection of its own, until the
   * returned release or the end of that connection: PostgreSQL lets it go however the process ends
   * (kill -9, a machine lost, once the server sees the connection gone: its TCP keepalives,
   * open-postgres.ts), which is how another process, on any machine, tells that this one is gone
   * (`isHeld`). Should the connection end while held, `onLost` is told (once): the lock is gone
   * with it, and the holder takes it again on a new connection (AdvisoryOwnerLocks).
   */
  async holdWhileAlive(key: string, onLost?: (error: Error) => void): Promise<() => Promise<void>> {
    if (!this.sessions) throw new Error('holdWhileAlive needs the store made by connectPostgres')
    let state: 'taking' | 'held' | 'done' = 'taking'
    const conn = this.sessions((error) => {
      if (state !== 'held') return
      state = 'done'
      // Closed for good: a session lock is never taken again on this pool's next connection.
      void conn.close().catch(() => {})
      onLost?.(error ?? new Error('the connection ended'))
    })
    try {
      await conn`SELECT pg_advisory_lock(hashtextextended(${key}, 0))`
      state = 'held'
    } catch (e) {
      state = 'done'
      await conn.close().catch(() => {})
      throw e
    }
    return async () => {
      if (state === 'done') return void (await conn.close().catch(() => {}))
      state = 'done'
      try {
        await conn`SELECT pg_advisory_unlock(hashtextextended(${key}, 0))`
      } finally {
        await conn.close()
      }
    }
  }

  /** Whether any process holds `key` by holdWhileAlive (tried in a transaction of its own, never waited for). */
  async isHeld(key: string): Promise<boolean> {
    const rows = await this.unit(
      () => rawRows(this, sql`SELECT pg_try_advisory_xact_lock(hashtextextended(${key}, 0)) AS free`),
      { quiet: true },
    )
    return rows[0]?.free !== true
  }

  get db(): Db {
    return this.open.getStore()?.db ?? this.root
  }

  table<T extends SQLiteTable>(declared: T): T {
    return pgTwin(declared) as unknown as T
  }

  inUnit(): boolean {
    return this.open.getStore() !== undefined
  }

  async close(): Promise<void> {}

  afterCommit(fn: () => void): void {
    const unit = this.open.getStore()
    if (unit) unit.committed.push(fn)
    else fn()
  }

  /**
   * The query run on `db`'s connection: drizzle's `bun-sql` prepared query holds its SQL and
   * parameters as built and the client it runs them on (`client`), and a handle's session the client
   * of its pool or transaction (savepoints included), so a copy with the client swapped is the same
   * query on `db`. A unit is a new handle each time, and building a query again in each (drizzle's SQL
   * from its builder) cost more than running it: 1.2 s of a replica's event loop in a 16x onboarding,
   * 0.15 ms a query in a unit (issue 38, session 43). Null when either is not found: built again.
   */
  rebind<Q extends object>(query: Q, db: Db): Q | null {
    const client = (db as unknown as { session?: { client?: unknown } }).session?.client
    if (!client || !('client' in query) || !('queryString' in query)) return null
    return Object.assign(Object.create(Object.getPrototypeOf(query)) as Q, query, { client })
  }

  async unit<T>(work: () => Promise<T>, opts?: UnitOptions): Promise<T> {
    const outer = this.open.getStore()
    const top = outer ? (outer.top ?? outer) : null
    if (top && !opts?.quiet) top.quiet = false
    const unit: OpenUnit = {
      depth: (outer?.depth ?? -1) + 1,
      quiet: !outer && opts?.quiet === true,
      top,
      db: this.root,
      committed: [],
    }
    const begin = (outer?.db ?? this.root) as unknown as Transactional
    const result = await begin.transaction(async (tx) => {
      unit.db = tx as unknown as Db
      const value = await this.open.run(unit, work)
      // A quiet unit tells no process; whether it is quiet is known once its work is done.
      if (!outer && !unit.quiet)
        await (tx as Executes).execute(sql`SELECT pg_notify(${COMMITS_CHANNEL}, ${this.commits.self})`)
      return value
    })
    if (outer) outer.committed.push(...unit.committed)
    else {
      if (!unit.quiet) this.commits.changed()
      runCommitted(unit.committed)
    }
    return result
  }
}

/** Opens a connection of its own (a pool of one), calling `onclose` when it ends. */
export type OpenSession = (onclose: (error: Error | null) => void) => SQL

/** What both drizzle's PostgreSQL database and its transactions offer: a nested transaction. */
interface Transactional {
  transaction<T>(work: (tx: unknown) => Promise<T>): Promise<T>
}

/** A drizzle PostgreSQL handle's raw statement. */
interface Executes {
  execute(query: ReturnType<typeof sql>): Promise<unknown>
}
