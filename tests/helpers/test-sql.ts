// Raw SQL for tests that look at (or tamper with) the rows behind the API, on whichever engine the
// test app runs: SQLite (the data dir's file) or PostgreSQL (ENGRAM_TEST_DATABASE=postgres,
// tests/helpers/app.ts). Statements are written once with `?` placeholders, as for bun:sqlite; on
// PostgreSQL they become `$1, $2 ...`, and values come back as SQLite gives them: integers
// (PostgreSQL's bigint, a string in Bun's client) as numbers and booleans as 1 and 0, so one
// assertion holds on both. SQL that only one engine speaks (`INSERT OR IGNORE`, `unixepoch()`) must
// be written in the form both speak.
import type { Database } from 'bun:sqlite'
import type { SQL } from 'bun'
import type { NotifiedCommits } from '../../src/platform/db/store.postgres'
import { COMMITS_CHANNEL } from '../../src/platform/db/store.postgres'
import { writeFromAnotherProcess } from './other-process'

type Param = string | number | boolean | null | Uint8Array
type Row = Record<string, unknown>

/** Raw statements on the test app's database. */
export interface TestSql {
  readonly engine: 'sqlite' | 'postgres'
  all<T = Row>(query: string, ...params: Param[]): Promise<T[]>
  get<T = Row>(query: string, ...params: Param[]): Promise<T | undefined>
  run(query: string, ...params: Param[]): Promise<void>
  /**
   * Runs one statement as another Engram process would, committed where this process learns of it
   * as it learns of any other process's commit: on SQLite a child process writing the file, on
   * PostgreSQL another connection that also notifies the commit (as every unit does), waited for
   * until this process has heard it.
   */
  runElsewhere(query: string, ...params: Param[]): Promise<void>
}

/** Raw SQL on a SQLite connection (the writer: tests run outside any unit). */
export function sqliteSql(client: Database): TestSql {
  return {
    engine: 'sqlite',
    async all<T>(query: string, ...params: Param[]) {
      return client.query(query).all(...(params as never[])) as T[]
    },
    async get<T>(query: string, ...params: Param[]) {
      return (client.query(query).get(...(params as never[])) ?? undefined) as T | undefined
    },
    async run(query: string, ...params: Param[]) {
      client.query(query).run(...(params as never[]))
    },
    async runElsewhere(query: string, ...params: Param[]) {
      writeFromAnotherProcess(client.filename, query, params as (string | number | null)[])
    },
  }
}

/** Raw SQL on a PostgreSQL pool; `commits` is the app store's, told of commits elsewhere. */
export function postgresSql(client: SQL, url: string, commits: NotifiedCommits): TestSql {
  const all = async <T>(query: string, params: Param[]): Promise<T[]> => {
    const rows = (await client.unsafe(numbered(query), params as never[])) as Row[] & {
      columns?: { name: string; type: number }[]
    }
    return rows.map((r) => asSqlite(r, rows.columns ?? [])) as T[]
  }
  return {
    engine: 'postgres',
    all: <T>(query: string, ...params: Param[]) => all<T>(query, params),
    async get<T>(query: string, ...params: Param[]) {
      return (await all<T>(query, params))[0]
    },
    async run(query: string, ...params: Param[]) {
      await client.unsafe(numbered(query), params as never[])
    },
    async runElsewhere(query: string, ...params: Param[]) {
      const { SQL: Client } = await import('bun')
      const other = new Client({ url, max: 1 })
      const told = commits.next()
      try {
        await other.begin(async (tx) => {
          await tx.unsafe(numbered(query), params as never[])
          await tx`SELECT pg_notify(${COMMITS_CHANNEL}, 'another process')`
        })
      } finally {
        await other.close()
      }
      await told
    },
  }
}

/** `?` placeholders (bun:sqlite's) as PostgreSQL's `$1, $2 ...`; `?NNN` keeps its number. */
export function numbered(query: string): string {
  let n = 0
  return query.replace(/\?(\d+)?/g, (_, at: string | undefined) => `$${at ?? ++n}`)
}

const INT8 = 20
const NUMERIC = 1700
const BOOL = 16

/**
 * A PostgreSQL row with the values SQLite gives: bigints (and numerics, what a sum of bigints is) as
 * numbers, booleans as 1 or 0.
 */
function asSqlite(row: Row, columns: { name: string; type: number }[]): Row {
  for (const c of columns) {
    const v = row[c.name]
    if ((c.type === INT8 || c.type === NUMERIC) && typeof v === 'string') row[c.name] = Number(v)
    else if (c.type === BOOL && typeof v === 'boolean') row[c.name] = v ? 1 : 0
  }
  return row
}
