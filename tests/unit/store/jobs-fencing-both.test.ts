import { afterEach, describe, expect, test } from 'bun:test'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import type { Store } from '../../../src/platform/db/store'
import { JobQueue } from '../../../src/platform/jobs/queue'
import { type JobHandler, Scheduler } from '../../../src/platform/jobs/scheduler'
import { memoryLogger } from '../../../src/platform/log/log'
import { engines, type OpenStore } from '../../helpers/stores'

// Self-fencing (issue 40), on SQLite and on a real PostgreSQL: a scheduler whose lease renewals fail
// for a whole lease (the database does not answer) gives its running jobs up itself, since another
// replica may have taken them by then: their signals are aborted, nothing of their ends is written,
// an error is logged; once the database answers again it claims again, and the jobs, back by their
// leases' expiry, run to their end.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

/** `inner` as a store whose every unit and read fails while `down` is set: the database unreachable. */
function failable(inner: Store) {
  const state = { down: false }
  const refuse = () => {
    throw new Error('the database does not answer')
  }
  const store: Store = {
    get dialect() {
      return inner.dialect
    },
    get db() {
      return state.down ? refuse() : inner.db
    },
    table: (t) => inner.table(t),
    unit: (work, opts) =>
      state.down ? Promise.reject(new Error('the database does not answer')) : inner.unit(work, opts),
    get commits() {
      return inner.commits
    },
    inUnit: () => inner.inUnit(),
    close: () => inner.close(),
    afterCommit: (fn) => inner.afterCommit(fn),
  }
  return { store, state }
}

const LEASE = 30_000

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`self-fencing on ${engine.name}`, () => {
    test('jobs whose leases go unrenewed for a whole lease are given up, and claimed again once the database answers', async () => {
      const o = await engine.open()
      opened.push(o)
      const { store, state } = failable(o.store)
      const clock = new ManualClock('2026-05-01T00:00:00Z')
      const log = memoryLogger()
      const queue = new JobQueue(o.store.db, clock, seededRandom(7), store)
      const scheduler = new Scheduler({
        queue,
        clock,
        log,
        workers: 1,
        leaseMs: LEASE,
        pollMs: 50,
        owner: 'proc_f',
      })
      const signals: AbortSignal[] = []
      // The first run waits until its signal is aborted; the next one ends at once.
      const handler: JobHandler = (ctx) => {
        signals.push(ctx.signal)
        if (signals.length > 1) return Promise.resolve('done')
        return new Promise((_, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
        )
      }
      scheduler.register('work', handler)
      const job = await store.unit(() => queue.add({ workspaceId: 'ws_1', kind: 'work' }))
      expect((await scheduler.step()).map((j) => j.id)).toEqual([job.id])
      // A renewal passes 20 s in; then the database stops answering.
      clock.advance(20_000)
      expect(await scheduler.step()).toEqual([])
      state.down = true
      clock.advance(LEASE - 1)
      await expect(scheduler.step()).rejects.toThrow('the database does not answer')
      expect(signals[0]!.aborted).toBe(false)
      expect(scheduler.active).toBe(1)
      // A whole lease since the last renewal: given up, before the database is even asked.
      clock.advance(1)
      await expect(scheduler.step()).rejects.toThrow('the database does not answer')
      expect(signals[0]!.aborted).toBe(true)
      await scheduler.idle()
      expect(scheduler.active).toBe(0)
      expect(
        log.lines.find(
          (l) => l.level === 'error' && String(l.msg).startsWith('job leases could not be renewed'),
        ),
      ).toMatchObject({
        count: 1,
        job_ids: [job.id],
      })
      // Nothing of its end was written: still running under this owner until its lease's expiry.
      state.down = false
      expect(await queue.repo.get(job.id)).toMatchObject({ status: 'running', leaseOwner: 'proc_f' })
      clock.advance(1)
      expect((await scheduler.step()).map((j) => j.id)).toEqual([job.id])
      expect(
        log.lines.some((l) => l.msg === 'the database answers again: this process claims jobs again'),
      ).toBe(true)
      await scheduler.idle()
      expect(await queue.repo.get(job.id)).toMatchObject({ status: 'succeeded', result: 'done', attempts: 2 })
      expect(signals).toHaveLength(2)
    })
  })
}
