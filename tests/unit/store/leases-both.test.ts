import { afterEach, describe, expect, test } from 'bun:test'
import { ManualClock } from '../../../src/platform/clock/clock'
import type { Store } from '../../../src/platform/db/store'
import { NamedLeases } from '../../../src/platform/leases/leases.repo'
import { engines, type OpenStore } from '../../helpers/stores'

// Named leases on SQLite and on a real PostgreSQL: of processes taking one name at once exactly one
// wins; the holder renews and releases it, nobody else can; a lapsed lease is taken over, and its
// old holder then can neither renew nor release it.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const MINUTE = 60_000

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`named leases on ${engine.name}`, () => {
    async function open(): Promise<{ store: Store; other: Store }> {
      const o = await engine.open()
      opened.push(o)
      // On SQLite one process writes (two connections of one event loop would wait on each other).
      return { store: o.store, other: engine.name === 'postgres' ? (await o.another()).store : o.store }
    }

    test('of two processes taking one name at once, one wins, each time', async () => {
      const { store, other } = await open()
      const clock = new ManualClock('2026-03-01T12:00:00Z')
      const a = new NamedLeases(store, clock)
      const b = new NamedLeases(other, clock)
      for (let round = 0; round < 20; round++) {
        const name = `sweep.${round}`
        // Three contenders a process, six at once.
        const takes = Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).take(name, `own_${i}`, MINUTE))
        const won = (await Promise.all(takes)).flatMap((ok, i) => (ok ? [`own_${i}`] : []))
        expect(won).toHaveLength(1)
        expect((await a.holder(name))?.owner).toBe(won[0]!)
      }
      // Past a lapse the contest starts again, and again one wins.
      clock.advance(MINUTE)
      const takes = Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).take('sweep.0', `late_${i}`, MINUTE))
      expect((await Promise.all(takes)).filter(Boolean)).toHaveLength(1)
    })

    test('the holder takes again and renews; others cannot take, renew or release it', async () => {
      const { store, other } = await open()
      const clock = new ManualClock('2026-03-01T12:00:00Z')
      const a = new NamedLeases(store, clock)
      const b = new NamedLeases(other, clock)
      const T0 = clock.now().getTime()
      expect(await a.holder('x')).toBeNull()
      expect(await a.take('x', 'own_a', MINUTE)).toBe(true)
      expect(await a.take('x', 'own_a', MINUTE)).toBe(true)
      expect(await b.take('x', 'own_b', MINUTE)).toBe(false)
      expect(await b.renew('x', 'own_b', MINUTE)).toBe(false)
      await b.release('x', 'own_b')
      expect(await b.holder('x')).toEqual({ owner: 'own_a', until: T0 + MINUTE })
      clock.advance(50_000)
      expect(await a.renew('x', 'own_a', MINUTE)).toBe(true)
      clock.advance(50_000)
      // Renewed at 50 s, it holds to 110 s: still a's at 100 s.
      expect(await b.take('x', 'own_b', MINUTE)).toBe(false)
      expect(await b.holder('x')).toEqual({ owner: 'own_a', until: T0 + 110_000 })
      await a.release('x', 'own_a')
      expect(await b.holder('x')).toBeNull()
      expect(await a.renew('x', 'own_a', MINUTE)).toBe(false)
      expect(await b.take('x', 'own_b', MINUTE)).toBe(true)
    })

    test('a lapsed lease is taken over; its old holder can then neither renew nor release it', async () => {
      const { store, other } = await open()
      const clock = new ManualClock('2026-03-01T12:00:00Z')
      const a = new NamedLeases(store, clock)
      const b = new NamedLeases(other, clock)
      expect(await a.take('x', 'own_a', MINUTE)).toBe(true)
      clock.advance(MINUTE - 1)
      expect(await b.take('x', 'own_b', MINUTE)).toBe(false)
      clock.advance(1)
      expect(await a.holder('x')).toBeNull()
      expect(await b.take('x', 'own_b', MINUTE)).toBe(true)
      expect(await a.renew('x', 'own_a', MINUTE)).toBe(false)
      await a.release('x', 'own_a')
      expect((await b.holder('x'))?.owner).toBe('own_b')
      // Leases of other names are apart.
      expect(await a.take('y', 'own_a', MINUTE)).toBe(true)
      expect((await b.holder('x'))?.owner).toBe('own_b')
    })
  })
}
