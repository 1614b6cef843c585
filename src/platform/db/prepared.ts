import { type Column, type SQL, sql } from 'drizzle-orm'
import type { Db } from './db'
import type { Store } from './store'

/** What drizzle's prepared queries offer on both engines: an execution with named placeholders. */
interface PreparedQuery<R> {
  execute(placeholders?: Record<string, unknown>): R | Promise<R>
}

/**
 * A store that can run a prepared query built on one of its handles on another without building it
 * again (PostgresStore.rebind; null when it cannot). Without it, a query is built on each handle: on
 * SQLite a statement is its connection's (the writing one and the read-only one), so twice in all.
 */
interface Rebinds {
  rebind<Q extends object>(query: Q, db: Db): Q | null
}

/**
 * A query built once (once per connection on SQLite), then executed with named placeholders
 * (`sql.placeholder('id')`): what a repository on the store uses on a hot path, where building the
 * query on every call (drizzle's builder) costs ten times the query itself on SQLite
 * (bench/RESULTS.md, issue 39). The handle is the store's at the moment of the call: on SQLite the
 * writing connection inside a unit and the read-only one outside; on PostgreSQL a unit's
 * transaction or the pool. So a prepared read inside a unit sees the unit's own writes, as a built
 * one does. Build it with `.prepare()` and no name: PostgreSQL then keeps no named statement.
 */
export class Prepared<R> {
  private readonly built = new WeakMap<Db, PreparedQuery<R>>()
  /** The query as first built, which a handle after it runs when the store can move it there (Rebinds). */
  private first: PreparedQuery<R> | null = null

  constructor(
    private readonly store: Store,
    private readonly build: (db: Db) => PreparedQuery<R>,
  ) {}

  /**
   * Runs the query with its placeholders' values: an object by name, or an array whose indexes are
   * the names (`sql.placeholder('0')`, ...; drizzle reads `values[name]` either way), as RowsInsert
   * binds a statement's hundreds of values: a third of an object's cost with that many names.
   */
  async execute(placeholders?: Record<string, unknown> | unknown[]): Promise<R> {
    const db = this.store.db
    let query = this.built.get(db)
    if (!query) {
      const moved = this.first && (this.store as Store & Partial<Rebinds>).rebind?.(this.first, db)
      query = moved ?? this.build(db)
      this.first ??= query
      this.built.set(db, query)
    }
    const run = query.execute(placeholders as Record<string, unknown> | undefined)
    // bun:sqlite's drizzle answers at once: its result's `sync()` skips a promise and a thenable.
    return isSync<R>(run) ? run.sync() : await run
  }
}

/**
 * The prepared statements of one query by the variant a call needs (the columns an update sets, a
 * key tested for null or for a value), each made on its variant's first use: a handful a repository,
 * never one a call.
 */
export class PreparedVariants<K, P> {
  private readonly made = new Map<K, P>()

  of(key: K, make: () => P): P {
    let p = this.made.get(key)
    if (p === undefined) {
      p = make()
      this.made.set(key, p)
    }
    return p
  }
}

/**
 * A multi-row insert prepared once per row count, instead of built by drizzle's builder on every
 * call: building a 64-row insert costs about 1 ms, more than running it (bench/RESULTS.md, issue 38
 * sessions 34 and 46). Rows go `max` a statement and the rest in statements of powers of two, so
 * whatever the counts, at most a handful of statements are ever prepared. `values` says how a row
 * gives each named value; `row(p)` is one row as the insert takes it, `p` that row's placeholder of
 * each name (a name not a column, such as a time several columns take, is left out by the insert);
 * `insert` builds the statement of the rows.
 */
export class RowsInsert<R, K extends string, V> {
  private readonly inserts = new PreparedVariants<number, Prepared<unknown>>()
  private readonly keys: K[]
  /** Placeholder names by place: a row's values numbered after the rows before it (made once, not once a row). */
  private readonly names: string[][] = []

  constructor(
    private readonly store: Store,
    private readonly max: number,
    private readonly values: Record<K, (row: R) => unknown>,
    private readonly row: (placeholders: Record<K, never>) => V,
    private readonly insert: (db: Db, rows: V[]) => PreparedQuery<unknown>,
  ) {
    this.keys = Object.keys(values) as K[]
  }

  /** Inserts the rows, in as few statements as the counts allow (at most `max` and one per power of two below it). */
  async run(rows: readonly R[]): Promise<void> {
    for (let at = 0; at < rows.length; ) {
      const left = rows.length - at
      const n = left >= this.max ? this.max : 2 ** Math.floor(Math.log2(left))
      await this.statement(n).execute(this.placeholders(rows, at, n))
      at += n
    }
  }

  /** The values of rows `at` to `at + n`, by position: the placeholder of row i's value v is named `i * keys + v`. */
  private placeholders(rows: readonly R[], at: number, n: number): unknown[] {
    const k = this.keys.length
    const out: unknown[] = new Array(n * k)
    for (let i = 0; i < n; i++) {
      const r = rows[at + i]!
      for (let v = 0; v < k; v++) out[i * k + v] = this.values[this.keys[v]!]!(r)
    }
    return out
  }

  private namesAt(i: number): string[] {
    const k = this.keys.length
    this.names[i] ??= this.keys.map((_, v) => String(i * k + v))
    return this.names[i]!
  }

  private statement(n: number): Prepared<unknown> {
    return this.inserts.of(n, () => {
      const rows = Array.from({ length: n }, (_, i) =>
        this.row(
          Object.fromEntries(
            this.namesAt(i).map((name, v) => [this.keys[v], sql.placeholder(name)]),
          ) as Record<K, never>,
        ),
      )
      return new Prepared(this.store, (db) => this.insert(db, rows))
    })
  }
}

/**
 * `column IN` the strings of a JSON array bound at the placeholder `name` (`JSON.stringify(ids)`), on
 * either engine: one statement however many there are, where `inArray` makes a statement a count
 * and so cannot be prepared. Each engine reads the list once and seeks the column's index by it.
 */
export function inList(store: Store, column: Column, name: string): SQL {
  const list = sql.placeholder(name)
  return store.dialect === 'sqlite'
    ? sql`${column} IN (SELECT value FROM json_each(${list}))`
    : sql`${column} IN (SELECT json_array_elements_text(${list}::text::json))`
}

/**
 * `(a, b) IN` the `[a, b]` string pairs of a JSON array bound at the placeholder `name`
 * (`JSON.stringify(pairs)`), on either engine: one statement however many pairs, each row matched
 * with its own pair (not with any a and any b of the list). `a` is sought by its index first, as by
 * `inList`; a pair's null never matches (SQL's `=`).
 */
export function inPairs(store: Store, a: Column, b: Column, name: string): SQL {
  const list = sql.placeholder(name)
  return store.dialect === 'sqlite'
    ? sql`${a} IN (SELECT value ->> 0 FROM json_each(${list})) AND (${a}, ${b}) IN (SELECT value ->> 0, value ->> 1 FROM json_each(${list}))`
    : sql`${a} IN (SELECT e ->> 0 FROM json_array_elements(${list}::text::json) e) AND (${a}, ${b}) IN (SELECT e ->> 0, e ->> 1 FROM json_array_elements(${list}::text::json) e)`
}

function isSync<R>(run: unknown): run is { sync(): R } {
  return typeof (run as { sync?: unknown }).sync === 'function'
}
