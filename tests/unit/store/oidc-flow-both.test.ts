import { afterEach, describe, expect, test } from 'bun:test'
import { FlowRefused, OidcFlowState } from '../../../src/platform/auth/oidc-flow'
import { oidcSpentFlows } from '../../../src/platform/auth/oidc-spent.tables'
import { ManualClock } from '../../../src/platform/clock/clock'
import { engines, type OpenStore } from '../../helpers/stores'

// Spent sign-in flows on SQLite and on a real PostgreSQL, with two processes' flow states (two
// stores of one database on PostgreSQL): a callback taken on one is refused as replayed on the
// other; of two callbacks of one flow at once, on the two, exactly one passes; spent flows whose
// cookies expired are swept.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const SECRET = 'flow-secret-flow-secret-flow-secret-00'
const COOKIE = { name: 'engram_test_flow', path: '/cb', secure: true }

/** The callback request a browser holding the flow cookie `setCookie` sends. */
const callback = (setCookie: string) =>
  new Request('https://x.test/cb', { headers: { cookie: setCookie.split(';')[0]! } })

/** What a take came to: the state it gave back, or why it was refused. */
async function outcome(p: Promise<{ state: string }>): Promise<string> {
  try {
    return (await p).state
  } catch (e) {
    if (e instanceof FlowRefused) return e.reason
    throw e
  }
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`spent sign-in flows on ${engine.name}`, () => {
    async function open() {
      const o = await engine.open()
      opened.push(o)
      // On SQLite one process writes (two connections of one event loop would wait on each other).
      const other = engine.name === 'postgres' ? (await o.another()).store : o.store
      const clock = new ManualClock('2026-03-01T12:00:00Z')
      const a = new OidcFlowState(SECRET, clock, o.store, COOKIE)
      const b = new OidcFlowState(SECRET, clock, other, COOKIE)
      return { store: o.store, clock, a, b }
    }

    test('a callback taken on one process is refused as replayed on the other', async () => {
      const { a, b } = await open()
      const set = a.issue({ state: 'st_1', nonce: 'n', codeVerifier: 'v' })
      expect(await outcome(a.take(callback(set), 'st_1'))).toBe('st_1')
      expect(await outcome(b.take(callback(set), 'st_1'))).toBe('replayed')
      expect(await outcome(a.take(callback(set), 'st_1'))).toBe('replayed')
      // A state that does not match is refused before the flow is spent: the real callback passes.
      const second = b.issue({ state: 'st_2', nonce: 'n', codeVerifier: 'v' })
      expect(await outcome(a.take(callback(second), 'st_x'))).toBe('state_mismatch')
      expect(await outcome(b.take(callback(second), 'st_2'))).toBe('st_2')
    })

    test('of two callbacks of one flow at once, one on each process, exactly one passes', async () => {
      const { a, b } = await open()
      for (let round = 0; round < 20; round++) {
        const state = `st_race_${round}`
        const set = a.issue({ state, nonce: 'n', codeVerifier: 'v' })
        const takes = [a, b, a, b].map((f) => outcome(f.take(callback(set), state)))
        const got = await Promise.all(takes)
        expect(got.filter((g) => g === state)).toHaveLength(1)
        expect(got.filter((g) => g === 'replayed')).toHaveLength(3)
      }
    })

    test('spent flows whose cookies expired are swept; live ones stay', async () => {
      const { store, clock, a } = await open()
      const rows = async () =>
        (await store.db.select({ key: store.table(oidcSpentFlows).key }).from(store.table(oidcSpentFlows)))
          .length
      const first = a.issue({ state: 'st_old', nonce: 'n', codeVerifier: 'v' })
      expect(await outcome(a.take(callback(first), 'st_old'))).toBe('st_old')
      clock.advance(599_000)
      const second = a.issue({ state: 'st_new', nonce: 'n', codeVerifier: 'v' })
      expect(await outcome(a.take(callback(second), 'st_new'))).toBe('st_new')
      // The first's cookie is still live for a second: kept.
      expect(await rows()).toBe(2)
      clock.advance(1_000)
      expect(await outcome(a.take(callback(first), 'st_old'))).toBe('expired')
      const third = a.issue({ state: 'st_3', nonce: 'n', codeVerifier: 'v' })
      // Within a minute of the last sweep: none yet.
      expect(await outcome(a.take(callback(third), 'st_3'))).toBe('st_3')
      expect(await rows()).toBe(3)
      clock.advance(60_000)
      const fourth = a.issue({ state: 'st_4', nonce: 'n', codeVerifier: 'v' })
      expect(await outcome(a.take(callback(fourth), 'st_4'))).toBe('st_4')
      // The first flow's row is gone; the others' cookies are live.
      expect(await rows()).toBe(3)
    })
  })
}
