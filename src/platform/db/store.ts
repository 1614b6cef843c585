import { AsyncLocalStorage } from 'node:async_hooks'
import type { SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Db } from './db'
import { pgTwin } from './pg-tables'

/** Which SQL engine a store runs on. */
export type Dialect = 'sqlite' | 'postgres'

/**
 * The data layer's one handle, the same on both engines. Repositories run their queries on `db` and
 * await them; writes that must land together run inside `unit`. Code written against a store runs
 * unchanged on SQLite and on PostgreSQL (docs/data-layer.md, "Units of work").
 */
export interface Store {
  readonly dialect: Dialect
  /** The handle to query now: inside a unit, the unit's transaction; outside, the engine's own. */
  readonly db: Db
  /**
   * The table to query on this engine: the declaration itself on SQLite, its PostgreSQL twin
   * (pg-tables.ts) on PostgreSQL, typed as the declaration so a repository reads the same on both.
   */
  table<T extends SQLiteTable>(declared: T): T
  /**
   * Runs `work` as one unit: its writes land together or not at all, and it reads its own writes.
   * Called inside another unit it is a savepoint of it (its failure undoes its writes only, and the
   * outer unit decides). On SQLite a unit awaits nothing but the database (see `SqliteStore`).
   */
  unit<T>(work: () => Promise<T>): Promise<T>
  /** True while the calling code runs inside a unit. */
  inUnit(): boolean
  /**
   * Runs `fn` once the outermost unit around the caller has committed (dropped if it rolls back),
   * or at once outside any unit: where a cache is told of a change, or a dispatcher poked.
   */
  afterCommit(fn: () => void): void
}

/** What a store keeps of the unit the calling code runs in. */
interface OpenUnit {
  depth: number
  /** The handle queries take inside this unit (the transaction's, on PostgreSQL). */
  db: Db
  committed: (() => void)[]
}

/** Runs a unit's after-commit work: each function once, a throwing one not stopping the others. */
function runCommitted(fns: (() => void)[]): void {
  let first: unknown = null
  for (const fn of fns) {
    try {
      fn()
    } catch (e) {
      first ??= e
    }
  }
  if (first) throw first
}

/** Thrown when a SQLite unit lets the event loop run other work before it ends (see below). */
export class UnitYieldedError extends Error {
  constructor() {
    super(
      'A unit of work on SQLite awaited something other than the database (a timer, a file, the network, a worker): ' +
        'its transaction was rolled back. Do that work before the unit or after it.',
    )
    this.name = 'UnitYieldedError'
  }
}

/**
 * The SQLite store: one connection, as the rest of the process uses it. A unit is a transaction on
 * it (`BEGIN IMMEDIATE`; nested units are savepoints). Awaiting a query of bun:sqlite's drizzle
 * settles in the same turn of the event loop (a microtask), so a unit that awaits only the database
 * runs from BEGIN to COMMIT before any other request's code runs: no other write can land inside it,
 * and nothing else reads its uncommitted rows. That is the rule, and it is checked: a unit still open
 * when the event loop reaches its next turn (it awaited a timer, a file, a worker or the network) is
 * rolled back with `UnitYieldedError`. On PostgreSQL the same code runs in real transactions.
 */
export class SqliteStore implements Store {
  readonly dialect = 'sqlite'
  private readonly open = new AsyncLocalStorage<OpenUnit>()
  /** The unit whose transaction is open on the connection (at most one, by the rule above). */
  private current: OpenUnit | null = null
  private savepoints = 0

  constructor(readonly db: Db) {}

  table<T extends SQLiteTable>(declared: T): T {
    return declared
  }

  inUnit(): boolean {
    return this.open.getStore() !== undefined
  }

  afterCommit(fn: () => void): void {
    const unit = this.open.getStore()
    if (unit) unit.committed.push(fn)
    else fn()
  }

  async unit<T>(work: () => Promise<T>): Promise<T> {
    const outer = this.open.getStore()
    return outer ? this.savepoint(outer, work) : this.transaction(work)
  }

  private async transaction<T>(work: () => Promise<T>): Promise<T> {
    const c = this.db.$client
    if (this.current || c.inTransaction) {
      // Only a unit that broke the rule (or a synchronous transaction calling a unit) gets here.
      throw new Error('A unit of work began while another transaction was open on the SQLite connection.')
    }
    const unit: OpenUnit = { depth: 0, db: this.db, committed: [] }
    this.current = unit
    let yielded = false
    const turn = setImmediate(() => {
      yielded = this.current === unit
    })
    c.exec('BEGIN IMMEDIATE')
    try {
      const result = await this.open.run(unit, work)
      if (yielded) throw new UnitYieldedError()
      c.exec('COMMIT')
      this.current = null
      runCommitted(unit.committed)
      return result
    } catch (e) {
      if (this.current === unit) {
        if (c.inTransaction) c.exec('ROLLBACK')
        this.current = null
      }
      throw yielded && !(e instanceof UnitYieldedError) ? new UnitYieldedError() : e
    } finally {
      clearImmediate(turn)
    }
  }

  private async savepoint<T>(outer: OpenUnit, work: () => Promise<T>): Promise<T> {
    const c = this.db.$client
    const name = `unit_${++this.savepoints}`
    const inner: OpenUnit = { depth: outer.depth + 1, db: outer.db, committed: [] }
    c.exec(`SAVEPOINT ${name}`)
    try {
      const result = await this.open.run(inner, work)
      c.exec(`RELEASE ${name}`)
      outer.committed.push(...inner.committed)
      return result
    } catch (e) {
      if (c.inTransaction) {
        c.exec(`ROLLBACK TO ${name}`)
        c.exec(`RELEASE ${name}`)
      }
      throw e
    }
  }
}

/**
 * The PostgreSQL store: a pool of connections (Bun's `SQL`, through drizzle). A unit is a real
 * transaction on one of them (nested units are savepoints); inside it `db` is that transaction,
 * found through the async context, so a repository's code is the same on both engines. Units may
 * wait on the network here, but the code also runs on SQLite, where they must not (above).
 */
export class PostgresStore implements Store {
  readonly dialect = 'postgres'
  private readonly open = new AsyncLocalStorage<OpenUnit>()

  /** `root` is drizzle's `bun-sql` database, typed as the handle repositories are written against. */
  constructor(private readonly root: Db) {}

  get db(): Db {
    return this.open.getStore()?.db ?? this.root
  }

  table<T extends SQLiteTable>(declared: T): T {
    return pgTwin(declared) as unknown as T
  }

  inUnit(): boolean {
    return this.open.getStore() !== undefined
  }

  afterCommit(fn: () => void): void {
    const unit = this.open.getStore()
    if (unit) unit.committed.push(fn)
    else fn()
  }

  async unit<T>(work: () => Promise<T>): Promise<T> {
    const outer = this.open.getStore()
    const unit: OpenUnit = { depth: (outer?.depth ?? -1) + 1, db: this.root, committed: [] }
    const begin = (outer?.db ?? this.root) as unknown as Transactional
    const result = await begin.transaction((tx) => {
      unit.db = tx as unknown as Db
      return this.open.run(unit, work)
    })
    if (outer) outer.committed.push(...unit.committed)
    else runCommitted(unit.committed)
    return result
  }
}

/** What both drizzle's PostgreSQL database and its transactions offer: a nested transaction. */
interface Transactional {
  transaction<T>(work: (tx: unknown) => Promise<T>): Promise<T>
}
