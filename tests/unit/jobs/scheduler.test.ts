import { afterEach, describe, expect, test } from 'bun:test'
import { DrizzleQueryError } from 'drizzle-orm'
import { migrations } from '../../../migrations/index'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import { type Db, openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { fail } from '../../../src/platform/errors/errors'
import { JobQueue } from '../../../src/platform/jobs/queue'
import {
  type JobHandler,
  JobWaitingError,
  Scheduler,
  TransientError,
} from '../../../src/platform/jobs/scheduler'
import { memoryLogger } from '../../../src/platform/log/log'

let db: Db
afterEach(() => db.$client.close())

function setup(workers = 2, owner = 'node-a') {
  const clock = new ManualClock('2026-05-01T00:00:00Z')
  return fresh(clock, workers, owner)
}

function fresh(clock: ManualClock, workers: number, owner: string) {
  const queue = new JobQueue(db, clock, seededRandom(owner.length))
  const scheduler = new Scheduler({
    queue,
    clock,
    log: memoryLogger(),
    workers,
    leaseMs: 30_000,
    pollMs: 50,
    owner,
  })
  return { queue, scheduler, clock }
}

/** A handler that waits until the test opens its gate, so a job can be held "running". */
function gated() {
  const gates: (() => void)[] = []
  const handler: JobHandler = () => new Promise<void>((r) => gates.push(r)).then(() => 'done')
  return {
    handler,
    open: () => {
      for (const g of gates.splice(0)) g()
    },
  }
}

function newDb() {
  db = openDatabase(':memory:')
  migrate(db, migrations)
}

describe('job queue and scheduler', () => {
  test('jobs run oldest first, at most `workers` at a time, and end succeeded with their result', async () => {
    newDb()
    const { queue, scheduler } = setup(2)
    const g = gated()
    scheduler.register('work', g.handler)
    const ids: string[] = []
    for (const n of [1, 2, 3])
      ids.push(
        (await queue.store.unit(() => queue.add({ workspaceId: 'ws_1', kind: 'work', payload: { n } }))).id,
      )
    expect((await scheduler.step()).map((j) => j.id)).toEqual(ids.slice(0, 2))
    expect(await scheduler.step()).toEqual([])
    expect((await queue.repo.get(ids[2]!))!.status).toBe('pending')
    g.open()
    await scheduler.idle()
    expect(await queue.repo.get(ids[0]!)).toMatchObject({ status: 'succeeded', result: 'done', attempts: 1 })
    expect((await scheduler.step()).map((j) => j.id)).toEqual([ids[2]!])
    g.open()
    await scheduler.idle()
    expect((await queue.repo.get(ids[2]!))!.status).toBe('succeeded')
  })

  test('a transient failure is retried after an exponential backoff, then fails for good', async () => {
    newDb()
    const { queue, scheduler, clock } = setup(1)
    let calls = 0
    scheduler.register('flaky', async () => {
      calls++
      throw new TransientError('peer down')
    })
    const job = await queue.store.unit(() =>
      queue.add({ workspaceId: 'ws_1', kind: 'flaky', maxAttempts: 3 }),
    )
    await scheduler.drain()
    expect(calls).toBe(1)
    expect(await queue.repo.get(job.id)).toMatchObject({ status: 'pending', error: 'peer down', attempts: 1 })
    clock.advance(999)
    await scheduler.drain()
    expect(calls).toBe(1)
    clock.advance(1)
    await scheduler.drain()
    expect(calls).toBe(2)
    clock.advance(2000)
    await scheduler.drain()
    expect(calls).toBe(3)
    expect(await queue.repo.get(job.id)).toMatchObject({ status: 'failed', error: 'peer down', attempts: 3 })
  })

  test('a 503 from a service the job used (a shared index being written elsewhere) is retried like a transient failure', async () => {
    newDb()
    const { queue, scheduler, clock } = setup(1)
    let calls = 0
    scheduler.register('busy', async () => {
      calls++
      if (calls === 1) throw fail('service_unavailable', 'busy elsewhere')
      throw fail('bad_request', 'bad input')
    })
    const job = await queue.store.unit(() => queue.add({ workspaceId: 'ws_1', kind: 'busy', maxAttempts: 3 }))
    await scheduler.drain()
    expect(await queue.repo.get(job.id)).toMatchObject({
      status: 'pending',
      error: 'busy elsewhere',
      attempts: 1,
    })
    clock.advance(1000)
    await scheduler.drain()
    // Any other API error is for good.
    expect(calls).toBe(2)
    expect(await queue.repo.get(job.id)).toMatchObject({ status: 'failed', error: 'bad input', attempts: 2 })
  })

  test('a job whose unit the database ended in a deadlock is retried, its error the reason without the values', async () => {
    newDb()
    const { queue, scheduler, clock } = setup(1)
    let calls = 0
    // As drizzle wraps PostgreSQL's error (Bun's PostgresError carries the SQLSTATE as errno).
    const deadlock = Object.assign(new Error('deadlock detected'), { errno: '40P01' })
    scheduler.register('crossed', async () => {
      calls++
      if (calls === 1) throw new DrizzleQueryError('update "t" set "secret" = $1', ['hunter2'], deadlock)
      return 'done'
    })
    const job = await queue.store.unit(() =>
      queue.add({ workspaceId: 'ws_1', kind: 'crossed', maxAttempts: 3 }),
    )
    await scheduler.drain()
    const waiting = await queue.repo.get(job.id)
    expect(waiting).toMatchObject({
      status: 'pending',
      error: 'A database statement failed: deadlock detected',
      attempts: 1,
    })
    expect(JSON.stringify(waiting)).not.toContain('hunter2')
    clock.advance(1000)
    await scheduler.drain()
    expect(calls).toBe(2)
    expect(await queue.repo.get(job.id)).toMatchObject({ status: 'succeeded', attempts: 2 })
  })

  test('a job waiting for other work runs again after the wait it asked for, its attempt not counted, past maxAttempts', async () => {
    newDb()
    const { queue, scheduler, clock } = setup(1)
    let calls = 0
    scheduler.register('waiting', async () => {
      calls++
      if (calls <= 4) throw new JobWaitingError('Waiting for the other job.', 250)
      return 'done'
    })
    const job = await queue.store.unit(() =>
      queue.add({ workspaceId: 'ws_1', kind: 'waiting', maxAttempts: 2 }),
    )
    for (let i = 1; i <= 4; i++) {
      await scheduler.drain()
      expect(calls).toBe(i)
      expect(await queue.repo.get(job.id)).toMatchObject({
        status: 'pending',
        error: 'Waiting for the other job.',
        attempts: 0,
      })
      clock.advance(249)
      await scheduler.drain()
      expect(calls).toBe(i)
      clock.advance(1)
    }
    await scheduler.drain()
    expect(await queue.repo.get(job.id)).toMatchObject({ status: 'succeeded', result: 'done', attempts: 1 })
  })

  test('a permanent failure is not retried', async () => {
    newDb()
    const { queue, scheduler } = setup(1)
    scheduler.register('bad', async () => {
      throw new Error('corrupt input')
    })
    const job = await queue.store.unit(() => queue.add({ workspaceId: 'ws_1', kind: 'bad' }))
    await scheduler.drain()
    expect(await queue.repo.get(job.id)).toMatchObject({
      status: 'failed',
      error: 'corrupt input',
      attempts: 1,
    })
  })

  test('a job left running by a crashed process is picked up again once its lease expires', async () => {
    newDb()
    const a = setup(1, 'node-a')
    a.scheduler.register('work', gated().handler)
    const job = await a.queue.store.unit(() => a.queue.add({ workspaceId: 'ws_1', kind: 'work' }))
    await a.scheduler.step()
    expect(await a.queue.repo.get(job.id)).toMatchObject({ status: 'running', leaseOwner: 'node-a' })
    // node-a dies here: nobody renews its lease. node-b starts on the same database.
    const b = fresh(a.clock, 1, 'node-b')
    let ran = 0
    b.scheduler.register('work', async () => {
      ran++
      return 'recovered'
    })
    a.clock.advance(29_000)
    expect(await b.scheduler.step()).toEqual([])
    a.clock.advance(2_000)
    await b.scheduler.drain()
    expect(ran).toBe(1)
    expect(await b.queue.repo.get(job.id)).toMatchObject({
      status: 'succeeded',
      result: 'recovered',
      attempts: 2,
    })
  })

  test('a live worker keeps its lease by heartbeat, so its job is never taken over', async () => {
    newDb()
    const a = setup(1, 'node-a')
    const g = gated()
    a.scheduler.register('work', g.handler)
    const job = await a.queue.store.unit(() => a.queue.add({ workspaceId: 'ws_1', kind: 'work' }))
    await a.scheduler.step()
    const b = fresh(a.clock, 1, 'node-b')
    b.scheduler.register('work', g.handler)
    for (let i = 0; i < 5; i++) {
      a.clock.advance(20_000)
      await a.scheduler.step() // renews node-a's lease
      expect(await b.scheduler.step()).toEqual([])
    }
    g.open()
    await a.scheduler.idle()
    expect(await a.queue.repo.get(job.id)).toMatchObject({ status: 'succeeded', attempts: 1 })
  })

  test('cancel stops a running child at its next checkpoint and cancels pending siblings at once', async () => {
    newDb()
    const { queue, scheduler } = setup(1)
    const run = await queue.store.unit(() =>
      queue.add({ workspaceId: 'ws_1', kind: 'run', status: 'running', subjectId: 'cor_1' }),
    )
    let units = 0
    let proceed: () => void = () => {}
    scheduler.register('batch', async (ctx) => {
      for (let i = 0; i < 10; i++) {
        ctx.checkpoint()
        units++
        ctx.progress({ unitsDone: i + 1, unitsTotal: 10 })
        if (i === 2) await new Promise<void>((r) => (proceed = r))
      }
    })
    const first = await queue.store.unit(() =>
      queue.add({ workspaceId: 'ws_1', kind: 'batch', parentId: run.id }),
    )
    const second = await queue.store.unit(() =>
      queue.add({ workspaceId: 'ws_1', kind: 'batch', parentId: run.id }),
    )
    await scheduler.step()
    await Promise.resolve()
    await queue.repo.requestCancel(run.id)
    expect((await queue.repo.get(second.id))!.status).toBe('canceled')
    proceed()
    await scheduler.idle()
    expect(units).toBe(3)
    expect(await queue.repo.get(first.id)).toMatchObject({ status: 'canceled', unitsDone: 3, unitsTotal: 10 })
    expect((await queue.repo.get(run.id))!.cancelRequested).toBe(true)
  })

  test('the settle hook sees each job in its final state', async () => {
    newDb()
    const { queue, scheduler } = setup(2)
    const seen: string[] = []
    scheduler.register(
      'work',
      async () => 1,
      (job) => seen.push(`${job.id}:${job.status}`),
    )
    const a = await queue.store.unit(() => queue.add({ workspaceId: 'ws_1', kind: 'work' }))
    await scheduler.drain()
    expect(seen).toEqual([`${a.id}:succeeded`])
  })

  test('jobs of kinds with no registered handler (aggregates) are never claimed', async () => {
    newDb()
    const { queue, scheduler } = setup(2)
    scheduler.register('work', async () => 1)
    const agg = await queue.store.unit(() =>
      queue.add({ workspaceId: 'ws_1', kind: 'run', status: 'running' }),
    )
    const other = await queue.store.unit(() => queue.add({ workspaceId: 'ws_1', kind: 'other' }))
    await scheduler.drain()
    expect((await queue.repo.get(agg.id))!.status).toBe('running')
    expect((await queue.repo.get(other.id))!.status).toBe('pending')
  })

  test('a started scheduler picks up a new job at once, without waiting for its next poll', async () => {
    newDb()
    const clock = new ManualClock('2026-05-01T00:00:00Z')
    const queue = new JobQueue(db, clock, seededRandom(3))
    // A poll interval far longer than the test's timeout: only the poke can run the job in time.
    const scheduler = new Scheduler({
      queue,
      clock,
      log: memoryLogger(),
      workers: 1,
      leaseMs: 30_000,
      pollMs: 3_600_000,
      owner: 'live',
    })
    queue.onEnqueue(() => scheduler.poke())
    const ran: string[] = []
    let finished: () => void = () => {}
    const done = new Promise<void>((r) => {
      finished = r
    })
    scheduler.register('work', async (ctx) => {
      ran.push(ctx.job.payload.name as string)
      if (ran.length === 2) finished()
    })
    scheduler.start()
    await queue.store.unit(() => queue.add({ workspaceId: 'ws_1', kind: 'work', payload: { name: 'first' } }))
    await queue.store.unit(() =>
      queue.add({ workspaceId: 'ws_1', kind: 'work', payload: { name: 'second' } }),
    )
    await done
    await scheduler.stop()
    expect(ran).toEqual(['first', 'second'])
  })
})
