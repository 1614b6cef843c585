import { afterEach, describe, expect, test } from 'bun:test'
import { ManualClock } from '../../../src/platform/clock/clock'
import type { Store } from '../../../src/platform/db/store'
import { IdempotencyStore, type StoredResponse } from '../../../src/platform/http/idempotency'
import { idempotencyKeys } from '../../../src/platform/http/idempotency.tables'
import { engines, type OpenStore } from '../../helpers/stores'

// Pending idempotency claims of their own expiry, on SQLite and on a real PostgreSQL: a claim left
// by a process that never ends its request is refused until its expiry and taken over after it, by
// one retry of two at once; the former owner's late outcome, failure or renewal writes nothing; a
// request in flight renews its claim on its process's timer, so it is not taken over.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const HOUR = 3_600_000
const CLAIM = 60_000
const answer = (status: number, text: string): StoredResponse => ({
  status,
  headers: { 'content-type': 'text/plain' },
  body: new TextEncoder().encode(text),
})
const text = (r: { response: StoredResponse }) => new TextDecoder().decode(r.response.body)
const turns = async (n = 10) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r))
}

/** Waits until `g`'s handler runs, failing when `request` ends first (it was not let run). */
async function started(g: { runs: number }, request: Promise<unknown>): Promise<void> {
  let ended = false
  request.then(
    () => {
      ended = true
    },
    () => {
      ended = true
    },
  )
  while (g.runs === 0) {
    if (ended) throw new Error('the request ended without running its handler')
    await turns(1)
  }
}

/** A handler that runs only when let go (or fails when told to), counting its runs. */
function gated(says: string) {
  let open: () => void = () => {}
  const gate = new Promise<void>((r) => {
    open = r
  })
  const d = {
    runs: 0,
    fail: false,
    open: () => open(),
    run: async () => {
      d.runs++
      await gate
      if (d.fail) throw new Error(`${says} failed`)
      return answer(201, says)
    },
  }
  return d
}

/** A process's timer for renewals, stepped by the test: the ticks it was started with, and whether it runs. */
function manualTimer() {
  const t = {
    periods: [] as number[],
    tick: null as (() => Promise<void>) | null,
    every: (ms: number, tick: () => Promise<void>) => {
      t.periods.push(ms)
      t.tick = tick
      return () => {
        t.tick = null
      }
    },
  }
  return t
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`idempotency claims on ${engine.name}`, () => {
    const clock = new ManualClock('2026-05-01T00:00:00Z')
    async function open(): Promise<OpenStore> {
      const o = await engine.open()
      opened.push(o)
      return o
    }
    /** A process's idempotency store, named `owner`, its renewals on a timer the test steps. */
    const idem = (store: Store, owner: string, timer = manualTimer()) =>
      new IdempotencyStore(store, clock, {
        ttlMs: 24 * HOUR,
        claimMs: CLAIM,
        secret: 's',
        owner,
        every: timer.every,
      })
    const row = async (store: Store, key = 'k') => {
      const t = store.table(idempotencyKeys)
      const rows = await store.db.select().from(t)
      const r = rows.find((x) => x.key === key)
      return r && { state: r.state, owner: r.owner, expiresAt: r.expiresAt, status: r.status }
    }

    test('a dead claim is refused before its expiry, taken over after it, and its late outcome writes nothing', async () => {
      const o = await open()
      const dead = idem((await o.another()).store, 'proc_dead')
      const live = idem(o.store, 'proc_live')
      const stuck = gated('first')
      const first = dead.execute('ws_1', 'k', 'h', stuck.run)
      await started(stuck, first)
      const t0 = clock.now().getTime()
      expect(await row(o.store)).toEqual({
        state: 'pending',
        owner: 'proc_dead.1',
        expiresAt: t0 + CLAIM,
        status: null,
      })

      clock.advance(CLAIM - 1)
      const retry = gated('second')
      await expect(live.execute('ws_1', 'k', 'h', retry.run)).rejects.toMatchObject({
        code: 'idempotency_in_progress',
      })
      clock.advance(1)
      const second = live.execute('ws_1', 'k', 'h', retry.run)
      await started(retry, second)
      const taken = {
        state: 'pending' as const,
        owner: 'proc_live.2',
        expiresAt: t0 + 2 * CLAIM,
        status: null,
      }
      expect(await row(o.store)).toEqual(taken)

      // The former owner comes back: its renewal and its outcome change nothing; its client gets
      // the answer of its own run.
      expect(await dead.renew()).toBe(0)
      stuck.open()
      expect([(await first).replayed, text(await first)]).toEqual([false, 'first'])
      expect(await row(o.store)).toEqual(taken)

      retry.open()
      expect(text(await second)).toBe('second')
      const replay = await dead.execute('ws_1', 'k', 'h', async () => answer(201, 'third'))
      expect([replay.replayed, text(replay)]).toEqual([true, 'second'])
      expect(stuck.runs + retry.runs).toBe(2)
    })

    test("a former owner's late failure does not let the new owner's claim go", async () => {
      const o = await open()
      const dead = idem((await o.another()).store, 'proc_dead')
      const live = idem(o.store, 'proc_live')
      const stuck = gated('first')
      stuck.fail = true
      const first = dead.execute('ws_1', 'k', 'h', stuck.run)
      await started(stuck, first)
      clock.advance(CLAIM)
      const retry = gated('second')
      const second = live.execute('ws_1', 'k', 'h', retry.run)
      await started(retry, second)
      stuck.open()
      await expect(first).rejects.toThrow('first failed')
      expect(await row(o.store)).toMatchObject({ state: 'pending', owner: 'proc_live.1' })
      // A third request still finds the key held rather than running it again.
      await expect(idem(o.store, 'proc_other').execute('ws_1', 'k', 'h', retry.run)).rejects.toMatchObject({
        code: 'idempotency_in_progress',
      })
      retry.open()
      expect((await second).replayed).toBe(false)
      expect(retry.runs).toBe(1)
    })

    test('two retries at once after a dead claim expired: one takes it over', async () => {
      const o = await open()
      const dead = idem((await o.another()).store, 'proc_dead')
      const stuck = gated('first')
      const first = dead.execute('ws_1', 'k', 'h', stuck.run)
      await started(stuck, first)
      clock.advance(CLAIM)
      const retry = gated('second')
      // On PostgreSQL from two processes at once; SQLite's connections of one process take turns
      // (a second writer would wait on a lock only this thread could release), so from one.
      const [one, two] =
        engine.name === 'postgres'
          ? [idem((await o.another()).store, 'proc_a'), idem((await o.another()).store, 'proc_b')]
          : [idem(o.store, 'proc_a'), null]
      const runs = [
        one.execute('ws_1', 'k', 'h', retry.run),
        (two ?? one).execute('ws_1', 'k', 'h', retry.run),
      ]
      const both = Promise.allSettled(runs)
      if (two) {
        // The loser has no promise of the winner's to wait on: it is answered while the winner's
        // handler is still held.
        await Promise.race(runs.map((p) => p.then(undefined, () => {})))
      } else {
        // The loser waits on the winner's promise in this process.
        await started(retry, both)
        await turns()
      }
      expect(retry.runs).toBe(1)
      retry.open()
      const out = await both
      expect(retry.runs).toBe(1)
      const ran = out.filter((r) => r.status === 'fulfilled' && !r.value.replayed)
      expect(ran.length).toBe(1)
      const other = out.find((r) => !(r.status === 'fulfilled' && !r.value.replayed))
      if (two)
        expect(other).toMatchObject({ status: 'rejected', reason: { code: 'idempotency_in_progress' } })
      else expect(other).toMatchObject({ status: 'fulfilled', value: { replayed: true } })
      stuck.open()
      await first
      expect(await row(o.store)).toMatchObject({ state: 'done', status: 201 })
    })

    test("a claim of this process taken over by its own retry: the first's end leaves the retry's waiters", async () => {
      const { store } = await open()
      // Its timer never ticks: a process stalled past its claim.
      const s = idem(store, 'proc_a')
      const stuck = gated('first')
      const first = s.execute('ws_1', 'k', 'h', stuck.run)
      await started(stuck, first)
      clock.advance(CLAIM)
      const retry = gated('second')
      const second = s.execute('ws_1', 'k', 'h', retry.run)
      await started(retry, second)
      stuck.open()
      expect(text(await first)).toBe('first')
      // A duplicate now waits on the retry run here, and replays it.
      const third = s.execute('ws_1', 'k', 'h', retry.run)
      await turns()
      retry.open()
      expect(text(await second)).toBe('second')
      expect([(await third).replayed, text(await third)]).toEqual([true, 'second'])
      expect(retry.runs).toBe(1)
    })

    test('a request running past its claim renews it on its timer, so a retry is refused, not run', async () => {
      const o = await open()
      const timer = manualTimer()
      const running = idem(o.store, 'proc_a', timer)
      const other = idem((await o.another()).store, 'proc_b')
      const slow = gated('slow')
      const first = running.execute('ws_1', 'k', 'h', slow.run)
      await started(slow, first)
      expect(timer.periods).toEqual([CLAIM / 4])
      for (let tick = 0; tick < 8; tick++) {
        clock.advance(CLAIM / 4)
        await timer.tick?.()
      }
      // Two claims' length later, the claim still holds: renewed to a claim from the last tick.
      const now = clock.now().getTime()
      expect(await row(o.store)).toMatchObject({
        state: 'pending',
        owner: 'proc_a.1',
        expiresAt: now + CLAIM,
      })
      await expect(other.execute('ws_1', 'k', 'h', slow.run)).rejects.toMatchObject({
        code: 'idempotency_in_progress',
      })
      slow.open()
      expect((await first).replayed).toBe(false)
      // Nothing runs: the timer stops, and the record keeps the answer for its TTL.
      expect(timer.tick).toBeNull()
      expect(await row(o.store)).toMatchObject({ state: 'done', expiresAt: now + 24 * HOUR })
      expect(slow.runs).toBe(1)
    })
  })
}
