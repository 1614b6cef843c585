import { afterEach, describe, expect, test } from 'bun:test'
import { ManualClock } from '../../../src/platform/clock/clock'
import type { Store } from '../../../src/platform/db/store'
import { IdempotencyStore, type StoredResponse } from '../../../src/platform/http/idempotency'
import { IdempotencyRecords } from '../../../src/platform/http/idempotency.records'
import { idempotencyKeys } from '../../../src/platform/http/idempotency.tables'
import { engines, type OpenStore } from '../../helpers/stores'

// Idempotency records on SQLite and on a real PostgreSQL: a request runs once and is replayed, a
// secret answer is spent, a failed or overloaded run lets the key go, two processes claiming one
// key at once run the handler once, an expired record is taken over by one request, and the sweep
// deletes a bounded batch of expired records.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const HOUR = 3_600_000
const answer = (status: number, text: string): StoredResponse => ({
  status,
  headers: { 'content-type': 'text/plain' },
  body: new TextEncoder().encode(text),
})

/** A handler that runs only when let go, counting its runs. */
function gated(status = 200) {
  let open: () => void = () => {}
  const gate = new Promise<void>((r) => {
    open = r
  })
  const d = {
    runs: 0,
    open: () => open(),
    run: async () => {
      d.runs++
      await gate
      return answer(status, `run ${d.runs}`)
    },
  }
  return d
}

const text = (r: { response: StoredResponse }) => new TextDecoder().decode(r.response.body)

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`idempotency records on ${engine.name}`, () => {
    async function open(): Promise<OpenStore> {
      const o = await engine.open()
      opened.push(o)
      return o
    }
    const clock = new ManualClock('2026-05-01T00:00:00Z')
    let processes = 0
    const idem = (store: Store) =>
      new IdempotencyStore(store, clock, {
        ttlMs: 24 * HOUR,
        claimMs: 60_000,
        secret: 'secret',
        owner: `proc_${++processes}`,
      })

    test('a request runs once and is replayed; another body is refused; a secret answer is spent', async () => {
      const { store } = await open()
      const s = idem(store)
      let runs = 0
      const run = async () => answer(201, `made ${++runs}`)
      const first = await s.execute('ws_1', 'k1', 'h1', run)
      expect([first.replayed, text(first), first.response.status]).toEqual([false, 'made 1', 201])
      const again = await s.execute('ws_1', 'k1', 'h1', run)
      expect([again.replayed, text(again), again.response.headers]).toEqual([
        true,
        'made 1',
        { 'content-type': 'text/plain' },
      ])
      await expect(s.execute('ws_1', 'k1', 'h2', run)).rejects.toMatchObject({ code: 'idempotency_mismatch' })
      // Another scope's key is another record.
      expect(text(await s.execute('ws_2', 'k1', 'h1', run))).toBe('made 2')
      expect((await s.execute('ws_1', 'k2', 'h1', run, false)).replayed).toBe(false)
      await expect(s.execute('ws_1', 'k2', 'h1', run, false)).rejects.toMatchObject({
        code: 'idempotency_key_reused',
      })
      expect(runs).toBe(3)
    })

    test('a run that fails or answers 5xx lets the key go; duplicates in one process wait and replay', async () => {
      const { store } = await open()
      const s = idem(store)
      await expect(
        s.execute('ws_1', 'k', 'h', async () => {
          throw new Error('boom')
        }),
      ).rejects.toThrow('boom')
      expect((await s.execute('ws_1', 'k', 'h', async () => answer(503, 'busy'))).response.status).toBe(503)
      const g = gated()
      const both = Promise.all([s.execute('ws_1', 'k', 'h', g.run), s.execute('ws_1', 'k', 'h', g.run)])
      g.open()
      const [a, b] = await both
      expect(g.runs).toBe(1)
      expect([a.replayed, b.replayed].sort()).toEqual([false, true])
      expect(text(b)).toBe(text(a))
    })

    test('a duplicate that read the key pending just before the first run ended replays it, not 409', async () => {
      const { store } = await open()
      const s = idem(store)
      const g = gated()
      // The duplicate's read of the row is held until the first request has ended: the row it read
      // says pending, while in this process the run has left (the race a loaded machine makes).
      const read = IdempotencyRecords.prototype.read
      let readSeen: () => void = () => {}
      const seen = new Promise<void>((r) => {
        readSeen = r
      })
      let firstEnded: Promise<unknown> = Promise.resolve()
      IdempotencyRecords.prototype.read = async function (this: IdempotencyRecords, ...a) {
        const row = await read.apply(this, a)
        readSeen()
        await firstEnded.catch(() => {})
        return row
      }
      try {
        let started: () => void = () => {}
        const running = new Promise<void>((r) => {
          started = r
        })
        const run = () => {
          started()
          return g.run()
        }
        const first = s.execute('ws_1', 'k', 'h', run)
        firstEnded = first
        await running
        const second = s.execute('ws_1', 'k', 'h', run)
        await seen
        g.open()
        const [a, b] = await Promise.all([first, second])
        expect(g.runs).toBe(1)
        expect([a.replayed, b.replayed]).toEqual([false, true])
        expect(text(b)).toBe(text(a))
      } finally {
        IdempotencyRecords.prototype.read = read
      }
    })

    test('two processes claiming one key at once run the handler once', async () => {
      const o = await open()
      const other = await o.another()
      const [one, two] = [idem(o.store), idem(other.store)]
      const g = gated()
      if (engine.name === 'postgres') {
        // Both claim at once; the loser has no promise of the winner's to wait on: 409, told while
        // the winner's handler is still held (so it settles first).
        const both = [one.execute('ws_1', 'k', 'h', g.run), two.execute('ws_1', 'k', 'h', g.run)]
        const settled = Promise.allSettled(both)
        const loser = await Promise.race(
          both.map((p, i) =>
            p.then(
              () => i,
              () => i,
            ),
          ),
        )
        expect(g.runs).toBe(1)
        g.open()
        const outcome = await settled
        expect(g.runs).toBe(1)
        expect(outcome[loser]).toMatchObject({
          status: 'rejected',
          reason: { code: 'idempotency_in_progress' },
        })
        expect(outcome[1 - loser]).toMatchObject({ status: 'fulfilled', value: { replayed: false } })
      } else {
        // Two SQLite connections of one process take turns (a second writer would wait on a lock
        // only this thread could release): the second claims while the first runs.
        const first = one.execute('ws_1', 'k', 'h', g.run)
        while (g.runs === 0) await new Promise((r) => setImmediate(r))
        await expect(two.execute('ws_1', 'k', 'h', g.run)).rejects.toMatchObject({
          code: 'idempotency_in_progress',
        })
        g.open()
        expect((await first).replayed).toBe(false)
        expect(g.runs).toBe(1)
      }
      // Done: either process replays it.
      expect((await two.execute('ws_1', 'k', 'h', g.run)).replayed).toBe(true)
    })

    test('an expired record is taken over by one request alone', async () => {
      const o = await open()
      const other = await o.another()
      const [one, two] = [idem(o.store), idem(other.store)]
      await one.execute('ws_1', 'k', 'h', async () => answer(200, 'old'))
      clock.advance(25 * HOUR)
      const g = gated()
      const runs =
        engine.name === 'postgres'
          ? Promise.allSettled([one.execute('ws_1', 'k', 'h', g.run), two.execute('ws_1', 'k', 'h', g.run)])
          : Promise.allSettled([one.execute('ws_1', 'k', 'h', g.run), one.execute('ws_1', 'k', 'h', g.run)])
      while (g.runs === 0) await new Promise((r) => setImmediate(r))
      g.open()
      const out = await runs
      expect(g.runs).toBe(1)
      const ran = out.filter((r) => r.status === 'fulfilled' && !r.value.replayed)
      expect(ran.length).toBe(1)
    })

    test('the sweep deletes a bounded batch of expired records, none inside a unit that fails', async () => {
      const { store } = await open()
      const s = idem(store)
      const now = clock.now().getTime()
      const t = store.table(idempotencyKeys)
      await store.unit(async () => {
        for (let i = 0; i < 7; i++) {
          await store.db.insert(t).values({
            scope: 'ws_1',
            key: `k${i}`,
            requestHash: 'h',
            state: 'done',
            createdAt: now - 2 * HOUR,
            expiresAt: i < 5 ? now - HOUR + i : now + HOUR,
          })
        }
      })
      await expect(
        store.unit(async () => {
          expect(await s.sweep(now, 3)).toBe(3)
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      expect(await s.sweep(now, 3)).toBe(3)
      const left = async () => (await store.db.select({ key: t.key }).from(t)).map((r) => r.key).sort()
      expect(await left()).toEqual(['k3', 'k4', 'k5', 'k6'])
      expect(await s.sweep(now, 3)).toBe(2)
      expect(await s.sweep(now, 3)).toBe(0)
      expect(await left()).toEqual(['k5', 'k6'])
    })
  })
}
