import { afterEach, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { migrations } from '../../../migrations/index'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import { type Db, openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { OwnerLocks } from '../../../src/platform/jobs/owner-locks'
import { JobQueue } from '../../../src/platform/jobs/queue'
import { Scheduler } from '../../../src/platform/jobs/scheduler'
import { memoryLogger } from '../../../src/platform/log/log'

// Issue 18, item 7: a server killed with kill -9 holds its jobs only as long as it lives.

const MODULE = resolve(import.meta.dir, '../../../src/platform/jobs/owner-locks.ts')

/** A separate OS process holding `owner`'s lock until it is killed; resolves once it holds it. */
async function holder(dir: string, owner: string) {
  const proc = Bun.spawn(
    [
      process.execPath,
      '-e',
      // Kept referenced, as the scheduler keeps it: a collected lock would close its file.
      `const { OwnerLocks } = require(${JSON.stringify(MODULE)});
       globalThis.locks = new OwnerLocks(${JSON.stringify(dir)});
       globalThis.locks.hold(${JSON.stringify(owner)});
       console.log('held'); setInterval(() => {}, 1 << 30)`,
    ],
    { stdout: 'pipe', stderr: 'inherit' },
  )
  const reader = proc.stdout.getReader()
  const { value } = await reader.read()
  expect(new TextDecoder().decode(value)).toContain('held')
  return proc
}

let dir = ''
let db: Db | null = null
afterEach(() => {
  db?.$client.close()
  db = null
  rmSync(dir, { recursive: true, force: true })
})

describe('job owner locks', () => {
  test('an owner is alive while its process lives and dead once it is killed with SIGKILL', async () => {
    dir = mkdtempSync(join(tmpdir(), 'engram-locks-'))
    const locks = new OwnerLocks(dir)
    expect(locks.isDead('proc_1_never_held')).toBe(false)
    const proc = await holder(dir, 'proc_2_w_abc')
    expect(locks.isDead('proc_2_w_abc')).toBe(false)
    expect(locks.isDead('proc_2_w_abc')).toBe(false)
    proc.kill('SIGKILL')
    await proc.exited
    expect(locks.isDead('proc_2_w_abc')).toBe(true)
    // Its file is gone with it; asking again knows nothing more.
    expect(readdirSync(dir)).toEqual([])
    expect(locks.isDead('proc_2_w_abc')).toBe(false)
  })

  test('a clean stop releases the lock and removes its file', () => {
    dir = mkdtempSync(join(tmpdir(), 'engram-locks-'))
    const locks = new OwnerLocks(dir)
    locks.hold('proc_3_w_x')
    expect(existsSync(join(dir, 'proc_3_w_x.lock'))).toBe(true)
    expect(new OwnerLocks(dir).isDead('proc_3_w_x')).toBe(false)
    locks.release('proc_3_w_x')
    expect(readdirSync(dir)).toEqual([])
  })

  test('a restarted scheduler resumes the jobs of a killed owner at once, not after its lease', async () => {
    dir = mkdtempSync(join(tmpdir(), 'engram-locks-'))
    db = openDatabase(join(dir, 'engram.db'))
    migrate(db, migrations)
    const clock = new ManualClock('2026-05-01T00:00:00Z')
    const queue = new JobQueue(db, clock, seededRandom(3))
    const lockDir = join(dir, 'run')
    const job = await queue.store.unit(() => queue.add({ workspaceId: 'ws_1', kind: 'work' }))
    const other = await queue.store.unit(() => queue.add({ workspaceId: 'ws_1', kind: 'work' }))
    // The crashed server claimed a job with a ten-minute lease, then was killed.
    const dead = await holder(lockDir, 'proc_old')
    expect((await queue.leaseRepo.claim(['work'], 'proc_old', 600_000, 1)).map((j) => j.id)).toEqual([job.id])
    const alive = await holder(lockDir, 'proc_live')
    expect((await queue.leaseRepo.claim(['work'], 'proc_live', 600_000, 1)).map((j) => j.id)).toEqual([
      other.id,
    ])
    dead.kill('SIGKILL')
    await dead.exited

    const log = memoryLogger()
    const scheduler = new Scheduler({
      queue,
      clock,
      log,
      workers: 2,
      leaseMs: 600_000,
      pollMs: 1_000_000,
      owner: 'proc_new',
      owners: new OwnerLocks(lockDir),
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
    // A live owner's job is left alone.
    expect(await queue.repo.get(other.id)).toMatchObject({ status: 'running', leaseOwner: 'proc_live' })
    expect(log.lines.find((l) => l.msg === 'jobs resumed from a process that stopped')).toMatchObject({
      count: 1,
      owner: 'proc_old',
    })
    await scheduler.stop()
    alive.kill('SIGKILL')
    await alive.exited
  })
})
