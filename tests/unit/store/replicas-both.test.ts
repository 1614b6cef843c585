import { afterEach, describe, expect, test } from 'bun:test'
import { ManualClock } from '../../../src/platform/clock/clock'
import { memoryLogger } from '../../../src/platform/log/log'
import { ReplicaRegistry, STAMP_EVERY_MS, SWEEP_AFTER_STAMPS } from '../../../src/platform/replicas/replicas'
import { eventsOwner, ReplicasRepo, replicaOf } from '../../../src/platform/replicas/replicas.repo'
import { engines, type OpenStore } from '../../helpers/stores'

// The replicas registry on SQLite and on a real PostgreSQL (issue 40): a process writes its row at
// start, stamps it on its timer, deletes it on a clean stop; a row nobody stamps for five intervals
// is swept by a process that stamps; a live process swept meanwhile writes its row again.

const opened: OpenStore[] = []
const running: ReplicaRegistry[] = []
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop()
  for (const o of opened.splice(0)) await o.close()
})

const START = '2026-06-01T08:00:00Z'

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`the replicas registry on ${engine.name}`, () => {
    async function open() {
      const o = await engine.open()
      opened.push(o)
      const other = engine.name === 'postgres' ? (await o.another()).store : o.store
      const clock = new ManualClock(START)
      const log = memoryLogger()
      const registry = (store: typeof o.store, owner: string, pid: number) => {
        const r = new ReplicaRegistry({
          repo: new ReplicasRepo(store, clock),
          clock,
          log,
          self: { owner, host: `host-${pid}`, pid, build: '1.2.3' },
        })
        running.push(r)
        return r
      }
      return {
        repo: new ReplicasRepo(o.store, clock),
        a: registry(o.store, 'proc_1_w_a', 1),
        b: registry(other, 'proc_2_w_b', 2),
        clock,
        log,
      }
    }

    test('a row is written at start, stamped while the process lives, and deleted on a clean stop', async () => {
      const { repo, a, clock } = await open()
      const t0 = clock.now().getTime()
      expect(await repo.list()).toEqual([])
      await a.start()
      expect(await repo.list()).toEqual([
        { owner: 'proc_1_w_a', host: 'host-1', pid: 1, build: '1.2.3', startedAt: t0, seenAt: t0 },
      ])
      expect(await repo.has('proc_1_w_a')).toBe(true)
      expect(await repo.has('proc_9_w_z')).toBe(false)
      clock.advance(STAMP_EVERY_MS)
      await a.tick()
      expect(await repo.list()).toMatchObject([
        { owner: 'proc_1_w_a', startedAt: t0, seenAt: t0 + STAMP_EVERY_MS },
      ])
      await a.stop()
      expect(await repo.list()).toEqual([])
      expect(await repo.has('proc_1_w_a')).toBe(false)
    })

    test('a row not stamped for five intervals is swept by a process that stamps, and a live one swept writes it again', async () => {
      const { repo, a, b, clock, log } = await open()
      const t0 = clock.now().getTime()
      await a.start()
      clock.advance(1000)
      await b.start()
      expect((await repo.list()).map((r) => r.owner)).toEqual(['proc_1_w_a', 'proc_2_w_b'])
      // B goes silent (killed, or cut off); A stamps on: just within the bound B's row stays.
      const bound = SWEEP_AFTER_STAMPS * STAMP_EVERY_MS
      clock.set(new Date(t0 + 1000 + bound))
      await a.tick()
      expect((await repo.list()).map((r) => r.owner)).toEqual(['proc_1_w_a', 'proc_2_w_b'])
      clock.advance(1)
      await a.tick()
      expect(await repo.list()).toMatchObject([{ owner: 'proc_1_w_a', seenAt: t0 + 1001 + bound }])
      expect(
        log.lines.find((l) => l.msg === 'replicas no longer seen removed from the registry'),
      ).toMatchObject({
        count: 1,
      })
      // B was alive all along: its next stamp writes its row again, with its start kept.
      await b.tick()
      expect(await repo.list()).toMatchObject([
        { owner: 'proc_1_w_a' },
        { owner: 'proc_2_w_b', startedAt: t0 + 1000, seenAt: t0 + 1001 + bound },
      ])
    })

    test("a dispatcher's owner maps to its process's row", () => {
      expect(eventsOwner('proc_1_w_a')).toBe('proc_1_w_a_events')
      expect(replicaOf(eventsOwner('proc_1_w_a'))).toBe('proc_1_w_a')
      expect(replicaOf('proc_1_w_a')).toBe('proc_1_w_a')
    })
  })
}
