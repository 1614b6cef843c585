import { afterEach, describe, expect, test } from 'bun:test'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import { databaseNow } from '../../../src/platform/db/database-now'
import type { Store } from '../../../src/platform/db/store'
import { Dispatcher } from '../../../src/platform/events/dispatcher'
import { Outbox } from '../../../src/platform/events/outbox'
import { ClockCheck } from '../../../src/platform/jobs/clock-check'
import { JobQueue } from '../../../src/platform/jobs/queue'
import { type JobHandler, Scheduler } from '../../../src/platform/jobs/scheduler'
import { type Logger, memoryLogger } from '../../../src/platform/log/log'
import { engines, type OpenStore } from '../../helpers/stores'

// Jobs across processes on PostgreSQL (issue 40, docs/scale-out.md "Jobs and the outbox dispatcher"):
// a job enqueued through one process's store is started by another's scheduler at once, a cancel
// sent through one stops the job another runs at its next checkpoint, neither waiting for a poll
// (every scheduler here polls once in 1e9 ms); and a scheduler whose clock is off from the
// database's by more than a tenth of the lease claims nothing until it is right.

const opened: OpenStore[] = []
const started: Scheduler[] = []
afterEach(async () => {
  for (const s of started.splice(0)) await s.stop()
  for (const o of opened.splice(0)) await o.close()
})

const LEASE_MS = 30_000

/** A process's queue and scheduler on `store`, wired as the runtime wires them; its poll never comes. */
function rig(store: Store, clock: ManualClock, owner: string, o: { log?: Logger; check?: ClockCheck } = {}) {
  const queue = new JobQueue(null as never, clock, seededRandom(owner.charCodeAt(owner.length - 1)), store)
  const scheduler = new Scheduler({
    queue,
    clock,
    log: o.log ?? memoryLogger(),
    workers: 1,
    leaseMs: LEASE_MS,
    pollMs: 1e9,
    owner,
    clockCheck: o.check,
  })
  queue.onEnqueue(() => scheduler.poke())
  return { queue, scheduler }
}

/** A promise and what resolves it. */
function deferred<T>() {
  let resolve!: (v: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return { promise, resolve }
}

/** Starts `scheduler`'s loop and waits for its first step, which finds nothing to claim. */
async function startIdle(scheduler: Scheduler): Promise<void> {
  scheduler.start()
  started.push(scheduler)
  expect(await scheduler.step()).toEqual([])
}

for (const engine of await engines()) {
  const why = engine.name === 'sqlite' ? 'SQLite processes share one machine and poll one file' : engine.skip
  if (engine.name === 'sqlite') console.info(`jobs-wake: cross-process tests skipped on sqlite: ${why}`)

  async function open(): Promise<OpenStore> {
    const o = await engine.open()
    opened.push(o)
    return o
  }

  describe.skipIf(why !== null)(`jobs across processes on ${engine.name}`, () => {
    test('a job enqueued through one process is started by another process at once, not at its poll', async () => {
      const a = await open()
      const b = await a.another()
      const clock = new ManualClock(new Date())
      const runs = deferred<string>()
      const other = rig(b.store, clock, 'proc_b')
      other.scheduler.register('work', async (ctx) => {
        runs.resolve(ctx.job.id)
        return 'done'
      })
      await startIdle(other.scheduler)

      const mine = rig(a.store, clock, 'proc_a')
      const job = await a.store.unit(() => mine.queue.add({ workspaceId: 'ws_1', kind: 'work' }))
      expect(await runs.promise).toBe(job.id)
      await other.scheduler.whenSettled(job.id)
      expect(await mine.queue.repo.get(job.id)).toMatchObject({ status: 'succeeded', result: 'done' })
    })

    test("a cancel sent through one process stops another process's running job at its next checkpoint, not at its poll", async () => {
      const a = await open()
      const b = await a.another()
      const clock = new ManualClock(new Date())
      const running = deferred<void>()
      let passed = 0
      const handler: JobHandler = async (ctx) => {
        running.resolve()
        // The job works until it is told to stop; only then does it reach its next checkpoint.
        await new Promise((r) => ctx.signal.addEventListener('abort', r))
        ctx.checkpoint()
        passed++
        return 'finished'
      }
      const other = rig(b.store, clock, 'proc_b')
      other.scheduler.register('work', handler)
      await startIdle(other.scheduler)
      const job = await b.store.unit(() => other.queue.add({ workspaceId: 'ws_1', kind: 'work' }))
      await running.promise

      const mine = rig(a.store, clock, 'proc_a')
      await mine.queue.repo.requestCancel(job.id)
      await other.scheduler.whenSettled(job.id)
      expect(passed).toBe(0)
      expect(await mine.queue.repo.get(job.id)).toMatchObject({ status: 'canceled', cancelRequested: true })
    })

    test('a scheduler whose clock is off from the database by more than a tenth of the lease claims nothing and says why, and claims again once it is right', async () => {
      const { store } = await open()
      // A minute behind (so the job it enqueues is due once it is right).
      const clock = new ManualClock(new Date(Date.now() - 60_000))
      const log = memoryLogger()
      const check = new ClockCheck({ clock, log, leaseMs: LEASE_MS, databaseNow: () => databaseNow(store) })
      const { queue, scheduler } = rig(store, clock, 'proc_a', { log, check })
      scheduler.register('work', async () => 'done')
      const job = await store.unit(() => queue.add({ workspaceId: 'ws_1', kind: 'work' }))

      expect(await scheduler.step()).toEqual([])
      expect(await scheduler.step()).toEqual([])
      const off = log.lines.filter((l) => l.level === 'error')
      expect(off).toHaveLength(1)
      expect(off[0]?.msg).toContain("clock differs from the database's")
      expect(off[0]?.tolerance_ms).toBe(3000)
      expect(Math.abs(Number(off[0]?.skew_ms) - 60_000)).toBeLessThan(3000)
      expect(await queue.repo.get(job.id)).toMatchObject({ status: 'pending', attempts: 0 })

      clock.set(new Date())
      expect((await scheduler.step()).map((j) => j.id)).toEqual([job.id])
      await scheduler.idle()
      expect(log.lines.find((l) => l.level === 'info')?.msg).toContain('agrees with the database')
      expect(await queue.repo.get(job.id)).toMatchObject({ status: 'succeeded' })
    })
  })

  describe.skipIf(why !== null)(`runners' clock checks on ${engine.name}`, () => {
    test('a clock off by over a second but within a tenth of the lease is trusted, with a warning', async () => {
      const { store } = await open()
      const log = memoryLogger()
      const clock = new ManualClock(new Date(Date.now() + 2_000))
      const check = new ClockCheck({ clock, log, leaseMs: LEASE_MS, databaseNow: () => databaseNow(store) })
      expect(await check.ok()).toBe(true)
      expect(log.lines.map((l) => [l.level, l.msg])).toEqual([
        ['warn', "this process's clock differs from the database's by over a second"],
      ])
    })

    test('a dispatcher whose clock is off from the database claims no event until it is right', async () => {
      const { store } = await open()
      const clock = new ManualClock(new Date(Date.now() - 60_000))
      const log = memoryLogger()
      const check = new ClockCheck({ clock, log, leaseMs: LEASE_MS, databaseNow: () => databaseNow(store) })
      const outbox = new Outbox(null as never, clock, seededRandom(9), store)
      const dispatcher = new Dispatcher({
        outbox,
        clock,
        log,
        owner: 'proc_a_events',
        leaseMs: LEASE_MS,
        pollMs: 1e9,
        clockCheck: check,
      })
      const seen: string[] = []
      dispatcher.subscribe({ name: 'seen', types: ['key.revoked'], handle: (e) => void seen.push(e.id) })
      const actor = { type: 'system', id: null } as const
      await store.unit(() =>
        outbox.publish({
          type: 'key.revoked',
          workspaceId: 'ws_1',
          payload: { keyId: 'k1', name: 'k', prefix: 'ek_x', actor },
        }),
      )

      expect(await dispatcher.tick()).toBe(0)
      expect(log.lines.filter((l) => l.level === 'error')).toHaveLength(1)
      expect(seen).toEqual([])
      clock.set(new Date())
      expect(await dispatcher.tick()).toBe(1)
      await dispatcher.idle()
      expect(seen).toHaveLength(1)
    })
  })

  describe.skipIf(engine.skip !== null)(`how often the clock is checked on ${engine.name}`, () => {
    test('a clock right by the database is compared once an hour, not every step', async () => {
      const { store } = await open()
      const clock = new ManualClock(new Date())
      let reads = 0
      const check = new ClockCheck({
        clock,
        log: memoryLogger(),
        leaseMs: LEASE_MS,
        databaseNow: () => {
          reads++
          return databaseNow(store)
        },
      })
      expect(await check.ok()).toBe(true)
      clock.advance(3_599_000)
      expect(await check.ok()).toBe(true)
      expect(reads).toBe(1)
      // The database's clock did not move an hour: this one is now off.
      clock.advance(2_000)
      expect(await check.ok()).toBe(engine.name === 'sqlite')
      expect(reads).toBe(2)
    })
  })
}
