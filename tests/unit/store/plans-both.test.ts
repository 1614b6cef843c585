import { afterEach, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { DEFAULT_PLANS } from '../../../src/features/plans/plans.defaults'
import { PlansRepo } from '../../../src/features/plans/plans.repo'
import { PlansService } from '../../../src/features/plans/plans.service'
import type { WorkspacesService } from '../../../src/features/workspaces/workspaces.service'
import { workspaces } from '../../../src/features/workspaces/workspaces.tables'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import type { Store } from '../../../src/platform/db/store'
import { domainEvents } from '../../../src/platform/events/events.tables'
import { Outbox } from '../../../src/platform/events/outbox'
import { engines, type OpenStore, seedTenants } from '../../helpers/stores'

// Plans on SQLite and on a real PostgreSQL: the month's question counter (taken while under the
// cap, given back, never below zero), a unit that fails takes nothing, two processes taking the
// month's last questions at once cannot pass the cap, and a plan change lands with its event.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123 // 2025-11-29, past what a 32-bit integer holds

/** Workspaces as the plans service reads them, straight from the table (the test's own). */
function workspacesOf(store: Store): WorkspacesService {
  const w = () => store.table(workspaces)
  return {
    get: async (id: string) => (await store.db.select().from(w()).where(eq(w().id, id)))[0],
    setPlan: async (id: string, plan: string) => {
      await store.db.update(w()).set({ plan, updatedAt: T0 }).where(eq(w().id, id))
    },
  } as unknown as WorkspacesService
}

function service(store: Store): PlansService {
  const events = new Outbox(store.db, new ManualClock(), seededRandom(1), store)
  return new PlansService({ store, events, workspaces: workspacesOf(store) }, DEFAULT_PLANS, 'free')
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`plans on ${engine.name}`, () => {
    async function open(): Promise<OpenStore> {
      const o = await engine.open()
      opened.push(o)
      await seedTenants(o.store, { workspaces: ['ws_1', 'ws_2'], plan: 'free', at: T0 })
      return o
    }

    test('questions are taken under the cap, given back, and counted per workspace and month', async () => {
      const { store } = await open()
      const repo = new PlansRepo(store)
      expect(await repo.take('ws_1', '2025-11', 2)).toBe(true)
      expect(await repo.take('ws_1', '2025-11', 2)).toBe(true)
      expect(await repo.take('ws_1', '2025-11', 2)).toBe(false)
      expect(await repo.taken('ws_1', '2025-11')).toBe(2)
      expect(await repo.take('ws_1', '2025-12', 2)).toBe(true)
      expect(await repo.take('ws_2', '2025-11', null)).toBe(true)
      await repo.release('ws_1', '2025-11')
      expect(await repo.taken('ws_1', '2025-11')).toBe(1)
      await repo.release('ws_2', '2025-11')
      await repo.release('ws_2', '2025-11')
      expect(await repo.taken('ws_2', '2025-11')).toBe(0)
      expect(await repo.taken('ws_2', '2025-10')).toBe(0)
      // Uncapped, it counts past any number.
      for (let i = 0; i < 3; i++) expect(await repo.take('ws_1', '2025-11', null)).toBe(true)
      expect(await repo.taken('ws_1', '2025-11')).toBe(4)
    })

    test('a unit that fails takes no question', async () => {
      const { store } = await open()
      const repo = new PlansRepo(store)
      await expect(
        store.unit(async () => {
          expect(await repo.take('ws_1', '2025-11', 5)).toBe(true)
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      expect(await repo.taken('ws_1', '2025-11')).toBe(0)
    })

    test('two processes taking the last questions at once take no more than the cap', async () => {
      const o = await open()
      const other = await o.another()
      const one = new PlansRepo(o.store)
      const two = new PlansRepo(other.store)
      for (let i = 0; i < 7; i++) await one.take('ws_1', '2025-11', 10)
      // Ten takes racing for the last three: on PostgreSQL all at once on two pools; two SQLite
      // connections of one process take turns (a second writer would wait on a lock only this
      // thread could release), so there each process's takes race among themselves.
      const takes = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? one : two))
      const won =
        engine.name === 'postgres'
          ? await Promise.all(takes.map((r) => r.take('ws_1', '2025-11', 10)))
          : [
              ...(await Promise.all(
                takes.filter((r) => r === one).map((r) => r.take('ws_1', '2025-11', 10)),
              )),
              ...(await Promise.all(
                takes.filter((r) => r === two).map((r) => r.take('ws_1', '2025-11', 10)),
              )),
            ]
      expect(won.filter(Boolean).length).toBe(3)
      expect(await two.taken('ws_1', '2025-11')).toBe(10)
    })

    test('the service refuses past the plan, and a plan change lands with its event', async () => {
      const { store } = await open()
      const plans = service(store)
      expect((await plans.planOf('ws_1'))?.id).toBe('free')
      expect(await plans.planOf('ws_nope')).toBeUndefined()
      await expect(plans.ensureRoom('ws_1', 'seats', 1)).rejects.toMatchObject({ code: 'plan_limit_reached' })
      await plans.ensureRoom('ws_1', 'seats', 0)
      const ticket = await plans.takeQuery('ws_1', T0)
      expect(ticket).toEqual({ workspaceId: 'ws_1', month: '2025-11' })
      expect(await plans.queriesUsed('ws_1', T0)).toBe(1)
      await plans.releaseQuery(ticket)
      expect(await plans.queriesUsed('ws_1', T0)).toBe(0)
      const actor = { type: 'system' as const, id: null }
      expect(await plans.setPlan('ws_1', 'nope', actor)).toEqual({ refused: 'unknown_plan' })
      expect(await plans.setPlan('ws_nope', 'team', actor)).toEqual({ refused: 'unknown_workspace' })
      expect(await plans.setPlan('ws_1', 'team', actor)).toEqual({ from: 'free' })
      expect((await plans.capsOf('ws_1'))?.seats).toBe(DEFAULT_PLANS.find((p) => p.id === 'team')?.caps.seats)
      const ev = store.table(domainEvents)
      const rows = await store.db.select().from(ev).where(eq(ev.type, 'plan.changed'))
      expect(rows.map((r) => [r.workspaceId, JSON.parse(r.payload).details])).toEqual([
        ['ws_1', { from: 'free', to: 'team', via: 'engram plan set' }],
      ])
      // Inside a unit that fails, the change is undone with it.
      await expect(
        store.unit(async () => {
          await plans.setPlan('ws_2', 'team', actor)
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      expect((await plans.planOf('ws_2'))?.id).toBe('free')
    })
  })
}
