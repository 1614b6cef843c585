import { afterEach, describe, expect, test } from 'bun:test'
import { asc, eq } from 'drizzle-orm'
import { AllowlistService } from '../../../src/features/allowlist/allowlist.service'
import { WorkspacesService } from '../../../src/features/workspaces/workspaces.service'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import type { Store } from '../../../src/platform/db/store'
import { domainEvents } from '../../../src/platform/events/events.tables'
import { Outbox } from '../../../src/platform/events/outbox'
import { memoryLogger } from '../../../src/platform/log/log'
import { engines, type OpenStore, seedTenants, sessionAdmin } from '../../helpers/stores'

// Changes of a workspace's IP allowlist racing from two processes, on SQLite and on a real
// PostgreSQL: each `ip_allowlist.updated` event tells the list its change replaced, so the events,
// in the order they were written, chain from the list saved before to the list saved last. On
// PostgreSQL each change would otherwise read the same "before" and one event would lie.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123
const CALLER = { ip: '203.0.113.5', requestId: 'req_1' }
const FIRST = ['198.51.100.0/24']

interface Details {
  cidrs: string[]
  added: string[]
  removed: string[]
  was_enabled: boolean
  enabled: boolean
}

function allowlistOn(store: Store, seed: number): AllowlistService {
  const clock = new ManualClock(new Date(T0))
  const events = new Outbox(store.db, clock, seededRandom(seed), store)
  const workspaces = new WorkspacesService(store, clock, seededRandom(seed))
  return new AllowlistService({ store, clock, log: memoryLogger(), events, workspaces })
}

/** The details of every allowlist change, in the order the events were written. */
async function changes(store: Store): Promise<Details[]> {
  const t = store.table(domainEvents)
  const rows = await store.db
    .select({ payload: t.payload })
    .from(t)
    .where(eq(t.type, 'ip_allowlist.updated'))
    .orderBy(asc(t.seq))
  return rows.map((r) => (JSON.parse(r.payload) as { details: Details }).details)
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`the IP allowlist's changes racing on ${engine.name}`, () => {
    test("of changes made at once from two processes, each event's before is the list it replaced", async () => {
      const o = await engine.open()
      opened.push(o)
      await seedTenants(o.store, { workspaces: ['ws_1'], at: T0 })
      const a = allowlistOn(o.store, 1)
      // On SQLite a process's units take turns (one store); on PostgreSQL a second pool is a second process.
      const b = allowlistOn(engine.name === 'postgres' ? (await o.another()).store : o.store, 2)
      await a.put(sessionAdmin(), { enabled: false, cidrs: FIRST }, CALLER)
      const lists = [['10.0.0.0/8'], ['172.16.0.0/12'], ['192.168.0.0/16'], ['100.64.0.0/10']]
      await Promise.all(
        lists.map((cidrs, i) => (i % 2 ? b : a).put(sessionAdmin(), { enabled: false, cidrs }, CALLER)),
      )
      // The operator's switch-off races too: it tells the list it switched off.
      await Promise.all([
        b.put(sessionAdmin(), { enabled: true, cidrs: ['203.0.113.0/24'] }, CALLER),
        a.switchOff('ws_1', { type: 'system', id: 'operator' }),
      ])
      const told = await changes(o.store)
      expect(told.length).toBe(1 + lists.length + 2)
      expect(told[0]!.removed).toEqual([])
      for (let i = 1; i < told.length; i++) {
        const before = told[i - 1]!
        const now = told[i]!
        // The list it replaced is the one the change before it saved (switch-off keeps the entries).
        expect(now.removed).toEqual(before.cidrs.filter((c) => !now.cidrs.includes(c)))
        expect(now.added).toEqual(now.cidrs.filter((c) => !before.cidrs.includes(c)))
        expect(now.was_enabled).toBe(before.enabled)
      }
      const saved = (await a.saved('ws_1'))!
      expect(JSON.parse(saved.cidrs)).toEqual(told.at(-1)!.cidrs)
      expect(saved.enabled).toBe(told.at(-1)!.enabled)
    })
  })
}
