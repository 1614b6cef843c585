import { afterEach, describe, expect, test } from 'bun:test'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import type { Store } from '../../../src/platform/db/store'
import { JobQueue } from '../../../src/platform/jobs/queue'
import { type JobHandler, Scheduler } from '../../../src/platform/jobs/scheduler'
import { memoryLogger } from '../../../src/platform/log/log'
import { engines, type OpenStore } from '../../helpers/stores'

// The job queue and its scheduler on the store, on SQLite and on a real PostgreSQL: a job enqueued
// in a unit commits with it, the fair claim makes the same choices, two schedulers sharing the
// database never run one job twice, and a lease that runs out is taken over.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

function rig(store: Store, clock: ManualClock, owner: string, seed: number, workers = 2) {
  const queue = new JobQueue(store.db, clock, seededRandom(seed), store)
  const scheduler = new Scheduler({
    queue,
    clock,
    log: memoryLogger(),
    workers,
    leaseMs: 30_000,
    pollMs: 50,
    owner,
  })
  return { queue, scheduler }
}

/** A handler that waits until the test opens its gate, so a job can be held running. */
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

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`the job queue on ${engine.name}`, () => {
    async function open(): Promise<OpenStore> {
      const o = await engine.open()
      opened.push(o)
      return o
    }

    test('a job enqueued in a unit reads back as written; a rolled-back unit leaves none', async () => {
      const { store } = await open()
      const clock = new ManualClock('2026-05-01T00:00:00Z')
      const { queue } = rig(store, clock, 'node-a', 1)
      const job = await store.unit(() =>
        queue.add({
          workspaceId: 'ws_a',
          kind: 'work',
          subjectId: 'src_1',
          payload: { n: 1 },
          unitsTotal: 3,
        }),
      )
      expect(await queue.repo.get(job.id)).toEqual(job)
      expect(job).toMatchObject({
        status: 'pending',
        payload: { n: 1 },
        unitsTotal: 3,
        cancelRequested: false,
      })
      let lost = ''
      await expect(
        store.unit(async () => {
          lost = (await queue.add({ workspaceId: 'ws_a', kind: 'work' })).id
          throw new Error('rolled back')
        }),
      ).rejects.toThrow('rolled back')
      expect(await queue.repo.get(lost)).toBeNull()
      await expect(queue.add({ workspaceId: 'ws_a', kind: 'work' })).rejects.toThrow(/outside a unit/)
    })

    test('the fair claim: per-workspace caps, bulk slots, fewest-running workspace then oldest first', async () => {
      const { store } = await open()
      const clock = new ManualClock('2026-05-01T00:00:00Z')
      const { queue } = rig(store, clock, 'node-a', 2)
      const add = async (ws: string, kind: string) => {
        clock.advance(1)
        return (await store.unit(() => queue.add({ workspaceId: ws, kind }))).id
      }
      const a = [await add('ws_a', 'extract'), await add('ws_a', 'extract'), await add('ws_a', 'extract')]
      const sync = await add('ws_a', 'sync')
      const b = await add('ws_b', 'extract')
      const policy = { bulk: ['sync'], bulkSlots: 1, perWorkspace: 2 }
      const claim = async (limit: number) =>
        (await queue.leaseRepo.claim(['extract', 'sync'], 'w1', 60_000, limit, policy)).map((j) => j.id)
      expect(await claim(3)).toEqual([a[0]!, b, a[1]!])
      // ws_a holds its two: its third extraction and its sync wait, whatever their age.
      expect(await claim(3)).toEqual([])
      const c = await add('ws_c', 'sync')
      expect(await claim(3)).toEqual([c])
      expect((await queue.repo.get(sync))!.status).toBe('pending')
    })

    test('jobs made in one millisecond read back and are claimed in the order they were made', async () => {
      const { store } = await open()
      // The clock stands still: creation times tie, and ids are random.
      const clock = new ManualClock('2026-05-01T00:00:00Z')
      const { queue } = rig(store, clock, 'node-a', 11)
      const parent = await store.unit(() =>
        queue.add({ workspaceId: 'ws_a', kind: 'train', status: 'running' }),
      )
      const made: string[] = []
      for (let i = 0; i < 12; i++) {
        const job = await store.unit(() =>
          queue.add({ workspaceId: 'ws_a', kind: 'work', parentId: parent.id, subjectId: 'src_1' }),
        )
        made.push(job.id)
      }
      // Neither the ids nor anything else of the rows but their insertion order gives this order.
      expect([...made].sort()).not.toEqual(made)
      expect((await queue.repo.children(parent.id)).map((j) => j.id)).toEqual(made)
      expect((await queue.repo.listBySubject('ws_a', 'src_1')).map((j) => j.id)).toEqual([...made].reverse())
      const claimed = [
        ...(await queue.leaseRepo.claim(['work'], 'w1', 60_000, 5)),
        ...(await queue.leaseRepo.claim(['work'], 'w1', 60_000, 7)),
      ]
      expect(claimed.map((j) => j.id)).toEqual(made)
    })

    test("an aggregate's children: their order, their sums (results' JSON included) and a cancel", async () => {
      const { store } = await open()
      const clock = new ManualClock('2026-05-01T00:00:00Z')
      const { queue } = rig(store, clock, 'node-a', 7)
      const repo = queue.repo
      const add = (n: Parameters<JobQueue['add']>[0]) => store.unit(() => queue.add(n))
      const run = await add({ workspaceId: 'ws_a', kind: 'run', status: 'running', subjectId: 'base_1' })
      const kids: string[] = []
      for (const units of [4, 6, 10]) {
        clock.advance(1)
        const k = await add({
          workspaceId: 'ws_a',
          kind: 'batch',
          parentId: run.id,
          subjectId: 'base_1',
          unitsTotal: units,
        })
        kids.push(k.id)
      }
      expect((await repo.children(run.id)).map((j) => j.id)).toEqual(kids)
      expect((await repo.listBySubject('ws_a', 'base_1')).map((j) => j.id)).toEqual(
        [...kids].reverse().concat(run.id),
      )
      const [first, second] = await queue.leaseRepo.claim(['batch'], 'w1', 60_000, 2)
      await queue.leaseRepo.heartbeat(second!.id, 'w1', 60_000, { unitsDone: 2 })
      await queue.leaseRepo.finish(first!.id, 'w1', 'succeeded', { result: { failed: 2 } })
      await repo.setResult(second!.id, { failed: 1, other: 'x' })
      expect(await repo.childTotals(run.id, 'failed')).toEqual({
        children: 3,
        ended: 1,
        unitsTotal: 20,
        unitsDone: 6,
        resultSum: 3,
      })
      await repo.requestCancel(run.id)
      expect(await repo.cancelRequested(second!.id)).toBe(true)
      expect(await repo.get(kids[2]!)).toMatchObject({ status: 'canceled', cancelRequested: true })
      expect(await repo.get(second!.id)).toMatchObject({ status: 'running', cancelRequested: true })
      expect(await repo.deleteBySubject('ws_a', 'base_1')).toBe(4)
      expect(await repo.childTotals(run.id)).toEqual({
        children: 0,
        ended: 0,
        unitsTotal: 0,
        unitsDone: 0,
        resultSum: 0,
      })
    })

    test('two schedulers sharing the database never run one job twice', async () => {
      const o = await open()
      const other = await o.another()
      const clock = new ManualClock('2026-05-01T00:00:00Z')
      const one = rig(o.store, clock, 'node-a', 3, 3)
      const two = rig(other.store, clock, 'node-b', 4, 3)
      const runs: string[] = []
      const handler: JobHandler = async (ctx) => {
        runs.push(ctx.job.id)
        return 'ok'
      }
      one.scheduler.register('work', handler)
      two.scheduler.register('work', handler)
      const ids: string[] = []
      await o.store.unit(async () => {
        for (let i = 0; i < 12; i++)
          ids.push((await one.queue.add({ workspaceId: `ws_${i % 3}`, kind: 'work' })).id)
      })
      // On PostgreSQL the two step at once; two SQLite connections of one process take turns (a
      // second writer would wait on the first's lock, which only this same thread could release).
      for (let i = 0; i < 8; i++) {
        if (engine.name === 'postgres') {
          await Promise.all([one.scheduler.step(), two.scheduler.step()])
          await Promise.all([one.scheduler.idle(), two.scheduler.idle()])
        } else
          for (const s of [one.scheduler, two.scheduler]) {
            await s.step()
            await s.idle()
          }
      }
      expect([...runs].sort()).toEqual([...ids].sort())
      for (const id of ids) expect((await one.queue.repo.get(id))!.status).toBe('succeeded')
    })

    test('a lease that runs out is taken over by another scheduler', async () => {
      const o = await open()
      const other = await o.another()
      const clock = new ManualClock('2026-05-01T00:00:00Z')
      const a = rig(o.store, clock, 'node-a', 5, 1)
      const b = rig(other.store, clock, 'node-b', 6, 1)
      const g = gated()
      a.scheduler.register('work', g.handler)
      b.scheduler.register('work', async () => 'recovered')
      const job = await o.store.unit(() => a.queue.add({ workspaceId: 'ws_a', kind: 'work' }))
      expect((await a.scheduler.step()).map((j) => j.id)).toEqual([job.id])
      clock.advance(29_000)
      expect(await b.scheduler.step()).toEqual([])
      clock.advance(2_000)
      expect((await b.scheduler.step()).map((j) => j.id)).toEqual([job.id])
      await b.scheduler.idle()
      expect(await b.queue.repo.get(job.id)).toMatchObject({
        status: 'succeeded',
        result: 'recovered',
        attempts: 2,
      })
      // node-a's late end changes nothing: its lease is gone.
      g.open()
      await a.scheduler.idle()
      expect(await a.queue.repo.get(job.id)).toMatchObject({ status: 'succeeded', leaseOwner: null })
    })

    test('a cancel stops a running job at its next checkpoint: at once in this process, at the next step from another', async () => {
      const o = await open()
      const other = await o.another()
      const clock = new ManualClock('2026-05-01T00:00:00Z')
      const a = rig(o.store, clock, 'node-a', 8)
      const b = rig(other.store, clock, 'node-b', 9)
      // A handler that checks for a stop each time the test lets it go on.
      const gates: (() => void)[] = []
      const checked: string[] = []
      a.scheduler.register('paged', async (ctx) => {
        for (;;) {
          await new Promise<void>((r) => gates.push(r))
          ctx.checkpoint()
          checked.push(ctx.job.id)
        }
      })
      const go = async () => {
        for (const g of gates.splice(0)) g()
        await Promise.resolve()
      }
      const [here, there] = [
        await o.store.unit(() => a.queue.add({ workspaceId: 'ws_a', kind: 'paged' })),
        await o.store.unit(() => a.queue.add({ workspaceId: 'ws_b', kind: 'paged' })),
      ]
      expect((await a.scheduler.step()).map((j) => j.id).sort()).toEqual([here.id, there.id].sort())
      await go()
      expect(checked.sort()).toEqual([here.id, there.id].sort())
      // This process's cancel: the next checkpoint throws, with no step between.
      await a.queue.repo.requestCancel(here.id)
      // Another process's cancel: this one learns of it at its next step at the latest (on PostgreSQL
      // its notice on engram_jobs may tell it sooner, jobs-wake.test.ts: either way is right here).
      await b.queue.repo.requestCancel(there.id)
      checked.length = 0
      await go()
      await a.scheduler.whenSettled(here.id)
      expect(await a.queue.repo.get(here.id)).toMatchObject({ status: 'canceled', leaseOwner: null })
      expect(checked).not.toContain(here.id)
      if (engine.name === 'sqlite') expect(checked).toEqual([there.id])
      await a.scheduler.step()
      await go()
      await a.scheduler.idle()
      expect(await a.queue.repo.get(there.id)).toMatchObject({ status: 'canceled', leaseOwner: null })
    })
  })
}
