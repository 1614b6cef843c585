import { afterEach, describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { workspaces } from '../../../src/features/workspaces/workspaces.tables'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import { rawRows } from '../../../src/platform/db/raw'
import type { Store } from '../../../src/platform/db/store'
import { Dispatcher } from '../../../src/platform/events/dispatcher'
import type { DomainEvent } from '../../../src/platform/events/events'
import { Outbox } from '../../../src/platform/events/outbox'
import { memoryLogger } from '../../../src/platform/log/log'
import { untilWaiting } from '../../helpers/pg-locks'
import { engines, type OpenStore, seedTenants } from '../../helpers/stores'

// A workspace's events are delivered in the order their units committed, which is their `seq`
// order, even when two units publishing in one workspace run at once (issue 40): on PostgreSQL a
// unit that took a lower `seq` could commit after one that took a higher, and the dispatcher then
// delivered the higher first. Unit 1 publishes and stays open; unit 2 (another process on
// PostgreSQL) publishes and commits, or waits; the dispatcher runs; unit 1 commits; the dispatcher
// runs again. Each event is delivered once, in commit order, which is `seq` order.

const SYSTEM = { type: 'system', id: null } as const
const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

function revoked(ws: string, keyId: string) {
  return {
    type: 'key.revoked' as const,
    workspaceId: ws,
    payload: { keyId, name: 'k', prefix: 'ek_x', actor: SYSTEM },
  }
}

/** A promise and its resolve. */
function gate(): { open: () => void; opened: Promise<void> } {
  let open = () => {}
  const opened = new Promise<void>((r) => {
    open = r
  })
  return { open, opened }
}

/** Two processes' outboxes on one database (one store on SQLite, whose units take turns) and a dispatcher. */
async function rig(o: OpenStore, engine: 'sqlite' | 'postgres') {
  const clock = new ManualClock()
  // On PostgreSQL a second pool is a second process.
  const other = engine === 'postgres' ? (await o.another()).store : o.store
  const one = new Outbox(o.store.db, clock, seededRandom(1), o.store)
  const two = new Outbox(other.db, clock, seededRandom(2), other)
  const dispatcher = new Dispatcher({
    outbox: one,
    clock,
    log: memoryLogger(),
    owner: 'proc_1_events',
    leaseMs: 60_000,
    pollMs: 1000,
  })
  const seen: string[] = []
  dispatcher.subscribe({
    name: 'seen',
    types: ['key.revoked'],
    handle: (e: DomainEvent<'key.revoked'>) => void seen.push(e.payload.keyId),
  })
  return { other, one, two, dispatcher, seen }
}

/** The key ids of a workspace's events in `seq` order. */
async function bySeq(store: Store, ws: string): Promise<string[]> {
  const rows = await rawRows(
    store,
    sql`SELECT payload FROM domain_events WHERE workspace_id = ${ws} ORDER BY seq`,
  )
  return rows.map((r) => JSON.parse(String(r.payload)).keyId)
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`the outbox's order on ${engine.name}`, () => {
    test('a later seq committed first waits for the lower one; each event is delivered once, in seq order', async () => {
      const o = await engine.open()
      opened.push(o)
      const { other, one, two, dispatcher, seen } = await rig(o, engine.name)
      const committed: string[] = []
      const published = gate()
      const release = gate()
      const first = o.store
        .unit(async () => {
          await one.publish(revoked('ws_1', 'first'))
          published.open()
          await release.opened
        })
        .then(() => committed.push('first'))
      await published.opened
      const second = other
        .unit(async () => {
          await two.publish(revoked('ws_1', 'second'))
          await two.publish(revoked('ws_2', 'elsewhere'))
        })
        .then(() => committed.push('second'))
      if (engine.name === 'postgres') {
        // Unit 2 is not held back by unit 1: it commits while unit 1, with the lower seq, is open.
        await untilWaiting(o.store, { done: () => committed.length > 0 })
        if (committed.length === 0) release.open()
        expect(committed).toEqual(['second'])
        await dispatcher.tick()
        await dispatcher.idle()
        const between = [...seen]
        release.open()
        // ws_1's head would be "second": it waits; another workspace does not.
        expect(between).toEqual(['elsewhere'])
      } else {
        // SQLite's one writer: unit 2 (and the dispatcher's claim) wait for unit 1, whose gate must
        // open before the event loop's next turn.
        const ticked = dispatcher.tick().then(() => dispatcher.idle())
        release.open()
        await ticked
      }
      await Promise.all([first, second])
      await dispatcher.drain()
      expect(await one.pending()).toEqual([])
      expect(await bySeq(o.store, 'ws_1')).toEqual(['first', 'second'])
      expect(seen.filter((k) => k !== 'elsewhere')).toEqual(['first', 'second'])
      // A unit begun after both committed comes after both.
      await other.unit(() => two.publish(revoked('ws_1', 'third')).then(() => {}))
      await dispatcher.drain()
      expect(seen.filter((k) => k !== 'elsewhere')).toEqual(['first', 'second', 'third'])
      expect([...seen].sort()).toEqual(['elsewhere', 'first', 'second', 'third'])
    })

    test('a unit that publishes then writes a row, and one that writes it then publishes, both commit', async () => {
      const o = await engine.open()
      opened.push(o)
      await seedTenants(o.store, { workspaces: ['ws_1'], at: 1 })
      const { other, one, two, dispatcher, seen } = await rig(o, engine.name)
      const rename = (s: Store, name: string) =>
        s.db
          .update(s.table(workspaces))
          .set({ name })
          .where(eq(s.table(workspaces).id, 'ws_1'))
      const written = gate()
      const go = gate()
      // B holds the workspace's row, then publishes once A has published and waits for that row.
      const b = other.unit(async () => {
        await rename(other, 'b')
        written.open()
        await go.opened
        await two.publish(revoked('ws_1', 'b'))
      })
      await written.opened
      const aPublished = gate()
      const a = o.store.unit(async () => {
        await one.publish(revoked('ws_1', 'a'))
        aPublished.open()
        await rename(o.store, 'a')
      })
      if (engine.name === 'postgres') {
        await aPublished.opened
        expect(await untilWaiting(o.store, { type: 'transactionid' })).toBe(1)
      }
      go.open()
      await Promise.all([a, b])
      await dispatcher.drain()
      expect(seen).toEqual(await bySeq(o.store, 'ws_1'))
      expect([...seen].sort()).toEqual(['a', 'b'])
    })
  })
}
