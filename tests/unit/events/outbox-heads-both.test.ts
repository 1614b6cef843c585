import { afterEach, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { rawRows } from '../../../src/platform/db/raw'
import { DeliveryStatements } from '../../../src/platform/events/outbox.delivery.repo'
import { engines, type OpenStore, seedTenants } from '../../helpers/stores'

// The claim's read of each workspace's head (its lowest undelivered `seq`), on both engines: SQLite
// walks the workspaces by seeks, PostgreSQL groups (outbox.delivery.repo.ts). Workspaces whose ids
// sort otherwise than their heads, delivered events before, between and after the heads, a
// workspace with everything delivered and one with a single event.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`the outbox's heads on ${engine.name}`, () => {
    test('each workspace with events waiting gives its lowest undelivered event, in seq order', async () => {
      const o = await engine.open()
      opened.push(o)
      const s = o.store
      const ws = ['ws_a', 'ws_b', 'ws_c', 'ws_d', 'ws_e']
      await seedTenants(s, { workspaces: ws, bases: [], at: 0 })
      // seq: workspace, delivered?
      const events: [string, boolean][] = [
        ['ws_d', true],
        ['ws_c', false], // ws_c's head
        ['ws_a', true],
        ['ws_a', true],
        ['ws_e', true], // ws_e: all delivered
        ['ws_d', false], // ws_d's head
        ['ws_a', false], // ws_a's head
        ['ws_c', false],
        ['ws_d', true], // delivered after an undelivered one (a later event of a retried head)
        ['ws_a', false],
        ['ws_b', false], // ws_b's only event
        ['ws_c', true],
      ]
      await s.unit(async () => {
        for (const [i, [w, delivered]] of events.entries()) {
          await rawRows(
            s,
            sql`INSERT INTO domain_events (seq, id, workspace_id, type, payload, occurred_at, run_at, delivered_at)
                VALUES (${i + 1}, ${`evt_${i + 1}`}, ${w}, 'key.revoked', '{}', ${i}, 0, ${delivered ? i : null})`,
          )
        }
      })
      const heads = await new DeliveryStatements(s).heads.execute()
      expect(heads.map((h) => [h.seq, h.workspaceId])).toEqual([
        [2, 'ws_c'],
        [6, 'ws_d'],
        [7, 'ws_a'],
        [11, 'ws_b'],
      ])
      expect(heads[0]).toMatchObject({ id: 'evt_2', type: 'key.revoked', attempts: 0, leaseUntil: null })
    })
  })
}
