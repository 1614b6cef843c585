import { afterEach, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { getTableConfig } from 'drizzle-orm/sqlite-core'
import { migrations } from '../../../migrations-pg/index'
import { declaredTables } from '../../../migrations-pg/schema'
import { migratePg } from '../../../src/platform/db/migrate-pg'
import { testPostgres } from '../../helpers/postgres'

// PostgreSQL's migrations (migrations-pg) applied by migratePg to a real server: every declared
// table with every declared column, once, under migrate.ts's rules.

const pg = await testPostgres()
const clients: SQL[] = []
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close()
})

/** A client of a new empty database (closed after the test). */
async function freshClient(url?: string): Promise<SQL> {
  if (!pg.available) throw new Error(pg.reason)
  const client = new SQL({ url: url ?? (await pg.freshDatabase()), max: 2 })
  clients.push(client)
  return client
}

/** Each table of the public schema with its columns, sorted. */
async function tablesOf(client: SQL): Promise<Record<string, string[]>> {
  const rows = (await client`SELECT table_name, column_name FROM information_schema.columns
    WHERE table_schema = 'public' ORDER BY table_name, column_name`) as {
    table_name: string
    column_name: string
  }[]
  const out: Record<string, string[]> = {}
  for (const r of rows) {
    out[r.table_name] ??= []
    out[r.table_name]!.push(r.column_name)
  }
  return out
}

describe.skipIf(!pg.available)('PostgreSQL migrations', () => {
  test('a fresh database gets every declared table with its columns, and the migration ledger', async () => {
    const client = await freshClient()
    expect(await migratePg(client, migrations)).toEqual(migrations.map((m) => m.tag))
    const declared: Record<string, string[]> = {}
    for (const t of declaredTables) {
      const c = getTableConfig(t)
      declared[c.name] = c.columns.map((col) => col.name).sort()
    }
    declared.__engram_migrations = ['applied_at', 'tag']
    expect(await tablesOf(client)).toEqual(declared)
  })

  test('a second run applies nothing, and two migrators at once apply each migration once', async () => {
    if (!pg.available) throw new Error(pg.reason)
    const url = await pg.freshDatabase()
    const [client, other] = [await freshClient(url), await freshClient(url)]
    const [a, b] = await Promise.all([migratePg(client, migrations), migratePg(other, migrations)])
    expect([...a, ...b].sort()).toEqual(migrations.map((m) => m.tag).sort())
    expect(await migratePg(client, migrations)).toEqual([])
    const ledger = (await client`SELECT tag FROM __engram_migrations ORDER BY tag`) as { tag: string }[]
    expect(ledger.map((r) => r.tag)).toEqual(migrations.map((m) => m.tag))
  })

  test('a database migrated by a newer build is refused', async () => {
    const client = await freshClient()
    await migratePg(client, [...migrations, { tag: '9999_future', sql: 'CREATE TABLE future (id integer)' }])
    await expect(migratePg(client, migrations)).rejects.toThrow('unknown migrations: 9999_future')
  })

  test('a failing migration leaves nothing of itself behind', async () => {
    const client = await freshClient()
    const bad = { tag: '0999_bad', sql: 'CREATE TABLE half (id integer);\n--> statement-breakpoint\nNOT SQL' }
    await expect(migratePg(client, [bad])).rejects.toThrow()
    expect(Object.keys(await tablesOf(client))).toEqual(['__engram_migrations'])
    expect(await migratePg(client, migrations)).toHaveLength(migrations.length)
  })
})
