import { afterEach, describe, expect, test } from 'bun:test'
import { ManualClock } from '../../../src/platform/clock/clock'
import { sha256Hex } from '../../../src/platform/crypto/hash'
import type { Store } from '../../../src/platform/db/store'
import { ApiError } from '../../../src/platform/errors/errors'
import { RateLimiter } from '../../../src/platform/rate-limit/rate-limit'
import { rateLimitWindows } from '../../../src/platform/rate-limit/rate-limit.tables'
import { engines, type OpenStore } from '../../helpers/stores'

// Rate limits kept in the store, on SQLite and on a real PostgreSQL: hits from two processes on one
// database count against one limit (replicas share it), at once included; a window ends and starts
// again; refusals say when to come back; keys are kept hashed; ended windows are swept.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const RULE = { name: 'login', max: 5, windowMs: 60_000 }

async function outcome(p: Promise<void>): Promise<string> {
  try {
    await p
    return 'ok'
  } catch (e) {
    if (e instanceof ApiError) return `${e.code} ${e.headers?.['retry-after'] ?? ''}`.trim()
    throw e
  }
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`rate limits on ${engine.name}`, () => {
    async function open(): Promise<{ o: OpenStore; other: Store }> {
      const o = await engine.open()
      opened.push(o)
      return { o, other: engine.name === 'postgres' ? (await o.another()).store : o.store }
    }

    test('hits at once from two processes count against one limit, and a window ends and starts again', async () => {
      const { o, other } = await open()
      const clock = new ManualClock('2026-03-01T12:00:00Z')
      const a = new RateLimiter(o.store, clock, true)
      const b = new RateLimiter(other, clock, true)
      // Twelve hits at once, six each: five pass, the rest are refused for the window's minute.
      const hits = Array.from({ length: 12 }, (_, i) => outcome((i % 2 ? a : b).hit(RULE, '203.0.113.5')))
      const got = await Promise.all(hits)
      expect(got.filter((g) => g === 'ok').length).toBe(5)
      expect(got.filter((g) => g === 'rate_limited 60').length).toBe(7)
      // Another key and another limit have counters of their own.
      expect(await outcome(a.hit(RULE, '203.0.113.6'))).toBe('ok')
      expect(await outcome(b.hit({ ...RULE, name: 'register' }, '203.0.113.5'))).toBe('ok')
      clock.advance(45_000)
      expect(await outcome(b.hit(RULE, '203.0.113.5'))).toBe('rate_limited 15')
      clock.advance(15_000)
      expect(await outcome(a.hit(RULE, '203.0.113.5'))).toBe('ok')
      for (let i = 0; i < 4; i++) expect(await outcome(b.hit(RULE, '203.0.113.5'))).toBe('ok')
      expect(await outcome(a.hit(RULE, '203.0.113.5'))).toBe('rate_limited 60')
    })

    test('keys are kept hashed, ended windows are swept, and a limiter switched off counts nothing', async () => {
      const { o } = await open()
      const clock = new ManualClock('2026-03-01T12:00:00Z')
      const t = o.store.table(rateLimitWindows)
      const rows = () => o.store.db.select({ name: t.name, key: t.key }).from(t).orderBy(t.name, t.key)
      await new RateLimiter(o.store, clock, false).hit(RULE, 'ada@example.com')
      expect(await rows()).toEqual([])
      const on = new RateLimiter(o.store, clock, true)
      await on.hit(RULE, 'ada@example.com')
      await on.hit({ ...RULE, name: 'register', windowMs: 3_600_000 }, 'ada@example.com')
      expect(await rows()).toEqual([
        { name: 'login', key: sha256Hex('ada@example.com') },
        { name: 'register', key: sha256Hex('ada@example.com') },
      ])
      expect(JSON.stringify(await rows())).not.toContain('ada@')
      // A minute on, the login window has ended: the next hit sweeps it, the hour's stays.
      clock.advance(60_000)
      await on.hit({ ...RULE, name: 'other' }, 'x')
      expect((await rows()).map((r) => r.name)).toEqual(['other', 'register'])
    })
  })
}
