import { afterAll, describe, expect, test } from 'bun:test'
import { resolve } from 'node:path'
import { migrations as pgMigrations } from '../../../migrations-pg/index'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import { openPostgres } from '../../../src/platform/db/open-postgres'
import { AdvisoryOwnerLocks } from '../../../src/platform/jobs/owner-locks'
import { JobQueue } from '../../../src/platform/jobs/queue'
import { Scheduler } from '../../../src/platform/jobs/scheduler'
import { memoryLogger } from '../../../src/platform/log/log'
import { testPostgres } from '../../helpers/postgres'

// Job owners on PostgreSQL (issue 40): a process holds its owner's advisory lock on a connection of
// its own while it lives, so another process, on any machine on the database, tells that it was
// killed as soon as PostgreSQL has let the lock go, and resumes its jobs then, not after their lease.

const pg = await testPostgres()
const MODULES = {
  open: resolve(import.meta.dir, '../../../src/platform/db/open-postgres.ts'),
  locks: resolve(import.meta.dir, '../../../src/platform/jobs/owner-locks.ts'),
}
const closers: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const close of closers.splice(0)) await close()
})

/** A separate OS process holding `owner`'s lock on the database at `url` until it is killed. */
async function holder(url: string, owner: string) {
  const proc = Bun.spawn(
    [
      process.execPath,
      '-e',
      `const { connectPostgres } = require(${JSON.stringify(MODULES.open)});
       const { AdvisoryOwnerLocks } = require(${JSON.stringify(MODULES.locks)});
       const pg = connectPostgres(${JSON.stringify(url)}, { max: 2, pingEvery: 0 });
       globalThis.locks = new AdvisoryOwnerLocks(pg.store);
       globalThis.locks.hold(${JSON.stringify(owner)}).then(() => console.log('held'));
       setInterval(() => {}, 1 << 30)`,
    ],
    { stdout: 'pipe', stderr: 'inherit' },
  )
  const { value } = await proc.stdout.getReader().read()
  expect(new TextDecoder().decode(value)).toContain('held')
  return proc
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
    const mine = new AdvisoryOwnerLocks(await storeOn(url))
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
})
