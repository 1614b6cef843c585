// Where copy.ts writes: a SQLite file or a PostgreSQL database, each in one transaction of its own,
// so a copy that fails (a refusal, a count that differs, a lost connection) leaves the target as it
// was. The target's own triggers (the document counters, the audit log's append-only rule) are held
// off while it takes the rows, which come with what those triggers would have written already, and
// its generated keys' sequences are moved past the copied keys.
import { eq, getTableColumns, sql } from 'drizzle-orm'
import { getTableConfig, type SQLiteColumn, type SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Db } from './db'
import { isInsertionOrder } from './insertion-order'
import { rawRows } from './raw'
import type { Store } from './store'
import type { PostgresStore } from './store.postgres'

/** What a copy does inside the target's transaction. */
export interface CopyWriter {
  insert(table: SQLiteTable, rows: Record<string, unknown>[]): Promise<void>
  /** Sets `column` of the rows whose `key` is given (a self-reference, once every row exists). */
  setColumn(
    table: SQLiteTable,
    key: string,
    column: string,
    rows: { key: unknown; value: unknown }[],
  ): Promise<void>
  count(table: SQLiteTable): Promise<number>
}

/** A database a copy writes into, in one transaction around `work`. */
export interface CopyTarget {
  readonly engine: 'sqlite' | 'postgres'
  session<T>(tables: readonly SQLiteTable[], work: (w: CopyWriter) => Promise<T>): Promise<T>
}

/** A writer over a drizzle handle: `table` maps a declaration to the engine's table. */
function writer(
  db: Db,
  table: (t: SQLiteTable) => SQLiteTable,
  count: (t: SQLiteTable) => Promise<number>,
): CopyWriter {
  return {
    async insert(t, rows) {
      if (rows.length > 0) await db.insert(table(t)).values(rows as never)
    },
    async setColumn(t, key, column, rows) {
      const cols = getTableColumns(table(t)) as Record<string, SQLiteColumn>
      for (const r of rows) {
        await db
          .update(table(t))
          .set({ [column]: r.value } as never)
          .where(eq(cols[key]!, r.key))
      }
    },
    count,
  }
}

/**
 * The SQLite file at `db` (its writing connection; no server may be writing it meanwhile). With
 * `replace`, the tables' rows there are deleted first, in the same transaction; without it, a table
 * that has rows refuses the copy.
 */
export function sqliteTarget(db: Db, opts: { replace: boolean }): CopyTarget {
  const c = db.$client
  return {
    engine: 'sqlite',
    async session(tables, work) {
      const names = tables.map((t) => getTableConfig(t).name)
      c.exec('BEGIN IMMEDIATE')
      try {
        if (!opts.replace) await refuseRows(tables, (t) => countOn(db, t))
        const marks = names.map(() => '?').join(', ')
        const triggers = c
          .query<{ name: string; sql: string }, string[]>(
            `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN (${marks})`,
          )
          .all(...names)
        for (const t of triggers) c.exec(`DROP TRIGGER "${t.name}"`)
        if (opts.replace) for (const name of [...names].reverse()) c.exec(`DELETE FROM "${name}"`)
        const result = await work(
          writer(
            db,
            (t) => t,
            (t) => countOn(db, t),
          ),
        )
        for (const t of triggers) c.exec(t.sql)
        c.exec('COMMIT')
        return result
      } catch (e) {
        if (c.inTransaction) c.exec('ROLLBACK')
        throw e
      }
    },
  }
}

/** A PostgreSQL database (its store): every copied table must be empty there. */
export function postgresTarget(store: PostgresStore): CopyTarget {
  return {
    engine: 'postgres',
    session(tables, work) {
      const names = tables.map((t) => getTableConfig(t).name)
      return store.unit(async () => {
        await refuseRows(tables, (t) => countRows(store, t))
        // The tables' own triggers (not their foreign keys) are off until the copy is in.
        for (const name of names) await rawRows(store, sql.raw(`ALTER TABLE "${name}" DISABLE TRIGGER USER`))
        const result = await work(
          writer(
            store.db,
            (t) => store.table(t),
            (t) => countRows(store, t),
          ),
        )
        for (const t of tables) await moveSequences(store, t)
        for (const name of names) await rawRows(store, sql.raw(`ALTER TABLE "${name}" ENABLE TRIGGER USER`))
        return result
      })
    },
  }
}

/** Rows of `table` on the writing connection itself (inside its open transaction). */
async function countOn(db: Db, table: SQLiteTable): Promise<number> {
  const rows = await db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(table)
  return rows[0]?.n ?? 0
}

async function refuseRows(tables: readonly SQLiteTable[], count: (t: SQLiteTable) => Promise<number>) {
  const taken: string[] = []
  for (const t of tables) if ((await count(t)) > 0) taken.push(getTableConfig(t).name)
  if (taken.length > 0) {
    throw new CopyRefused(`the target already has rows in ${taken.join(', ')}: copy into an empty database`)
  }
}

/**
 * Moves the sequence of each generated integer key, and of each insertion-order column (jobs'
 * `seq`), past the largest value copied: the next row made there comes after every copied one.
 */
async function moveSequences(store: PostgresStore, table: SQLiteTable): Promise<void> {
  const { name, columns } = getTableConfig(table)
  for (const col of columns) {
    const generatedKey = col.primary && col.columnType === 'SQLiteInteger'
    if (!generatedKey && !isInsertionOrder(col)) continue
    await rawRows(
      store,
      sql.raw(
        `SELECT setval(pg_get_serial_sequence('"${name}"', '${col.name}'), coalesce(max("${col.name}"), 0) + 1, false) FROM "${name}"`,
      ),
    )
  }
}

/** Thrown when the copy finds the target not as it must be; nothing has been written. */
export class CopyRefused extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CopyRefused'
  }
}

/** How many rows the table has in `store`. */
export async function countRows(store: Store, table: SQLiteTable): Promise<number> {
  const rows = await store.db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(store.table(table))
  return rows[0]?.n ?? 0
}
