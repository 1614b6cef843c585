// Several real `engram serve` processes of the compiled executable as replicas of one deployment
// (issue 40, docs/scale-out.md "Test plan"): each on a free loopback port with a data dir of its own
// (nothing shared on disk), all on one PostgreSQL database (a fresh one of the tests' private
// cluster, tests/helpers/postgres.ts) and one bucket of one S3-compatible server (the pass's s3rver,
// ENGRAM_TEST_S3_ENDPOINT, else one started here and stopped with the set), with one ENGRAM_SECRET.
// Each replica keeps its port across restarts (a free one chosen once) and writes its log lines to a
// file of its own data dir's folder, so any log level works (the benchmark runs at `error`). Waits are
// on conditions (the health URL answering, a log line, a row) with a deadline.
//
// A replica cannot be started without jobs (`engram serve` always runs its scheduler: there is no
// setting to turn it off), so a test that needs one replica to be the only runner starts the others
// later (`startLater`, then `start(i)`).
//
// Whether a test can run: replicas need PostgreSQL, so the rule is tests/helpers/postgres.ts's (run
// when a cluster starts; skipped with the reason printed when none can; thrown with
// ENGRAM_TEST_POSTGRES=required, as CI sets in both passes).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SQL, type Subprocess } from 'bun'
import { binaryPath } from './binary'
import { freePorts } from './ports'
import type { TestPostgres } from './postgres'
import { type S3rverProcess, startS3rverProcess } from './standins/s3rver-process'

/** The secret every replica shares (ENGRAM_SECRET is required with PostgreSQL). */
export const REPLICA_SECRET = 'replicas-secret-replicas-secret-replicas-0'

/** How long a replica may take to start, or a condition to hold, before a wait fails. */
const START_MS = 60_000

/** Waits until `check` holds, polling every 20 ms; throws naming `what` past `ms`. */
export async function until(check: () => Promise<boolean> | boolean, what: string, ms = 30_000) {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await Bun.sleep(20)
  }
}

/** A running replica: its process, URL and log. */
export interface Replica {
  proc: Subprocess
  url: string
  /** The JSON log lines it has written so far (this run of it). */
  lines(): Record<string, unknown>[]
}

export interface ReplicaOptions {
  /** How many replicas (default 3). */
  count?: number
  /** Settings of every replica (on top of the harness's). */
  env?: Record<string, string>
  /** Settings of one replica, by index (on top of `env`). */
  envOf?: (i: number) => Record<string, string>
  /** Replicas left stopped at first (started by `start(i)`). */
  startLater?: number[]
}

/** A running set of replicas on one database and one bucket. */
export interface Replicas {
  /** The shared database's URL. */
  readonly databaseUrl: string
  /** A connection of the test's own to the shared database (read the jobs table, ...). */
  readonly sql: SQL
  /** How many replicas the set has (running or not). */
  readonly count: number
  /** The URL replica `i` serves on (the same after a restart). */
  url(i: number): string
  /** Replica `i`'s process id (its job owner is `proc_<pid>_…`). */
  pid(i: number): number
  /** Replica `i`'s running process and its log lines. */
  replica(i: number): Replica
  /** Whether replica `i` is running. */
  running(i: number): boolean
  /** Starts replica `i` on its data dir (left stopped, stopped or killed before). */
  start(i: number): Promise<void>
  /** Sends `signal` to replica `i` and waits for its process to end. */
  kill(i: number, signal?: 'SIGKILL' | 'SIGTERM'): Promise<void>
  /** Stops replica `i` (SIGTERM) if it runs, then starts it again on the same data dir. */
  restart(i: number): Promise<void>
  /** Stops every replica, closes the connection, removes the data dirs (and the S3 server it started). */
  stop(): Promise<void>
}

/**
 * The S3 settings of one bucket every replica shares: on the pass's server when there is one, else
 * on one started here (returned, to be stopped with the set).
 */
function sharedBucket(name: string): { env: Record<string, string>; own: S3rverProcess | null } {
  const given = process.env.ENGRAM_TEST_S3_ENDPOINT
  const own = given ? null : startS3rverProcess()
  return {
    own,
    env: {
      ENGRAM_STORAGE: 's3',
      ENGRAM_S3_ENDPOINT: given ?? own!.endpoint,
      ENGRAM_S3_BUCKET: name,
      // s3rver's built-in account.
      ENGRAM_S3_ACCESS_KEY: 'S3RVER',
      ENGRAM_S3_SECRET_KEY: 'S3RVER',
    },
  }
}

/**
 * Starts `count` replicas (those not in `startLater`) on a fresh database of `pg` and a fresh bucket,
 * each once it logs `ready` (its scheduler and dispatcher started) and its health URL (`GET /v1`)
 * answers 200. Replicas started together apply the migrations under PostgreSQL's advisory lock.
 */
export async function startReplicas(
  pg: Extract<TestPostgres, { available: true }>,
  o: ReplicaOptions = {},
): Promise<Replicas> {
  const count = o.count ?? 3
  const dir = mkdtempSync(join(tmpdir(), 'engram-replicas-'))
  const databaseUrl = await pg.freshDatabase()
  const bucket = sharedBucket(
    `engram-replicas-${dir
      .slice(-6)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, 'x')}`,
  )
  const sql = new SQL({ url: databaseUrl, max: 2 })
  const running: (Replica | null)[] = Array.from({ length: count }, () => null)
  const ports = freePorts(count)
  const starts = Array.from({ length: count }, () => 0)
  const envOf = (i: number) => ({
    ...replicaEnv({ dir: join(dir, `r${i}`), port: ports[i]!, databaseUrl, bucket: bucket.env }),
    ...o.env,
    ...o.envOf?.(i),
  })
  const start = async (i: number) => {
    if (running[i]) throw new Error(`replica ${i} is already running`)
    for (let attempt = 1; ; attempt++) {
      try {
        running[i] = await launch(i, join(dir, `r${i}`), ++starts[i]!, ports[i]!, envOf(i))
        return
      } catch (e) {
        // Its port was taken by another process after it was chosen: another one, not used here.
        if (attempt === 3 || !String((e as Error).message).includes('is already in use')) throw e
        ports[i] = freePorts(count + 1).find((p) => !ports.includes(p))!
      }
    }
  }
  const kill = async (i: number, signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL') => {
    const r = running[i]
    if (!r) return
    running[i] = null
    r.proc.kill(signal)
    await r.proc.exited
  }
  const stop = async () => {
    await Promise.all(running.map((_, i) => kill(i, 'SIGTERM')))
    await sql.close()
    await bucket.own?.stop()
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    const now = [...Array(count).keys()].filter((i) => !o.startLater?.includes(i))
    // The first alone, so the others find the schema migrated (they would wait on its lock anyway).
    if (now[0] !== undefined) await start(now[0])
    await Promise.all(now.slice(1).map(start))
  } catch (e) {
    await stop()
    throw e
  }
  const get = (i: number) => {
    const r = running[i]
    if (!r) throw new Error(`replica ${i} is not running`)
    return r
  }
  return {
    databaseUrl,
    sql,
    count,
    url: (i) => get(i).url,
    pid: (i) => get(i).proc.pid,
    replica: get,
    running: (i) => running[i] !== null,
    start,
    kill,
    async restart(i) {
      await kill(i, 'SIGTERM')
      await start(i)
    },
    stop,
  }
}

/** What every replica is started with: its port and data dir, the shared database, bucket and secret. */
function replicaEnv(o: {
  dir: string
  port: number
  databaseUrl: string
  bucket: Record<string, string>
}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    ENGRAM_HOST: '127.0.0.1',
    ENGRAM_PORT: String(o.port),
    ENGRAM_DATA_DIR: join(o.dir, 'data'),
    ENGRAM_DATABASE_URL: o.databaseUrl,
    ENGRAM_SECRET: REPLICA_SECRET,
    ...o.bucket,
    ENGRAM_PASSWORD_MEMORY_KIB: '1024',
    ENGRAM_LOG_LEVEL: 'info',
    // The built-in encoder's wait is bounded, so with it an answer could depend on a replica's load.
    ENGRAM_EMBED_ENCODER: 'false',
    // One passage index for every replica: each write published to the bucket, each question first
    // bringing the replica's copy to the published generation.
    ENGRAM_SHARED_INDEX: 'true',
  }
}

/**
 * Starts replica `i` in `cwd` (its `n`th start there: log-<n>.jsonl and .err) and waits until its
 * health URL answers and, at the info level, it has logged `ready` (its scheduler and dispatcher
 * started); throws with its stderr if it exits first.
 */
async function launch(i: number, cwd: string, n: number, port: number, env: Record<string, string>) {
  mkdirSync(cwd, { recursive: true })
  const log = join(cwd, `log-${n}`)
  const proc = Bun.spawn([binaryPath(), 'serve'], {
    cwd,
    env,
    stdout: Bun.file(`${log}.jsonl`),
    stderr: Bun.file(`${log}.err`),
  })
  const r: Replica = { proc, url: `http://127.0.0.1:${port}`, lines: () => logLines(`${log}.jsonl`) }
  const up = async () => {
    if (proc.exitCode !== null) {
      const err = existsSync(`${log}.err`) ? readFileSync(`${log}.err`, 'utf8').slice(-2000) : ''
      throw new Error(`replica ${i} exited with ${proc.exitCode}: ${err}`)
    }
    if ((await fetch(`${r.url}/v1`).catch(() => null))?.status !== 200) return false
    return env.ENGRAM_LOG_LEVEL !== 'info' || r.lines().some((l) => l.msg === 'ready')
  }
  try {
    await until(up, `replica ${i} to answer at ${r.url}`, START_MS)
  } catch (e) {
    proc.kill('SIGKILL')
    await proc.exited
    throw e
  }
  return r
}

/** The JSON lines of a log file written so far (a line being written is left out). */
function logLines(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return []
  const out: Record<string, unknown>[] = []
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    try {
      out.push(JSON.parse(line) as Record<string, unknown>)
    } catch {
      // Not JSON, or not whole yet.
    }
  }
  return out
}
