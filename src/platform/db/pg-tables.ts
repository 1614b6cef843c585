import { type Column, getTableColumns, is, SQL, StringChunk, type Table } from 'drizzle-orm'
import {
  bigint,
  boolean,
  customType,
  doublePrecision,
  foreignKey,
  index,
  type PgColumn,
  type PgColumnBuilderBase,
  type PgTable,
  type PgTableWithColumns,
  pgTable,
  primaryKey,
  text,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core'
import { getTableConfig, SQLiteColumn, type SQLiteTable } from 'drizzle-orm/sqlite-core'
import { isInsertionOrder } from './insertion-order'

// Every table is declared once, as drizzle's SQLite table in its `*.tables.ts`; its PostgreSQL table
// is derived from that declaration here, so the two cannot drift apart. A twin's columns give the
// code the same JS values on both engines (docs/data-layer.md). Only what our tables use is
// supported: anything else throws when the twin is made, so a new kind of column is a decision made
// here, not a silent difference.

/** The PostgreSQL column of SQLite column `C`: the same name, JS value, nullability and default. */
type TwinColumn<C extends Column> = PgColumn<{
  name: C['_']['name']
  tableName: C['_']['tableName']
  dataType: C['_']['dataType']
  columnType: string
  data: C['_']['data']
  driverParam: unknown
  notNull: C['_']['notNull']
  hasDefault: C['_']['hasDefault']
  isPrimaryKey: C['_']['isPrimaryKey']
  isAutoincrement: C['_']['isAutoincrement']
  hasRuntimeDefault: C['_']['hasRuntimeDefault']
  enumValues: C['_']['enumValues']
}>

/** The PostgreSQL table derived from SQLite table `T`: same name, same keys, same JS row types. */
export type PgTwin<T extends SQLiteTable> = PgTableWithColumns<{
  name: T['_']['name']
  schema: undefined
  dialect: 'pg'
  columns: { [K in keyof T['_']['columns']]: TwinColumn<T['_']['columns'][K]> }
}>

/** PostgreSQL truncates longer identifiers, so two long names could silently become one. */
const MAX_IDENTIFIER_BYTES = 63

/** `bytea` read and written as the Buffer that bun:sqlite gives for a `blob({ mode: 'buffer' })`. */
const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
})

/** JSON kept as text, as SQLite keeps `text({ mode: 'json' })`: the same parsed value back. */
const jsonText = customType<{ data: unknown; driverData: string }>({
  dataType: () => 'text',
  toDriver: (value) => JSON.stringify(value),
  fromDriver: (value) => JSON.parse(value),
})

/** A Date kept as integer milliseconds (`integer({ mode: 'timestamp_ms' })`), or seconds. */
const epochDate = (unit: 1 | 1000) =>
  customType<{ data: Date; driverData: string | number }>({
    dataType: () => 'bigint',
    toDriver: (value) => Math.floor(value.getTime() / unit),
    fromDriver: (value) => new Date(Number(value) * unit),
  })

const twins = new WeakMap<SQLiteTable, PgTable>()

/** The PostgreSQL twin of a SQLite table (made once, then the same object). Throws on what it cannot map. */
export function pgTwin<T extends SQLiteTable>(table: T): PgTwin<T> {
  let twin = twins.get(table)
  if (!twin) {
    twin = deriveTwin(table)
    twins.set(table, twin)
  }
  return twin as unknown as PgTwin<T>
}

function deriveTwin(table: SQLiteTable): PgTable {
  const config = getTableConfig(table)
  const at = config.name
  if (config.checks.length > 0) throw unsupported(at, 'check constraints')
  const builders: Record<string, PgColumnBuilderBase> = {}
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    builders[key] = twinColumn(column as SQLiteColumn, `${at}.${column.name}`)
  }
  for (const fk of config.foreignKeys) checkName(fk.getName(), at)
  for (const pk of config.primaryKeys) checkName(pk.getName(), at)
  for (const u of config.uniqueConstraints) checkName(u.getName() ?? '', at)
  // Checked now, though built later: the twin's extra config is built lazily (a foreign key may
  // name a table whose twin is not made yet, or this very table).
  for (const idx of config.indexes) {
    checkName(idx.config.name, at)
    if (idx.config.columns.some((col) => is(col, SQL)))
      throw unsupported(`${at} index ${idx.config.name}`, 'an expression index')
    if (idx.config.where)
      twinSql(idx.config.where, table, (column) => column as PgColumn, `${at} index ${idx.config.name}`)
  }
  return pgTable(config.name, builders, (self) => {
    const own = (column: Column) => (self as Record<string, PgColumn>)[keyOf(table, column)]!
    const columns = (list: Column[]) => list.map(own) as [PgColumn, ...PgColumn[]]
    return [
      ...config.primaryKeys.map((pk) => primaryKey({ name: pk.getName(), columns: columns(pk.columns) })),
      ...config.uniqueConstraints.map((u) => unique(u.getName()).on(...columns(u.columns))),
      ...config.foreignKeys.map((fk) => {
        const ref = fk.reference()
        const foreign = pgTwin(ref.foreignTable) as unknown as Record<string, PgColumn>
        const built = foreignKey({
          name: fk.getName(),
          columns: columns(ref.columns),
          foreignColumns: ref.foreignColumns.map((c) => foreign[keyOf(ref.foreignTable, c)]!) as [
            PgColumn,
            ...PgColumn[],
          ],
        })
        if (fk.onDelete) built.onDelete(fk.onDelete)
        if (fk.onUpdate) built.onUpdate(fk.onUpdate)
        return built
      }),
      ...config.indexes.map(({ config: c }) => {
        const built = (c.unique ? uniqueIndex(c.name) : index(c.name)).on(...columns(c.columns as Column[]))
        return c.where ? built.where(twinSql(c.where, table, own, `${at} index ${c.name}`)) : built
      }),
    ]
  })
}

/** The PostgreSQL column builder for one SQLite column, with its constraints and default. */
function twinColumn(column: SQLiteColumn, where: string): PgColumnBuilderBase {
  const c = column as SQLiteColumn & { config: { length?: number } }
  if (column.generated) throw unsupported(where, 'a generated column')
  if (isInsertionOrder(column))
    return bigint(column.name, { mode: 'number' }).generatedByDefaultAsIdentity().notNull()
  if (column.defaultFn || column.onUpdateFn) throw unsupported(where, 'a default or update function')
  if (is(column.default, SQL)) throw unsupported(where, 'an SQL default (translate it here first)')
  const name = column.name
  let builder: ReturnType<typeof text> | ReturnType<typeof bigint> | ReturnType<typeof bytea>
  let literalDefault = true
  switch (column.columnType) {
    case 'SQLiteText':
      if (c.config.length !== undefined) throw unsupported(where, 'a text length')
      builder = column.enumValues
        ? text(name, { enum: column.enumValues as [string, ...string[]] })
        : text(name)
      break
    case 'SQLiteInteger':
      builder = bigint(name, { mode: 'number' })
      // SQLite gives an integer primary key the next rowid when an insert leaves it out.
      if (column.primary) builder = (builder as ReturnType<typeof bigint>).generatedByDefaultAsIdentity()
      break
    case 'SQLiteBoolean':
      builder = boolean(name) as unknown as typeof builder
      break
    case 'SQLiteReal':
      builder = doublePrecision(name) as unknown as typeof builder
      break
    case 'SQLiteBlobBuffer':
      builder = bytea(name)
      literalDefault = false
      break
    case 'SQLiteTextJson':
      builder = jsonText(name) as unknown as typeof builder
      literalDefault = false
      break
    case 'SQLiteTimestamp':
      builder = epochDate((column as unknown as { mode: string }).mode === 'timestamp' ? 1000 : 1)(
        name,
      ) as unknown as typeof builder
      literalDefault = false
      break
    default:
      throw unsupported(where, `a ${column.columnType} column`)
  }
  if (column.hasDefault && column.default !== undefined) {
    if (!literalDefault) throw unsupported(where, `a default on a ${column.columnType} column`)
    if (!['string', 'number', 'boolean'].includes(typeof column.default))
      throw unsupported(where, 'this default')
    builder = builder.default(column.default as never) as typeof builder
  }
  if (column.notNull) builder = builder.notNull() as typeof builder
  if (column.primary) builder = builder.primaryKey() as typeof builder
  if (column.isUnique && column.uniqueName) {
    checkName(column.uniqueName, where)
    builder = builder.unique(column.uniqueName) as typeof builder
  }
  return builder
}

/** An index's `where` with the twin's columns in place of the SQLite ones: only text and own columns. */
function twinSql(where: SQL, table: SQLiteTable, own: (column: Column) => PgColumn, at: string): SQL {
  const chunks = where.queryChunks.map((chunk) => {
    if (is(chunk, StringChunk)) return chunk
    if (is(chunk, SQLiteColumn) && (chunk as Column).table === table) return own(chunk as Column)
    throw unsupported(at, 'a condition with parameters, nested SQL or other tables')
  })
  return new SQL(chunks)
}

/** The JS key of a table's column (a twin keeps the declaration's keys). */
function keyOf(table: Table, column: Column): string {
  for (const [key, c] of Object.entries(getTableColumns(table))) if (c === column) return key
  throw new Error(`${column.name} is not a column of its table`)
}

function checkName(name: string, where: string) {
  if (Buffer.byteLength(name) > MAX_IDENTIFIER_BYTES) {
    throw new Error(`${where}: the name ${name} is longer than PostgreSQL's ${MAX_IDENTIFIER_BYTES} bytes`)
  }
}

function unsupported(where: string, what: string): Error {
  return new Error(
    `${where}: ${what} has no PostgreSQL twin yet; add its mapping to src/platform/db/pg-tables.ts (docs/data-layer.md)`,
  )
}
