import { afterEach, describe, expect, test } from 'bun:test'
import { UsageExport } from '../../../src/features/usage/usage.export'
import { queriesBetween } from '../../../src/features/usage/usage.repo'
import { usageDaily } from '../../../src/features/usage/usage.tables'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import type { Store } from '../../../src/platform/db/store'
import { Outbox } from '../../../src/platform/events/outbox'
import { engines, type OpenStore } from '../../helpers/stores'

// Usage counters on both engines: the counters of a workspace between two days (both inclusive)
// read back as written, a failed unit keeps none, and an export is told (`usage.exported`) in a unit.
// The counter's upsert itself still runs in answers' synchronous transaction on SQLite (usage.repo.ts).

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const counters = (workspaceId: string, corpusId: string, day: string, queries: number) => ({
  workspaceId,
  corpusId,
  day,
  queries,
  loadTestQueries: queries * 10,
  compareQueries: queries * 100,
})

async function open(engine: { open(): Promise<OpenStore> }): Promise<Store> {
  const o = await engine.open()
  opened.push(o)
  return o.store
}

const write = (store: Store, rows: ReturnType<typeof counters>[]) =>
  store.unit(async () => {
    for (const r of rows) await store.db.insert(store.table(usageDaily)).values(r)
  })

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`usage counters on ${engine.name}`, () => {
    test('the counters between two days, both inclusive, read back as written; a failed unit keeps none', async () => {
      const store = await open(engine)
      await write(store, [
        counters('ws_1', 'cor_1', '2026-02-28', 1),
        counters('ws_1', 'cor_1', '2026-03-01', 2),
        counters('ws_1', '', '2026-03-01', 3),
        counters('ws_1', 'cor_2', '2026-03-31', 4),
        counters('ws_1', 'cor_1', '2026-04-01', 5),
        counters('ws_2', 'cor_9', '2026-03-02', 6),
      ])
      await expect(
        store.unit(async () => {
          await store.db.insert(store.table(usageDaily)).values(counters('ws_1', 'cor_3', '2026-03-05', 7))
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      const rows = await queriesBetween(store, 'ws_1', '2026-03-01', '2026-03-31')
      const { workspaceId: _w, ...c2 } = counters('ws_1', 'cor_1', '2026-03-01', 2)
      const { workspaceId: _x, ...c3 } = counters('ws_1', '', '2026-03-01', 3)
      const { workspaceId: _y, ...c4 } = counters('ws_1', 'cor_2', '2026-03-31', 4)
      const key = (r: { day: string; corpusId: string }) => `${r.day} ${r.corpusId}`
      expect(rows.sort((a, b) => key(a).localeCompare(key(b)))).toEqual([c3, c2, c4])
    })

    test('an export is told for the audit log in a unit of its own', async () => {
      const store = await open(engine)
      const events = new Outbox(store.db, new ManualClock(), seededRandom(1), store)
      const exports = new UsageExport({ store, events })
      const actor = { type: 'user' as const, id: 'usr_1', ip: '2001:db8::1', requestId: 'req_1' }
      await exports.rows('ws_1', { from: '2026-03-01', to: '2026-03-31' }, actor, 'csv')
      const told = await events.pending()
      expect(told.map((e) => [e.type, e.workspaceId, e.payload])).toEqual([
        [
          'usage.exported',
          'ws_1',
          { actor, details: { format: 'csv', from: '2026-03-01', to: '2026-03-31' } },
        ],
      ])
    })
  })
}
