import { afterEach, describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { workspaces } from '../../../src/features/workspaces/workspaces.tables'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import type { Store } from '../../../src/platform/db/store'
import type { DomainEvent } from '../../../src/platform/events/events'
import { Outbox } from '../../../src/platform/events/outbox'
import { engines, type OpenStore } from '../../helpers/stores'
import { testDispatcher } from '../../helpers/test-dispatcher'

// The outbox and its dispatcher on the store, on SQLite and on a real PostgreSQL: events published
// in a unit are delivered once each, in order within a workspace, never when the unit rolls back,
// and two dispatchers sharing the database never deliver one event twice.

const SYSTEM = { type: 'system', id: null } as const
const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

function rig(store: Store, clock: ManualClock, owner: string, seed: number) {
  const outbox = new Outbox(store.db, clock, seededRandom(seed), store)
  const dispatcher = testDispatcher(outbox, clock, owner)
  return { outbox, dispatcher }
}

/** What a subscriber to `key.revoked` was handed, each event as `label` writes it, in delivery order. */
function seenRevoked(
  dispatcher: ReturnType<typeof rig>['dispatcher'],
  label: (e: DomainEvent<'key.revoked'>) => string,
): string[] {
  const seen: string[] = []
  dispatcher.subscribe({
    name: 'seen',
    types: ['key.revoked'],
    handle: (e: DomainEvent<'key.revoked'>) => void seen.push(label(e)),
  })
  return seen
}

function revoked(ws: string, keyId: string) {
  return {
    type: 'key.revoked' as const,
    workspaceId: ws,
    payload: { keyId, name: 'k', prefix: 'ek_x', actor: SYSTEM },
  }
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`the outbox on ${engine.name}`, () => {
    async function open(): Promise<Store> {
      const o = await engine.open()
      opened.push(o)
      return o.store
    }

    test('published events are delivered once each, in order a workspace; a rolled-back one never', async () => {
      const store = await open()
      const clock = new ManualClock()
      const { outbox, dispatcher } = rig(store, clock, 'proc_1_events', 1)
      const seen = seenRevoked(dispatcher, (e) => `${e.workspaceId}:${e.payload.keyId}`)
      await store.unit(async () => {
        await outbox.publish(revoked('ws_a', 'a1'))
        await outbox.publish(revoked('ws_a', 'a2'))
        await outbox.publish(revoked('ws_b', 'b1'))
      })
      await expect(
        store.unit(async () => {
          await outbox.publish(revoked('ws_a', 'lost'))
          throw new Error('rolled back')
        }),
      ).rejects.toThrow('rolled back')
      await expect(outbox.publish(revoked('ws_a', 'outside'))).rejects.toThrow(/outside a unit/)
      expect((await outbox.pending()).map((e) => (e as DomainEvent<'key.revoked'>).payload.keyId)).toEqual([
        'a1',
        'a2',
        'b1',
      ])
      await dispatcher.drain()
      expect(seen.filter((s) => s.startsWith('ws_a'))).toEqual(['ws_a:a1', 'ws_a:a2'])
      expect(seen.sort()).toEqual(['ws_a:a1', 'ws_a:a2', 'ws_b:b1'])
      expect(await outbox.pending()).toEqual([])
      clock.advance(8 * 86_400_000)
      expect(await outbox.prune(clock.now().getTime() - 7 * 86_400_000)).toBe(3)
    })

    test('events published together are written in their order, whatever their number, and delivered so', async () => {
      const store = await open()
      const clock = new ManualClock()
      const { outbox, dispatcher } = rig(store, clock, 'proc_1_events', 2)
      const seen = seenRevoked(dispatcher, (e) => e.payload.keyId)
      // More than two statements of rows (64 a statement), then a remainder of two.
      const keys = Array.from({ length: 130 }, (_, i) => `k${i}`)
      const ids = await store.unit(() =>
        outbox.publishAll(keys.map((k, i) => revoked(i % 2 ? 'ws_a' : 'ws_b', k))),
      )
      const pending = await outbox.pending()
      expect(pending.map((e) => e.id)).toEqual(ids)
      expect(pending.map((e) => (e as DomainEvent<'key.revoked'>).payload.keyId)).toEqual(keys)
      await expect(outbox.publishAll([revoked('ws_a', 'outside')])).rejects.toThrow(/outside a unit/)
      await dispatcher.drain()
      expect(seen.filter((k) => Number(k.slice(1)) % 2 === 1)).toEqual(keys.filter((_, i) => i % 2 === 1))
      expect(seen.filter((k) => Number(k.slice(1)) % 2 === 0)).toEqual(keys.filter((_, i) => i % 2 === 0))
    })

    test("a transactional subscriber's writes commit with its delivery record, or neither", async () => {
      const store = await open()
      const clock = new ManualClock()
      const { outbox, dispatcher } = rig(store, clock, 'proc_1_events', 2)
      const ws = store.table(workspaces)
      await store.unit(async () => {
        await store.db.insert(ws).values({ id: 'ws_a', name: 'n0', plan: 'beta', createdAt: 1, updatedAt: 1 })
      })
      let failNext = true
      dispatcher.subscribe({
        name: 'renamer',
        types: ['key.revoked'],
        transactional: true,
        handle: async (e: DomainEvent<'key.revoked'>) => {
          await store.db
            .update(ws)
            .set({ name: sql`${ws.name} || ${`+${e.payload.keyId}`}` })
            .where(eq(ws.id, 'ws_a'))
          if (failNext) {
            failNext = false
            throw new Error('after the write')
          }
        },
      })
      await store.unit(() => outbox.publish(revoked('ws_a', 'k1')).then(() => {}))
      await dispatcher.drain()
      const name = async () => (await store.db.select({ name: ws.name }).from(ws))[0]!.name
      expect(await name()).toBe('n0')
      clock.advance(1000)
      await dispatcher.drain()
      expect(await name()).toBe('n0+k1')
      expect(await outbox.pending()).toEqual([])
    })

    test('two dispatchers sharing the database deliver each event once', async () => {
      const store = await open()
      const clock = new ManualClock()
      const one = rig(store, clock, 'proc_1_events', 3)
      const two = rig(store, clock, 'proc_2_events', 4)
      const seen: string[] = []
      for (const { dispatcher } of [one, two]) {
        dispatcher.subscribe({
          name: 'seen',
          types: ['key.revoked'],
          handle: async (e: DomainEvent<'key.revoked'>) => {
            seen.push(e.payload.keyId)
            await Promise.resolve()
          },
        })
      }
      await store.unit(async () => {
        for (let i = 0; i < 12; i++) await one.outbox.publish(revoked(`ws_${i % 4}`, `k${i}`))
      })
      await Promise.all([one.dispatcher.drain(), two.dispatcher.drain()])
      await Promise.all([one.dispatcher.drain(), two.dispatcher.drain()])
      expect(seen.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `k${i}`).sort())
      expect(await one.outbox.pending()).toEqual([])
    })
  })
}
