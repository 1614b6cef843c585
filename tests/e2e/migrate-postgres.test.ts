import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { SQL } from 'bun'
import { migrations as pgMigrations } from '../../migrations-pg/index'
import { testPostgres } from '../helpers/postgres'

// `engram migrate` with ENGRAM_DATABASE_URL applies the PostgreSQL migrations to that database, once
// (a second run finds it up to date), as an operator runs it before starting the server; a database
// it cannot reach is an error that never shows the URL's password; and the server serves from it.

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

  test('the server does not start on PostgreSQL without ENGRAM_SECRET, which every process must share', async () => {
    if (!pg.available) return
    const url = await pg.freshDatabase()
    const run = Bun.spawnSync([process.execPath, 'run', join(ROOT, 'src/main.ts'), 'serve'], {
      cwd: dir,
      env: { PATH: Bun.env.PATH ?? '', ENGRAM_DATA_DIR: join(dir, 'unsigned'), ENGRAM_DATABASE_URL: url },
      stdout: 'pipe',
      stderr: 'pipe',
      timeout: 30_000,
    })
    expect(run.exitCode).not.toBe(0)
    expect(run.stderr.toString()).toContain('ENGRAM_SECRET must be set with ENGRAM_DATABASE_URL')
  })

  test('the server serves from PostgreSQL: a sign-up lands there, the data dir keeps only the index', async () => {
    if (!pg.available) return
    const url = await pg.freshDatabase()
    const proc = Bun.spawn([process.execPath, 'run', join(ROOT, 'src/main.ts'), 'serve'], {
      cwd: dir,
      env: {
        PATH: Bun.env.PATH ?? '',
        ENGRAM_DATA_DIR: join(dir, 'served'),
        ENGRAM_DATABASE_URL: url,
        ENGRAM_SECRET: 'served-secret-served-secret-served-secret-1',
        ENGRAM_HOST: '127.0.0.1',
        ENGRAM_PORT: '0',
        ENGRAM_EMAIL: 'log',
        ENGRAM_PASSWORD_MEMORY_KIB: '1024',
      },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    try {
      // The JSON log line `listening` names the port.
      const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader()
      const decoder = new TextDecoder()
      let log = ''
      let port = 0
      while (!port) {
        const { done, value } = await reader.read()
        if (done) throw new Error(`engram serve ended: ${log}${await new Response(proc.stderr).text()}`)
        log += decoder.decode(value, { stream: true })
        port = Number(/"msg":"listening".*?"port":(\d+)/.exec(log)?.[1] ?? 0)
      }
      reader.releaseLock()
      const res = await fetch(`http://127.0.0.1:${port}/v1/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          email: 'first@example.com',
          password: 'a long password',
          workspace_name: 'On PG',
          name: 'First',
        }),
      })
      expect(res.status).toBe(200)
      const client = new SQL({ url, max: 1 })
      try {
        const users = (await client`SELECT email FROM users`) as { email: string }[]
        expect(users.map((u) => u.email)).toEqual(['first@example.com'])
      } finally {
        await client.close()
      }
      // The data dir's SQLite file has the schema (the engine's index lives there) but no user.
      const { Database } = await import('bun:sqlite')
      const file = new Database(join(dir, 'served', 'engram.db'), { readonly: true })
      try {
        expect(file.query<{ n: number }, []>('SELECT count(*) AS n FROM users').get()!.n).toBe(0)
      } finally {
        file.close()
      }
    } finally {
      proc.kill('SIGTERM')
      await proc.exited
    }
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
