import { afterEach, describe, expect, test } from 'bun:test'
import type { CorpusRow } from '../../../src/features/corpora/corpora.repo'
import { scaleTestLease } from '../../../src/features/scale/lib/test-lease'
import { ScaleService } from '../../../src/features/scale/scale.service'
import { ManualClock } from '../../../src/platform/clock/clock'
import { cryptoRandom } from '../../../src/platform/crypto/random'
import type { Store } from '../../../src/platform/db/store'
import { NamedLeases } from '../../../src/platform/leases/leases.repo'
import { engines, type OpenStore, outcomeCode, seedTenants, sessionAdmin } from '../../helpers/stores'

// One scale test per workspace across processes, on SQLite and on a real PostgreSQL: two
// ScaleService instances on two stores of one database (one store on SQLite) stand for two
// replicas. A test holds the workspace's named lease from its start to its end; a start on the
// other process meanwhile is 409 `scale_test_in_progress`; of two starts at once on the two, one
// runs; a process that died mid-test blocks the workspace until its lease lapses. The tests are
// started and ended without iterating (the lease is taken at start), so no load is sent.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123
const MAX_SECONDS = 60
/** How long a test's lease lasts: the time cap plus the in-process check's grace (30 s). */
const SLOT_MS = MAX_SECONDS * 1000 + 30_000

function service(store: Store, clock: ManualClock): ScaleService {
  const corpus = { id: 'cor_1', workspaceId: 'ws_1' } as unknown as CorpusRow
  return new ScaleService({
    store,
    clock,
    random: cryptoRandom,
    corpora: {} as never,
    answers: {} as never,
    economics: { servable: async () => corpus, sample: async () => ['q?'], cpu: () => 0 } as never,
    limits: { maxSeconds: MAX_SECONDS, maxRequestsPerLevel: 1, maxPerHour: 1000 },
  })
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`scale tests across processes on ${engine.name}`, () => {
    async function open() {
      const o = await engine.open()
      opened.push(o)
      const workspaces = Array.from({ length: 11 }, (_, i) => `ws_${i + 1}`)
      await seedTenants(o.store, { workspaces, at: T0 })
      // On SQLite one process writes (two connections of one event loop would wait on each other).
      const other = engine.name === 'postgres' ? (await o.another()).store : o.store
      const clock = new ManualClock(new Date(T0))
      return {
        clock,
        a: service(o.store, clock),
        b: service(other, clock),
        leases: new NamedLeases(o.store, clock),
      }
    }
    const start = (s: ScaleService, ws = 'ws_1') =>
      s.scaleTestStream(sessionAdmin(ws), 'cor_1', { queries: ['q?'], max_concurrency: 1 }, null)

    test('a test running on one process refuses a start on the other until it ends', async () => {
      const { a, b, leases } = await open()
      const first = await start(a)
      expect(await outcomeCode(start(b))).toBe('scale_test_in_progress')
      expect(await outcomeCode(start(a))).toBe('scale_test_in_progress')
      expect(await leases.holder(scaleTestLease('ws_1'))).not.toBeNull()
      // Another workspace is apart.
      const elsewhere = await start(b, 'ws_2')
      await first.return(undefined)
      await a.settled()
      expect(await leases.holder(scaleTestLease('ws_1'))).toBeNull()
      const second = await start(b)
      expect(await outcomeCode(start(a))).toBe('scale_test_in_progress')
      await second.return(undefined)
      await elsewhere.return(undefined)
      await b.settled()
      expect(await leases.holder(scaleTestLease('ws_1'))).toBeNull()
      expect(await leases.holder(scaleTestLease('ws_2'))).toBeNull()
    })

    test('of two starts at once, one on each process, exactly one runs', async () => {
      const { a, b } = await open()
      for (let round = 3; round <= 11; round++) {
        const ws = `ws_${round}`
        const tries = [start(a, ws), start(b, ws)]
        const codes = await Promise.all(tries.map(outcomeCode))
        expect(codes.sort()).toEqual(['ok', 'scale_test_in_progress'])
        for (const t of tries) await t.then((g) => g.return(undefined)).catch(() => undefined)
      }
      await Promise.all([a.settled(), b.settled()])
    })

    test('a process that died mid-test blocks the workspace until its lease lapses, not longer', async () => {
      const { clock, a, b, leases } = await open()
      // A's test never ends: its process is gone (it never releases).
      await start(a)
      clock.advance(SLOT_MS - 1)
      expect(await outcomeCode(start(b))).toBe('scale_test_in_progress')
      clock.advance(1)
      const taken = await start(b)
      const holder = await leases.holder(scaleTestLease('ws_1'))
      expect(holder?.until).toBe(T0 + 2 * SLOT_MS)
      await taken.return(undefined)
      await b.settled()
      expect(await leases.holder(scaleTestLease('ws_1'))).toBeNull()
    })
  })
}
