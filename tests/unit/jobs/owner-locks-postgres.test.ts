import { afterAll, describe, expect, test } from 'bun:test'
import { resolve } from 'node:path'
import { SQL } from 'bun'
import { migrations as pgMigrations } from '../../../migrations-pg/index'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import { openPostgres, openSession } from '../../../src/platform/db/open-postgres'
import type { PostgresStore } from '../../../src/platform/db/store.postgres'
import { AdvisoryOwnerLocks } from '../../../src/platform/jobs/owner-locks'
import { JobQueue } from '../../../src/platform/jobs/queue'
import { Scheduler } from '../../../src/platform/jobs/scheduler'
import { memoryLogger } from '../../../src/platform/log/log'
import { ReplicasRepo } from '../../../src/platform/replicas/replicas.repo'
import { testPostgres } from '../../helpers/postgres'

// Job owners on PostgreSQL (issue 40): a process holds its owner's advisory lock on a connection of
// its own while it lives, so another process, on any machine on the database, tells that it was
// killed as soon as PostgreSQL has let the lock go, and resumes its jobs then, not after their lease.
// An owner is dead only if its process also has a row in the replicas registry (one without, an
// older build, is left to its lease); the lock's session has TCP keepalives; a lock lost with its
// connection is taken again on a new one, and its runner claims nothing meanwhile.

const pg = await testPostgres()
const MODULES = {
  open: resolve(import.meta.dir, '../../../src/platform/db/open-postgres.ts'),
  locks: resolve(import.meta.dir, '../../../src/platform/jobs/owner-locks.ts'),
  replicas: resolve(import.meta.dir, '../../../src/platform/replicas/replicas.repo.ts'),
}
const closers: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const close of closers.splice(0)) await close()
})

/**
 * A separate OS process holding `owner`'s lock on the database at `url` until it is killed, with its
 * row in the replicas registry as every process of this build writes it (`registered`).
 */
async function holder(url: string, owner: string, registered = true) {
  const proc = Bun.spawn(
    [
      process.execPath,
      '-e',
      `const { connectPostgres } = require(${JSON.stringify(MODULES.open)});
       const { AdvisoryOwnerLocks } = require(${JSON.stringify(MODULES.locks)});
       const { ReplicasRepo } = require(${JSON.stringify(MODULES.replicas)});
       const pg = connectPostgres(${JSON.stringify(url)}, { max: 2, pingEvery: 0 });
       const self = { owner: ${JSON.stringify(owner)}, host: 'h', pid: process.pid, build: 't', startedAt: Date.now() };
       const row = ${registered} ? new ReplicasRepo(pg.store, { now: () => new Date() }).stamp(self) : Promise.resolve();
       globalThis.locks = new AdvisoryOwnerLocks(pg.store);
       row.then(() => globalThis.locks.hold(self.owner)).then(() => console.log('held'));
       setInterval(() => {}, 1 << 30)`,
    ],
    { stdout: 'pipe', stderr: 'inherit' },
  )
  const { value } = await proc.stdout.getReader().read()
  expect(new TextDecoder().decode(value)).toContain('held')
  return proc
}

/** Writes `owner`'s registry row, as its process does at start. */
async function register(store: PostgresStore, owner: string) {
  const self = { owner, host: 'here', pid: process.pid, build: 't', startedAt: 0 }
  await new ReplicasRepo(store, new ManualClock()).stamp(self)
}

/** A store of this process on the database (its pool; migrated), closed after the file. */
async function storeOn(url: string) {
  const opened = await openPostgres(url, pgMigrations, { max: 4, pingEvery: 0 })
  closers.push(opened.close)
  return opened.store
}

/** Waits until `check` holds: PostgreSQL lets a killed process's lock go once it has seen its connection end. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(20)
  }
}

describe.skipIf(!pg.available)('job owners on PostgreSQL', () => {
  test('an owner is alive while its process lives, dead once it is killed with SIGKILL or lets go', async () => {
    if (!pg.available) return
    const url = await pg.freshDatabase()
    const locks = new AdvisoryOwnerLocks(await storeOn(url))
    const proc = await holder(url, 'proc_2_w_abc')
    expect(await locks.isDead('proc_2_w_abc')).toBe(false)
    expect(await locks.isDead('proc_2_w_abc')).toBe(false)
    proc.kill('SIGKILL')
    await proc.exited
    await until(() => locks.isDead('proc_2_w_abc'), 'the killed owner to be dead')
    // A clean stop lets go at once; taking it twice is one lock.
    const mineStore = await storeOn(url)
    await register(mineStore, 'proc_3_w_x')
    const mine = new AdvisoryOwnerLocks(mineStore)
    await mine.hold('proc_3_w_x')
    await mine.hold('proc_3_w_x')
    expect(await locks.isDead('proc_3_w_x')).toBe(false)
    await mine.release()
    expect(await locks.isDead('proc_3_w_x')).toBe(true)
  })

  test('a scheduler resumes the jobs of a killed owner at once, not after its lease, and leaves a live one alone', async () => {
    if (!pg.available) return
    const url = await pg.freshDatabase()
    const store = await storeOn(url)
    const clock = new ManualClock('2026-05-01T00:00:00Z')
    const queue = new JobQueue(null as never, clock, seededRandom(3), store)
    const job = await store.unit(() => queue.add({ workspaceId: 'ws_1', kind: 'work' }))
    const other = await store.unit(() => queue.add({ workspaceId: 'ws_1', kind: 'work' }))
    // A replica claimed a job with a ten-minute lease, then was killed.
    const dead = await holder(url, 'proc_old')
    expect((await queue.leaseRepo.claim(['work'], 'proc_old', 600_000, 1)).map((j) => j.id)).toEqual([job.id])
    const alive = await holder(url, 'proc_live')
    expect((await queue.leaseRepo.claim(['work'], 'proc_live', 600_000, 1)).map((j) => j.id)).toEqual([
      other.id,
    ])
    dead.kill('SIGKILL')
    await dead.exited
    const locks = new AdvisoryOwnerLocks(store)
    await until(() => locks.isDead('proc_old'), 'the killed owner to be dead')

    const log = memoryLogger()
    const scheduler = new Scheduler({
      queue,
      clock,
      log,
      workers: 2,
      leaseMs: 600_000,
      pollMs: 1_000_000,
      owner: 'proc_new',
      owners: new AdvisoryOwnerLocks(store),
    })
    await register(store, 'proc_new')
    let ran = 0
    scheduler.register('work', async () => {
      ran++
      return 'resumed'
    })
    scheduler.start()
    await scheduler.idle()
    expect(ran).toBe(1)
    expect(await queue.repo.get(job.id)).toMatchObject({
      status: 'succeeded',
      result: 'resumed',
      attempts: 2,
    })
    expect(await queue.repo.get(other.id)).toMatchObject({ status: 'running', leaseOwner: 'proc_live' })
    expect(log.lines.find((l) => l.msg === 'jobs resumed from a process that stopped')).toMatchObject({
      count: 1,
      owner: 'proc_old',
    })
    await scheduler.stop()
    // The stopped scheduler let its own lock go.
    expect(await locks.isDead('proc_new')).toBe(true)
    alive.kill('SIGKILL')
    await alive.exited
  })

  test('an owner whose process has no registry row (an older build) is not taken for dead: its lease decides', async () => {
    if (!pg.available) return
    const url = await pg.freshDatabase()
    const store = await storeOn(url)
    const clock = new ManualClock('2026-05-01T00:00:00Z')
    const queue = new JobQueue(null as never, clock, seededRandom(4), store)
    const job = await store.unit(() => queue.add({ workspaceId: 'ws_1', kind: 'work' }))
    const old = await holder(url, 'proc_older', false)
    expect((await queue.leaseRepo.claim(['work'], 'proc_older', 60_000, 1)).map((j) => j.id)).toEqual([
      job.id,
    ])
    old.kill('SIGKILL')
    await old.exited
    await until(async () => !(await store.isHeld('engram.owner:proc_older')), 'the killed lock to be free')
    const locks = new AdvisoryOwnerLocks(store)
    expect(await locks.isDead('proc_older')).toBe(false)
    const log = memoryLogger()
    const scheduler = new Scheduler({
      queue,
      clock,
      log,
      workers: 1,
      leaseMs: 60_000,
      pollMs: 1_000_000,
      owner: 'proc_newer',
      owners: locks,
    })
    scheduler.register('work', async () => 'done')
    expect(await scheduler.step()).toEqual([])
    expect(await queue.repo.get(job.id)).toMatchObject({ status: 'running', leaseOwner: 'proc_older' })
    // Its lease is the backstop: once it lapses the job is recovered and runs here.
    clock.advance(60_001)
    expect((await scheduler.step()).map((j) => j.id)).toEqual([job.id])
    await scheduler.idle()
    expect(await queue.repo.get(job.id)).toMatchObject({ status: 'succeeded', attempts: 2 })
    // With a row the same free lock says dead: the row tells the owner speaks this protocol.
    await register(store, 'proc_older')
    expect(await locks.isDead('proc_older')).toBe(true)
  })

  test("the lock's session has TCP keepalives, so a machine gone silent lets its lock go in about 25 s", async () => {
    if (!pg.available) return
    const url = await pg.freshDatabase()
    const session = openSession(url, () => {})
    try {
      const [row] = await session`SELECT current_setting('tcp_keepalives_idle') AS idle,
        current_setting('tcp_keepalives_interval') AS interval, current_setting('tcp_keepalives_count') AS count`
      expect(row).toEqual({ idle: '10', interval: '5', count: '3' })
    } finally {
      await session.close()
    }
  })

  test('a lock lost with its connection is taken again on a new one, and its runner claims nothing meanwhile', async () => {
    if (!pg.available) return
    const url = await pg.freshDatabase()
    const store = await storeOn(url)
    await register(store, 'proc_a')
    const log = memoryLogger()
    const locks = new AdvisoryOwnerLocks(store, { log, retryMs: 20 })
    await locks.hold('proc_a')
    expect(locks.holding()).toBe(true)
    const admin = new SQL({ url, max: 1 })
    const otherPool = new SQL({ url, max: 1 })
    const other = await otherPool.reserve()
    closers.push(async () => {
      other.release()
      await otherPool.close()
      await admin.close()
    })
    const key = 'engram.owner:proc_a'
    const [lock] = await admin`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`
    // Another session queues for the same lock (as if this process's old session still held it on
    // a server that has not yet seen it gone), then the lock's connection is cut.
    const queued = other`SELECT pg_advisory_lock(hashtextextended(${key}, 0))`.then(() => true)
    await until(async () => {
      const rows =
        await admin`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`
      return rows.length === 1
    }, 'the other session to wait for the lock')
    await admin`SELECT pg_terminate_backend(${lock.pid})`
    expect(await queued).toBe(true)
    await until(async () => !locks.holding(), 'the loss to be seen')
    expect(log.lines.find((l) => String(l.msg).includes('owner lock was lost'))).toMatchObject({
      owner: 'proc_a',
    })
    // Not held: a scheduler of this owner claims nothing.
    const clock = new ManualClock('2026-05-01T00:00:00Z')
    const queue = new JobQueue(null as never, clock, seededRandom(5), store)
    const job = await store.unit(() => queue.add({ workspaceId: 'ws_1', kind: 'work' }))
    const scheduler = new Scheduler({
      queue,
      clock,
      log,
      workers: 1,
      leaseMs: 60_000,
      pollMs: 1_000_000,
      owner: 'proc_a',
      owners: locks,
    })
    scheduler.register('work', async () => 'done')
    expect(await scheduler.step()).toEqual([])
    expect(locks.holding()).toBe(false)
    // Let go elsewhere: taken again on a new connection, and claiming resumes.
    await other`SELECT pg_advisory_unlock(hashtextextended(${key}, 0))`
    await until(async () => locks.holding(), 'the lock to be taken again')
    expect(log.lines.some((l) => l.msg === "this process's owner lock is held again")).toBe(true)
    expect(await new AdvisoryOwnerLocks(store).isDead('proc_a')).toBe(false)
    expect((await scheduler.step()).map((j) => j.id)).toEqual([job.id])
    await scheduler.idle()
    await locks.release()
    expect(await new AdvisoryOwnerLocks(store).isDead('proc_a')).toBe(true)
  })
})
