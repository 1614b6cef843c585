import { afterEach, describe, expect, test } from 'bun:test'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import type { Store } from '../../../src/platform/db/store'
import type { DomainEvent } from '../../../src/platform/events/events'
import { Outbox } from '../../../src/platform/events/outbox'
import { engines, type OpenStore } from '../../helpers/stores'
import { testDispatcher } from '../../helpers/test-dispatcher'

// Events told `later` (a question answered): written once the caller's turn is over, every event of
// a turn in one quiet unit, so an answer is sent without waiting for its commit; `settled` and the
// dispatcher's drain wait for them, and a write that fails is told, not thrown at anyone.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

function answered(ws: string, corpusId: string) {
  return {
    type: 'question.answered' as const,
    workspaceId: ws,
    payload: { corpusId, strategy: 'rag' as const, answered: true, keyId: null, origin: 'person' as const },
  }
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`events told later, on ${engine.name}`, () => {
    async function rig() {
      const o = await engine.open()
      opened.push(o)
      const store: Store = o.store
      const clock = new ManualClock()
      const outbox = new Outbox(store.db, clock, seededRandom(7), store)
      return { store, outbox, dispatcher: testDispatcher(outbox, clock) }
    }

    test("a turn's events are written after it, in one quiet unit, in the order told", async () => {
      const { store, outbox } = await rig()
      const units: boolean[] = []
      const unit = store.unit.bind(store)
      store.unit = ((work: () => Promise<unknown>, opts?: { quiet?: boolean }) => {
        units.push(opts?.quiet === true)
        return unit(work, opts)
      }) as Store['unit']
      for (const id of ['c1', 'c2', 'c3']) outbox.later(answered('ws_a', id))
      // Nothing written during the turn that told them, its promise jobs included (a read of the table here
      // would itself end the turn on PostgreSQL, whose driver answers later, and race the write).
      expect(units).toEqual([])
      for (let i = 0; i < 10; i++) await Promise.resolve()
      expect(units).toEqual([])
      await outbox.settled()
      expect(units).toEqual([true])
      const written = (await outbox.pending()) as DomainEvent<'question.answered'>[]
      expect(written.map((e) => e.payload.corpusId)).toEqual(['c1', 'c2', 'c3'])
      // A later turn's events get a unit of their own.
      outbox.later(answered('ws_b', 'c4'))
      await outbox.settled()
      expect(units).toEqual([true, true])
      expect((await outbox.pending()).length).toBe(4)
    })

    test("the dispatcher's drain delivers events told later, and inline subscribers count them", async () => {
      const { outbox, dispatcher } = await rig()
      const inline: string[] = []
      const delivered: string[] = []
      dispatcher.subscribe({
        name: 'counter',
        types: ['question.answered'],
        inline: true,
        handle: (e: DomainEvent<'question.answered'>) => void inline.push(e.payload.corpusId),
      })
      dispatcher.subscribe({
        name: 'hook',
        types: ['question.answered'],
        handle: (e: DomainEvent<'question.answered'>) => void delivered.push(e.payload.corpusId),
      })
      outbox.later(answered('ws_a', 'c1'))
      outbox.later(answered('ws_a', 'c2'))
      await dispatcher.drain()
      expect(inline).toEqual(['c1', 'c2'])
      expect(delivered).toEqual(['c1', 'c2'])
      expect(await outbox.pending()).toEqual([])
    })

    test('a write that fails is told to onLaterFailure with its count; settled still resolves, and the next turn writes', async () => {
      const { store, outbox } = await rig()
      const failures: { message: string; events: number }[] = []
      outbox.onLaterFailure((error, events) => failures.push({ message: (error as Error).message, events }))
      const unit = store.unit.bind(store)
      let fail = true
      store.unit = ((work: () => Promise<unknown>, opts?: { quiet?: boolean }) => {
        if (fail) {
          fail = false
          return Promise.reject(new Error('database is locked'))
        }
        return unit(work, opts)
      }) as Store['unit']
      outbox.later(answered('ws_a', 'lost1'))
      outbox.later(answered('ws_a', 'lost2'))
      await outbox.settled()
      expect(failures).toEqual([{ message: 'database is locked', events: 2 }])
      expect(await outbox.pending()).toEqual([])
      outbox.later(answered('ws_a', 'kept'))
      await outbox.settled()
      expect(
        ((await outbox.pending()) as DomainEvent<'question.answered'>[]).map((e) => e.payload.corpusId),
      ).toEqual(['kept'])
    })
  })
}
