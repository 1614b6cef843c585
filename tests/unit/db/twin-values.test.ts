import { afterAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { asc, getTableColumns } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/bun-sql'
import { getTableConfig as getPgTableConfig } from 'drizzle-orm/pg-core'
import {
  blob,
  getTableConfig,
  integer,
  real,
  type SQLiteColumn,
  type SQLiteTable,
  sqliteTable,
  text,
} from 'drizzle-orm/sqlite-core'
import { migrations as sqliteMigrations } from '../../../migrations/index'
import { migrations as pgMigrations } from '../../../migrations-pg/index'
import { declaredTables } from '../../../migrations-pg/schema'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { migratePg } from '../../../src/platform/db/migrate-pg'
import { pgTwin } from '../../../src/platform/db/pg-tables'
import { testPostgres } from '../../helpers/postgres'

// The same rows written through a table's SQLite declaration into SQLite and through its twin into
// PostgreSQL read back as the same JS values on both: every column kind our tables use (text,
// enums, integers as large as ms timestamps and beyond, booleans, reals, bytes) and nulls/defaults.

const pg = await testPostgres()

/** A value for one column of row `n` of a table; unique per row, as keys and unique indexes need. */
function valueFor(column: SQLiteColumn, n: number): unknown {
  switch (column.columnType) {
    case 'SQLiteText':
      return column.enumValues
        ? column.enumValues[n % column.enumValues.length]
        : `${column.name} ${n}: é ✓ '"\\ 🙂`
    case 'SQLiteInteger':
      // The largest integer a JS number holds exactly, a ms timestamp, and a negative one.
      return [Number.MAX_SAFE_INTEGER - n, 1_795_290_140_214 + n, -2_147_483_649 - n][n % 3]
    case 'SQLiteBoolean':
      return n % 2 === 0
    case 'SQLiteReal':
      return 0.1 + 0.2 + n
    case 'SQLiteBlobBuffer':
      return Buffer.from([0, 255, n, ...Buffer.from('bytes')])
    case 'SQLiteTimestamp':
      return new Date(1_795_290_140_214 + n * 1000)
    case 'SQLiteTextJson':
      return { n, list: [1, 'two', null], nested: { ok: true } }
    default:
      throw new Error(`no test value for a ${column.columnType} column`)
  }
}

/**
 * The first row sets only the columns that have neither a default nor null to fall back on (so an
 * integer primary key is generated: 1 on both engines' empty tables); the second sets every column.
 */
function rowsFor(table: SQLiteTable): Record<string, unknown>[] {
  const columns = Object.entries(getTableColumns(table)) as [string, SQLiteColumn][]
  const sparse = Object.fromEntries(
    columns.filter(([, c]) => c.notNull && !c.hasDefault).map(([key, c]) => [key, valueFor(c, 2)]),
  )
  const full = Object.fromEntries(columns.map(([key, c]) => [key, valueFor(c, 1)]))
  return [sparse, full]
}

/** Writes the rows through the SQLite table and its twin; returns what each engine reads back. */
async function roundTrip(
  table: SQLiteTable,
  rows: Record<string, unknown>[],
  pgDb: ReturnType<typeof drizzle>,
) {
  const sqlite = openDatabase(':memory:')
  try {
    migrate(sqlite, sqliteMigrations)
    // Rows name parents that do not exist: foreign keys are not what this test is about.
    sqlite.$client.exec('PRAGMA foreign_keys = OFF')
    const twin = pgTwin(table)
    const order = Object.values(getTableConfig(table).columns)[0]!
    for (const row of rows) {
      sqlite
        .insert(table)
        .values(row as never)
        .run()
      await pgDb.insert(twin).values(row as never)
    }
    const fromSqlite = sqlite.select().from(table).orderBy(asc(order)).all()
    const twinOrder = (getTableColumns(twin) as Record<string, never>)[
      Object.keys(getTableColumns(table))[0]!
    ]!
    const fromPg = await pgDb.select().from(twin).orderBy(asc(twinOrder))
    return { fromSqlite, fromPg }
  } finally {
    sqlite.$client.close()
  }
}

/** Each value's kind (toEqual takes a Uint8Array for an equal Buffer, which code may not). */
const valueKinds = (rows: Record<string, unknown>[]) =>
  rows.map((r) => Object.values(r).map((v) => (v === null ? 'null' : (v?.constructor?.name ?? typeof v))))

describe.skipIf(!pg.available)('a table and its PostgreSQL twin', () => {
  let client: SQL
  let pgDb: ReturnType<typeof drizzle>
  const open = async () => {
    if (!pg.available) throw new Error(pg.reason)
    // One connection, so the session setting below holds for every statement.
    client = new SQL({ url: await pg.freshDatabase(), max: 1 })
    await migratePg(client, pgMigrations)
    await client.unsafe('SET session_replication_role = replica')
    pgDb = drizzle({ client })
  }
  afterAll(async () => {
    await client?.close()
  })

  test.each(declaredTables.map((t) => [getTableConfig(t).name, t] as const))(
    '%s: the same row reads back as the same values from SQLite and PostgreSQL',
    async (_name, table) => {
      if (!pgDb) await open()
      const rows = rowsFor(table)
      const { fromSqlite, fromPg } = await roundTrip(table, rows, pgDb)
      expect(fromPg).toEqual(fromSqlite)
      expect(valueKinds(fromPg)).toEqual(valueKinds(fromSqlite))
      // The full row reads back as written, on both.
      const full = rows[1]!
      expect(
        fromSqlite.find((r) => Object.entries(full).every(([k, v]) => Bun.deepEquals(r[k as never], v))),
      ).toBeDefined()
    },
  )

  test('dates and JSON (column kinds the twin supports that no table declares yet) read back the same', async () => {
    if (!pgDb) await open()
    const kinds = sqliteTable('twin_kinds', {
      id: text('id').primaryKey(),
      atMs: integer('at_ms', { mode: 'timestamp_ms' }),
      atS: integer('at_s', { mode: 'timestamp' }),
      doc: text('doc', { mode: 'json' }),
      flag: integer('flag', { mode: 'boolean' }),
      ratio: real('ratio'),
      bytes: blob('bytes', { mode: 'buffer' }),
    })
    const ddl = (columns: { name: string; getSQLType(): string }[]) =>
      `CREATE TABLE twin_kinds (${columns.map((c) => `${c.name} ${c.getSQLType()}`).join(', ')})`
    const twinColumns = getPgTableConfig(pgTwin(kinds)).columns
    await client.unsafe(ddl(twinColumns))
    const sqlite = openDatabase(':memory:')
    sqlite.$client.exec(ddl(getTableConfig(kinds).columns))
    const rows = [
      {
        id: 'a',
        atMs: new Date(1_795_290_140_214),
        atS: new Date(1_795_290_140_000),
        doc: { a: [1, 'b', null] },
        flag: true,
        ratio: 0.3,
        bytes: Buffer.from([0, 1]),
      },
      { id: 'b' },
    ]
    for (const row of rows) {
      sqlite.insert(kinds).values(row).run()
      await pgDb.insert(pgTwin(kinds)).values(row)
    }
    const fromSqlite = sqlite.select().from(kinds).orderBy(kinds.id).all()
    const fromPg = await pgDb.select().from(pgTwin(kinds)).orderBy(pgTwin(kinds).id)
    sqlite.$client.close()
    expect(fromPg).toEqual(fromSqlite)
    expect(valueKinds(fromPg)).toEqual(valueKinds(fromSqlite))
    expect(fromSqlite[0]).toEqual({ ...rows[0]!, atS: new Date(1_795_290_140_000) } as never)
    expect(twinColumns.map((c) => c.getSQLType())).toEqual([
      'text',
      'bigint',
      'bigint',
      'text',
      'boolean',
      'double precision',
      'bytea',
    ])
  })
})
