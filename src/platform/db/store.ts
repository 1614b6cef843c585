import type { Database, Statement } from 'bun:sqlite'
import { AsyncLocalStorage } from 'node:async_hooks'
import type { SQLiteTable } from 'drizzle-orm/sqlite-core'
import { type CommitWatch, commitWatch } from './commit-watch'
import { type Db, openReadConnection } from './db'

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
  unit<T>(work: () => Promise<T>, opts?: UnitOptions): Promise<T>
  /**
   * Tells whether the database may have changed since an earlier look, by any process: what a memo
   * of rows checks before it answers (`StoreMemo`, store-memo.ts).
   */
  readonly commits: CommitWatch
  /** True while the calling code runs inside a unit. */
  inUnit(): boolean
  /** Closes what the store opened itself (not the connection or pool it was given). */
  close(): Promise<void>
  /**
   * Runs `fn` once the outermost unit around the caller has committed (dropped if it rolls back),
   * or at once outside any unit: where a cache is told of a change, or a dispatcher poked.
   */
  afterCommit(fn: () => void): void
}

/** How a unit is run. */
export interface UnitOptions {
  /**
   * The unit writes no row any memo keeps (a counter, an event only an inline subscriber takes):
   * its commit leaves this process's memos as they are and is told to no other process (on SQLite
   * the commit watch takes the header after it as seen when no other commit came between; on
   * PostgreSQL it sends no `NOTIFY`). A unit inside it that is not quiet makes the whole unit an
   * ordinary one. What a question writes on every question runs this way (docs/data-layer.md).
   */
  quiet?: boolean
}

/** What a store keeps of the unit the calling code runs in. */
export interface OpenUnit {
  depth: number
  /** Whether the outermost unit's commit is quiet (UnitOptions); kept on the outermost unit only. */
  quiet: boolean
  /** The outermost unit (itself, for the outermost). */
  top: OpenUnit | null
  /** The handle queries take inside this unit (the transaction's, on PostgreSQL). */
  db: Db
  committed: (() => void)[]
}

/** Runs a unit's after-commit work: each function once, a throwing one not stopping the others. */
export function runCommitted(fns: (() => void)[]): void {
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

/** A first-come first-served lock; taken at once (no await) when free. */
class Mutex {
  private held = false
  private readonly waiting: (() => void)[] = []

  /** True when taken at once; otherwise wait on `queue()`. */
  tryTake(): boolean {
    if (this.held) return false
    this.held = true
    return true
  }

  queue(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve))
  }

  release(): void {
    const next = this.waiting.shift()
    if (next) next()
    else this.held = false
  }
}

/**
 * The SQLite store. Units of work are transactions on the process's one writing connection
 * (`BEGIN IMMEDIATE`; nested units are savepoints), taken one at a time: a unit begun while
 * another flow's unit is open waits for it. Outside a unit, `db` is a second, read-only connection
 * (WAL: it reads the last committed state), so a read never sees a unit's writes in progress and a
 * write outside a unit fails at once instead of slipping into one (an in-memory database has no
 * second connection: there, `db` is the one connection).
 *
 * A unit awaits only the database: bun:sqlite's drizzle settles in microtasks, so a unit holds the
 * write lock for one turn of the event loop at most, and code still on synchronous transactions
 * (which runs in turns of its own) can never write into a unit left open. It is checked: a unit
 * still open when the event loop reaches its next turn (it awaited a timer, a file, a worker or the
 * network) is rolled back with `UnitYieldedError`. On PostgreSQL the same code runs in real
 * transactions.
 */
export class SqliteStore implements Store {
  readonly dialect = 'sqlite'
  private readonly open = new AsyncLocalStorage<OpenUnit>()
  private readonly lock = new Mutex()
  /** The unit whose transaction is open on the connection. */
  private current: OpenUnit | null = null
  private savepoints = 0
  private reader: Db | null = null
  /** The next turn's check (`watchTurn`), and the unit it found still open. */
  private turnCheck: ReturnType<typeof setImmediate> | null = null
  private yielded: OpenUnit | null = null
  /** A unit's statements, prepared once (parsing them each time costs more than running them). */
  private readonly tx: Record<'begin' | 'commit' | 'rollback', Statement>

  readonly commits: CommitWatch

  constructor(private readonly writer: Db) {
    this.commits = commitWatch(writer.$client)
    const q = (text: string) => writer.$client.prepare(text)
    this.tx = { begin: q('BEGIN IMMEDIATE'), commit: q('COMMIT'), rollback: q('ROLLBACK') }
  }

  get db(): Db {
    if (this.open.getStore()) return this.writer
    if (!this.reader) {
      const file = this.writer.$client.filename
      this.reader = file && file !== ':memory:' ? openReadConnection(file) : this.writer
    }
    return this.reader
  }

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

  async unit<T>(work: () => Promise<T>, opts?: UnitOptions): Promise<T> {
    const outer = this.open.getStore()
    if (outer) return this.savepoint(outer, work, opts)
    if (!this.lock.tryTake()) await this.lock.queue()
    try {
      return await this.transaction(work, opts?.quiet === true)
    } finally {
      this.lock.release()
    }
  }

  /**
   * Runs `write`, synchronous bun:sqlite work of code not on the store (the engine's index), on the
   * writing connection while no unit is open there: it waits its turn on the units' lock, so it never
   * lands inside another flow's unit (whose rollback would take it along) and no unit begins inside
   * it. Called inside a unit of the caller's own flow, it runs at once, in that unit.
   */
  async exclusive<T>(write: () => T): Promise<T> {
    if (this.open.getStore()) return write()
    if (!this.lock.tryTake()) await this.lock.queue()
    try {
      return write()
    } finally {
      this.lock.release()
    }
  }

  /** Closes the read connection (the writing one is its opener's). */
  async close(): Promise<void> {
    if (this.reader && this.reader !== this.writer) this.reader.$client.close()
    this.reader = null
  }

  private async transaction<T>(work: () => Promise<T>, quiet: boolean): Promise<T> {
    const c = this.writer.$client
    if (c.inTransaction) {
      // A synchronous transaction calling a unit (code not yet on the store) gets here.
      throw new Error('A unit of work began while another transaction was open on the SQLite connection.')
    }
    const unit: OpenUnit = { depth: 0, quiet, top: null, db: this.writer, committed: [] }
    this.current = unit
    const mark = quiet ? this.commits.quietMark() : -1
    this.watchTurn()
    this.tx.begin.run()
    try {
      const result = await this.open.run(unit, work)
      if (this.yielded === unit) throw new UnitYieldedError()
      this.tx.commit.run()
      this.current = null
      if (unit.quiet) this.commits.quietDone(mark)
      runCommitted(unit.committed)
      return result
    } catch (e) {
      if (this.current === unit) {
        if (c.inTransaction) this.tx.rollback.run()
        this.current = null
      }
      throw this.yielded === unit && !(e instanceof UnitYieldedError) ? new UnitYieldedError() : e
    } finally {
      if (this.yielded === unit) this.yielded = null
    }
  }

  /**
   * A check at the event loop's next turn: a unit still open then awaited something other than the
   * database (microtasks run to their end before any turn). One serves every unit begun before it.
   */
  private watchTurn(): void {
    if (this.turnCheck) return
    this.turnCheck = setImmediate(() => {
      this.turnCheck = null
      if (this.current) this.yielded = this.current
    })
  }

  private async savepoint<T>(outer: OpenUnit, work: () => Promise<T>, opts?: UnitOptions): Promise<T> {
    const c = this.writer.$client
    const name = `unit_${++this.savepoints}`
    const top = outer.top ?? outer
    if (!opts?.quiet) top.quiet = false
    const inner: OpenUnit = { depth: outer.depth + 1, quiet: false, top, db: outer.db, committed: [] }
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

const sqliteStores = new WeakMap<Db, SqliteStore>()
const byConnection = new WeakMap<Database, SqliteStore>()

/**
 * `SqliteStore.exclusive` for code that holds only the bun:sqlite connection (the engine's index):
 * runs `write` on the units' lock of the connection's store, or at once when the connection has none
 * (the engine's own file, with the features' state on PostgreSQL).
 */
export function exclusiveOn<T>(client: Database, write: () => T): Promise<T> {
  const store = byConnection.get(client)
  return store ? store.exclusive(write) : Promise.resolve().then(write)
}

/**
 * The store of a SQLite connection: one per connection, whoever asks, since its units take turns
 * on that connection's lock.
 */
export function sqliteStore(db: Db): SqliteStore {
  let store = sqliteStores.get(db)
  if (!store) {
    store = new SqliteStore(db)
    sqliteStores.set(db, store)
    byConnection.set(db.$client, store)
  }
  return store
}
