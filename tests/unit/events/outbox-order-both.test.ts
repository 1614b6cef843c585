import { afterEach, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import { rawRows } from '../../../src/platform/db/raw'
import type { Store } from '../../../src/platform/db/store'
import { Dispatcher } from '../../../src/platform/events/dispatcher'
import type { DomainEvent } from '../../../src/platform/events/events'
import { Outbox } from '../../../src/platform/events/outbox'
import { memoryLogger } from '../../../src/platform/log/log'
import { engines, type OpenStore } from '../../helpers/stores'

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

/** Advisory locks a transaction of this database waits for (pg_locks; 0 on SQLite). */
async function waitingLocks(store: Store): Promise<number> {
  if (store.dialect !== 'postgres') return 0
  const rows = await rawRows(
    store,
    sql`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
  )
  return Number(rows[0]?.n ?? 0)
}

/** A promise and its resolve. */
function gate(): { open: () => void; opened: Promise<void> } {
  let open = () => {}
  const opened = new Promise<void>((r) => {
    open = r
  })
  return { open, opened }
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`the outbox's order on ${engine.name}`, () => {
    for (const between of [true, false]) {
      test(`units of one workspace at once: delivered once each, in commit order = seq order (dispatcher run between: ${between})`, async () => {
        const o = await engine.open()
        opened.push(o)
        const clock = new ManualClock()
        // On SQLite a process's units take turns (one store); on PostgreSQL a second pool is a second process.
        const other = engine.name === 'postgres' ? (await o.another()).store : o.store
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
        let secondDone = false
        const second = other
          .unit(() => two.publish(revoked('ws_1', 'second')).then(() => {}))
          .then(() => {
            secondDone = true
            committed.push('second')
          })
        if (engine.name === 'postgres') {
          // Unit 2 either commits (nothing orders it) or waits for unit 1 (the workspace's events held).
          for (let i = 0; i < 1000 && !secondDone && (await waitingLocks(o.store)) === 0; i++) {
            await Promise.resolve()
          }
          expect(secondDone || (await waitingLocks(o.store)) === 1).toBe(true)
          if (between) {
            await dispatcher.tick()
            await dispatcher.idle()
          }
          release.open()
        } else {
          // SQLite's one writer: unit 2 (and the dispatcher's claim) wait for unit 1, whose gate must
          // open before the event loop's next turn.
          const ticked = between ? dispatcher.tick().then(() => dispatcher.idle()) : Promise.resolve()
          release.open()
          await ticked
        }
        await Promise.all([first, second])
        await dispatcher.drain()
        const pending = await one.pending()
        expect(pending).toEqual([])
        const bySeq = (
          await rawRows(
            o.store,
            sql`SELECT payload FROM domain_events WHERE workspace_id = 'ws_1' ORDER BY seq`,
          )
        ).map((r) => JSON.parse(String(r.payload)).keyId)
        expect({ seen, committed }).toEqual({ seen: bySeq, committed: bySeq })
        expect(bySeq).toEqual(['first', 'second'])
      })
    }
  })
}
