import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { SQL } from 'bun'
import { migrations as pgMigrations } from '../../migrations-pg/index'
import { testPostgres } from '../helpers/postgres'

// `engram migrate` with ENGRAM_DATABASE_URL applies the PostgreSQL migrations to that database, once
// (a second run finds it up to date), as an operator runs it before starting the server; a database
// it cannot reach is an error that never shows the URL's password; and the server refuses to serve
// from PostgreSQL while features still keep their state in SQLite only.

const ROOT = resolve(import.meta.dir, '../..')
const dir = mkdtempSync(join(tmpdir(), 'engram-migrate-pg-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function engram(args: string[], url: string) {
  const run = Bun.spawnSync([process.execPath, 'run', join(ROOT, 'src/main.ts'), ...args], {
    cwd: dir,
    env: { PATH: Bun.env.PATH ?? '', ENGRAM_DATA_DIR: join(dir, 'data'), ENGRAM_DATABASE_URL: url },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  return { code: run.exitCode, out: run.stdout.toString(), err: run.stderr.toString() }
}

const pg = await testPostgres()

describe.skipIf(!pg.available)('engram migrate on PostgreSQL', () => {
  test('applies every migration once, then finds the database up to date', async () => {
    if (!pg.available) return
    const url = await pg.freshDatabase()
    const first = engram(['migrate'], url)
    expect(first.err).toBe('')
    expect(first.code).toBe(0)
    expect(first.out.trim()).toBe(`applied: ${pgMigrations.map((m) => m.tag).join(', ')}`)
    const again = engram(['migrate'], url)
    expect(again.code).toBe(0)
    expect(again.out.trim()).toBe('database is up to date')
    const client = new SQL({ url, max: 1 })
    try {
      const tables =
        (await client`SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'workspaces'`) as {
          n: number
        }[]
      expect(tables[0]!.n).toBe(1)
      const ledger = (await client`SELECT tag FROM __engram_migrations ORDER BY tag`) as { tag: string }[]
      expect(ledger.map((r) => r.tag)).toEqual(pgMigrations.map((m) => m.tag))
    } finally {
      await client.close()
    }
  }, 60_000)

  test('the server refuses to serve from PostgreSQL while features still keep SQLite state', async () => {
    if (!pg.available) return
    const run = engram(['serve'], await pg.freshDatabase())
    expect(run.code).toBe(78)
    expect(run.err).toContain('ENGRAM_DATABASE_URL: serving from PostgreSQL is not available')
  }, 60_000)
})

describe('engram migrate on a PostgreSQL it cannot use', () => {
  test('a database that does not answer is an error naming it, without its password', () => {
    // Port 1 on loopback: nothing listens there.
    const run = engram(['migrate'], 'postgres://engram:s3cret-pass@127.0.0.1:1/engram')
    expect(run.code).not.toBe(0)
    expect(run.err).toContain('PostgreSQL at postgres://engram:***@127.0.0.1:1/engram')
    expect(run.err + run.out).not.toContain('s3cret-pass')
  }, 60_000)

  test('a URL that is not postgres:// is refused as configuration, its value hidden', () => {
    const run = engram(['migrate'], 'mysql://root:hunter2@127.0.0.1/engram')
    expect(run.code).toBe(78)
    expect(run.err).toContain('a postgres:// URL')
    expect(run.err).not.toContain('hunter2')
  }, 60_000)
})
