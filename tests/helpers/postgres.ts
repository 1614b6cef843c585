// A real PostgreSQL for the tests: one private cluster per test process, started on first use from
// the machine's own binaries (Debian's `postgresql` package: /usr/lib/postgresql/<version>/bin), on a
// free loopback port with its socket in its own temporary directory, and stopped when the process
// exits (or, should it be killed, by a watchdog that outlives it). Each test takes a fresh database.
//
// Without PostgreSQL the tests that need it are skipped with the reason printed, so `npm test` works
// on a fresh clone; with ENGRAM_TEST_POSTGRES=required (CI) a missing or broken PostgreSQL fails.

import { spawn, spawnSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SQL } from 'bun'
import { freePort } from './ports'

/** A running cluster, or why there is none. */
export type TestPostgres =
  | {
      available: true
      /** A new empty database; its URL. */
      freshDatabase(): Promise<string>
      /**
       * A new database with every migration applied, made at once (no await) from a template migrated
       * on first use: what an app built synchronously (testApp) runs on. Its URL.
       */
      migratedDatabaseSync(): string
    }
  | { available: false; reason: string }

let started: TestPostgres | undefined

/**
 * The process's cluster, started on the first call. When none can be started it says why (and the
 * caller skips), unless ENGRAM_TEST_POSTGRES=required, when it throws.
 */
export async function testPostgres(): Promise<TestPostgres> {
  return testPostgresSync()
}

/** testPostgres, at once: starting the cluster is synchronous (its tools are run to completion). */
export function testPostgresSync(): TestPostgres {
  started ??= skipOrRequire(startPostgresSync(binaries()), process.env.ENGRAM_TEST_POSTGRES)
  return started
}

/** `pg` when it runs; else its reason printed, or thrown when `setting` is `required`. */
export function skipOrRequire(pg: TestPostgres, setting: string | undefined): TestPostgres {
  if (pg.available) return pg
  if (setting === 'required') {
    throw new Error(`ENGRAM_TEST_POSTGRES=required, but no PostgreSQL could be started: ${pg.reason}`)
  }
  console.warn(`PostgreSQL tests skipped: ${pg.reason}`)
  return pg
}

/** The directory of the newest installed PostgreSQL's binaries, or null. */
function binaries(): string | null {
  const debian = '/usr/lib/postgresql'
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => existsSync(join(debian, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a))
    if (versions[0]) return join(debian, versions[0], 'bin')
  }
  const onPath = Bun.which('initdb')
  return onPath ? join(onPath, '..') : null
}

/** The uid and gid of the `postgres` OS user (PostgreSQL refuses to run as root), or null. */
function postgresUser(): { uid: number; gid: number } | null {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'))
  if (!line) return null
  const [, , uid, gid] = line.split(':')
  return { uid: Number(uid), gid: Number(gid) }
}

/** A cluster from the binaries in `bin` (null: none installed). Use testPostgres(), which shares one. */
export async function startPostgres(bin: string | null): Promise<TestPostgres> {
  return startPostgresSync(bin)
}

function startPostgresSync(bin: string | null): TestPostgres {
  if (!bin)
    return {
      available: false,
      reason: 'no PostgreSQL binaries (initdb) in /usr/lib/postgresql/*/bin or on PATH',
    }
  const root = process.getuid?.() === 0
  const owner = root ? postgresUser() : null
  if (root && !owner)
    return {
      available: false,
      reason: 'running as root and there is no `postgres` user to run PostgreSQL as',
    }
  const as = (cmd: string[]) => (root ? ['runuser', '-u', 'postgres', '--', ...cmd] : cmd)
  const run = (cmd: string[]) => spawnSync(as(cmd)[0]!, as(cmd).slice(1), { encoding: 'utf8' })

  const dir = mkdtempSync(join(tmpdir(), 'engram-pg-'))
  if (owner) chownSync(dir, owner.uid, owner.gid)
  const data = join(dir, 'data')
  const stop = [join(bin, 'pg_ctl'), '-D', data, 'stop', '-m', 'immediate']
  const init = run([
    join(bin, 'initdb'),
    '-D',
    data,
    '-A',
    'trust',
    '-U',
    'postgres',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ])
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true })
    return {
      available: false,
      reason: `initdb failed: ${(init.stderr || init.stdout || '').trim().slice(-500)}`,
    }
  }
  let port = 0
  let failure = ''
  for (let attempt = 0; attempt < 3 && !port; attempt++) {
    // A port nobody listens on now: the cluster takes it a moment later, and a clash is retried.
    const candidate = freePort()
    // Durability is not what a test measures: without fsync a fresh database costs milliseconds. A
    // whole pass runs every file in one process, each app with a pool and a listening connection of
    // its own: room for four hundred connections, where the default is a hundred.
    const options = `-p ${candidate} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400`
    const up = run([
      join(bin, 'pg_ctl'),
      '-D',
      data,
      '-o',
      options,
      '-l',
      join(dir, 'log'),
      '-w',
      '-t',
      '60',
      'start',
    ])
    if (up.status === 0) port = candidate
    else
      failure = existsSync(join(dir, 'log')) ? readFileSync(join(dir, 'log'), 'utf8').slice(-500) : up.stderr
  }
  if (!port) {
    rmSync(dir, { recursive: true, force: true })
    return { available: false, reason: `PostgreSQL did not start: ${failure.trim()}` }
  }
  // `bun test` runs no exit handlers, nor does a killed process: this watchdog waits for the end of
  // a pipe from this process, which closes however the process ends, then stops the cluster.
  const quoted = (cmd: string[]) => cmd.map((a) => `'${a}'`).join(' ')
  const watchdog = spawn(
    'sh',
    ['-c', `cat >/dev/null; ${quoted(as(stop))} >/dev/null 2>&1; rm -rf '${dir}'`],
    {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    },
  )
  watchdog.unref()
  ;(watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.()

  const server = `postgres://postgres@127.0.0.1:${port}`
  let databases = 0
  let template = false
  const psql = (command: string) => {
    const done = spawnSync(
      join(bin, 'psql'),
      ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', `${server}/postgres`, '-c', command],
      {
        encoding: 'utf8',
      },
    )
    if (done.status !== 0) throw new Error(`psql ${command}: ${done.stderr}`)
  }
  return {
    available: true,
    async freshDatabase() {
      const name = `engram_test_${++databases}`
      const admin = new SQL({ url: `${server}/postgres`, max: 1 })
      try {
        await admin.unsafe(`CREATE DATABASE ${name}`)
      } finally {
        await admin.close()
      }
      return `${server}/${name}`
    },
    migratedDatabaseSync() {
      if (!template) {
        psql('DROP DATABASE IF EXISTS engram_template')
        psql('CREATE DATABASE engram_template')
        // The migrations are applied by the product's own migrator, in a process of its own.
        const migrated = spawnSync(process.execPath, ['run', MIGRATE_SCRIPT, `${server}/engram_template`], {
          encoding: 'utf8',
        })
        if (migrated.status !== 0) {
          throw new Error(
            `migrating the template failed (${migrated.status}): ${migrated.stderr || migrated.stdout}`,
          )
        }
        template = true
      }
      const name = `engram_app_${++databases}`
      psql(`CREATE DATABASE ${name} TEMPLATE engram_template`)
      return `${server}/${name}`
    },
  }
}

/** Applies migrations-pg to the database at argv[2] (tests/helpers/pg-migrate.ts). */
const MIGRATE_SCRIPT = join(import.meta.dir, 'pg-migrate.ts')
