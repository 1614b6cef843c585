// Copies the features' rows from one engine to the other (`engram export-data` / `import-data`):
// every table in an order where a row's foreign keys point at rows already copied, page by page in
// primary-key order (memory stays bounded by the page), then counts each table on both sides. The
// row values are the same JS values on both engines (pg-tables.ts), so a row is read through one
// engine's table and written through the other's. How the target takes the rows (one transaction,
// its triggers held off, its sequences moved on) is copy-targets.ts.
import { asc, getTableColumns, isNotNull, sql } from 'drizzle-orm'
import { getTableConfig, type SQLiteColumn, type SQLiteTable } from 'drizzle-orm/sqlite-core'
import { type CopyTarget, countRows } from './copy-targets'
import type { Store } from './store'

/** Rows of one table on both sides once copied. */
export interface CopiedTable {
  table: string
  source: number
  target: number
}

const PAGE = 500

/**
 * Copies `tables` from `source` into `target` in one transaction of the target's, and answers each
 * table's row count on both sides; throws (and the target keeps nothing) when a count differs.
 */
export async function copyTables(
  source: Store,
  target: CopyTarget,
  tables: readonly SQLiteTable[],
  progress: (table: string, rows: number) => void = () => {},
): Promise<CopiedTable[]> {
  const ordered = dependencyOrder(tables)
  return target.session(ordered, async (write) => {
    for (const table of ordered) {
      const { name } = getTableConfig(table)
      const selfRefs = selfReferences(table)
      let copied = 0
      for await (const rows of pages(source, table)) {
        // A column pointing at the same table is written once every row exists (second pass below).
        await write.insert(
          table,
          selfRefs.length === 0 ? rows : rows.map((r) => ({ ...r, ...nulls(selfRefs) })),
        )
        copied += rows.length
        progress(name, copied)
      }
      for (const column of selfRefs) {
        const key = primaryKey(table)[0]!
        const c = source.table(table) as unknown as Record<string, SQLiteColumn>
        const s = source.table(table)
        for (let after: unknown = null; ; ) {
          const keyCol = c[key]!
          const rows = (await source.db
            .select({ key: keyCol, value: c[column]! })
            .from(s)
            .where(
              after === null ? isNotNull(c[column]!) : sql`${c[column]} IS NOT NULL AND ${keyCol} > ${after}`,
            )
            .orderBy(asc(keyCol))
            .limit(PAGE)) as { key: unknown; value: unknown }[]
          if (rows.length === 0) break
          await write.setColumn(table, key, column, rows)
          after = rows[rows.length - 1]!.key
        }
      }
    }
    const counts: CopiedTable[] = []
    for (const table of ordered) {
      counts.push({
        table: getTableConfig(table).name,
        source: await countRows(source, table),
        target: await write.count(table),
      })
    }
    const off = counts.filter((c) => c.source !== c.target)
    if (off.length > 0) {
      throw new Error(
        `the counts differ after the copy (${off.map((c) => `${c.table}: ${c.source} read, ${c.target} written`).join('; ')}); nothing was kept`,
      )
    }
    return counts
  })
}

/** The tables in an order where every foreign key points at a table earlier in it (or itself). */
export function dependencyOrder(tables: readonly SQLiteTable[]): SQLiteTable[] {
  const out: SQLiteTable[] = []
  const placed = new Set<SQLiteTable>()
  const visit = (t: SQLiteTable, path: Set<SQLiteTable>) => {
    if (placed.has(t)) return
    if (path.has(t)) throw new Error(`foreign keys form a cycle through ${getTableConfig(t).name}`)
    path.add(t)
    for (const fk of getTableConfig(t).foreignKeys) {
      const to = fk.reference().foreignTable as SQLiteTable
      if (to !== t && tables.includes(to)) visit(to, path)
    }
    path.delete(t)
    placed.add(t)
    out.push(t)
  }
  for (const t of [...tables].sort((a, b) => getTableConfig(a).name.localeCompare(getTableConfig(b).name)))
    visit(t, new Set())
  return out
}

/** The JS keys of the columns by which `table` points at itself. */
function selfReferences(table: SQLiteTable): string[] {
  const byName = new Map(Object.entries(getTableColumns(table)).map(([k, c]) => [c.name, k]))
  return getTableConfig(table)
    .foreignKeys.filter((fk) => fk.reference().foreignTable === table)
    .flatMap((fk) => fk.reference().columns.map((c) => byName.get(c.name)!))
}

function nulls(keys: string[]): Record<string, null> {
  return Object.fromEntries(keys.map((k) => [k, null]))
}

/** The JS keys of the table's primary key (a column's, or the composite key's), or [] without one. */
export function primaryKey(table: SQLiteTable): string[] {
  const cols = Object.entries(getTableColumns(table))
  const single = cols.filter(([, c]) => c.primary).map(([k]) => k)
  if (single.length > 0) return single
  const composite = getTableConfig(table).primaryKeys[0]
  if (!composite) return []
  const names = new Set(composite.columns.map((c) => c.name))
  return cols.filter(([, c]) => names.has(c.name)).map(([k]) => k)
}

/**
 * The table's rows, a page at a time in primary-key order (keyset paging: each page starts after the
 * last key of the one before); a table without a key is read in the order of all its columns.
 */
async function* pages(store: Store, table: SQLiteTable): AsyncGenerator<Record<string, unknown>[]> {
  const t = store.table(table)
  const cols = getTableColumns(t) as Record<string, SQLiteColumn>
  const key = primaryKey(table)
  const order = (key.length > 0 ? key : Object.keys(cols)).map((k) => asc(cols[k]!))
  let after: Record<string, unknown> | null = null
  for (let offset = 0; ; offset += PAGE) {
    let q = store.db.select().from(t).$dynamic()
    if (key.length > 0 && after) {
      const last = after
      const tuple = sql.join(
        key.map((k) => sql`${cols[k]}`),
        sql`, `,
      )
      const values = sql.join(
        key.map((k) => sql`${last[k]}`),
        sql`, `,
      )
      q = q.where(sql`(${tuple}) > (${values})`)
    }
    q = q.orderBy(...order).limit(PAGE)
    if (key.length === 0) q = q.offset(offset)
    const rows = (await q) as Record<string, unknown>[]
    if (rows.length === 0) return
    yield rows
    if (rows.length < PAGE) return
    after = rows[rows.length - 1]!
  }
}
