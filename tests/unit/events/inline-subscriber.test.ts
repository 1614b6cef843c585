import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrations } from '../../../migrations/index'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import { type Db, openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { sqliteStore } from '../../../src/platform/db/store'
import { Dispatcher } from '../../../src/platform/events/dispatcher'
import { Outbox } from '../../../src/platform/events/outbox'
import { memoryLogger } from '../../../src/platform/log/log'

// Inline subscribers: applied in the publisher's unit, on a real SQLite database.

const SYSTEM = { type: 'system', id: null } as const

let dir = ''
let db: Db
let outbox: Outbox
let dispatcher: Dispatcher
let calls: string[]

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'engram-inline-'))
  db = openDatabase(join(dir, 'engram.db'))
  migrate(db, migrations)
  const clock = new ManualClock()
  outbox = new Outbox(db, clock, seededRandom(7))
  dispatcher = new Dispatcher({
    outbox,
    clock,
    log: memoryLogger(),
    owner: 'proc_1_ev',
    leaseMs: 60_000,
    pollMs: 1000,
  })
  db.$client.exec('CREATE TABLE tally (ws TEXT PRIMARY KEY, n INTEGER NOT NULL)')
  calls = []
  const add = db.$client.query(
    'INSERT INTO tally (ws, n) VALUES (?, 1) ON CONFLICT (ws) DO UPDATE SET n = n + 1',
  )
  dispatcher.subscribe({
    name: 'tally',
    types: ['key.revoked'],
    transactional: true,
    inline: true,
    handle: (e) => {
      calls.push(e.payload.keyId)
      add.run(e.workspaceId)
    },
  })
})
afterEach(() => {
  db.$client.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Publishes a `key.revoked` in a unit that commits, or throws after the publish when `fail`. */
function emit(ws: string, keyId: string, fail = false): Promise<void> {
  return sqliteStore(db).unit(async () => {
    await outbox.publish({
      type: 'key.revoked',
      workspaceId: ws,
      payload: { keyId, name: 'k', prefix: 'ek_x', actor: SYSTEM },
    })
    if (fail) throw new Error('the change fails after its event')
  })
}
const tally = (ws = 'ws_a') =>
  db.$client.query<{ n: number }, [string]>('SELECT n FROM tally WHERE ws = ?').get(ws)?.n ?? 0
const rows = (sql: string) => db.$client.query<{ n: number }, []>(sql).get()!.n

describe('inline subscribers', () => {
  test('the work commits with the event, which is written delivered: the dispatcher has nothing to do', async () => {
    await emit('ws_a', 'k1')
    await emit('ws_a', 'k2')
    expect(tally()).toBe(2)
    expect(await outbox.pending()).toEqual([])
    expect(rows('SELECT count(*) AS n FROM domain_events WHERE delivered_at IS NOT NULL')).toBe(2)
    expect(rows('SELECT count(*) AS n FROM event_deliveries')).toBe(0)
    expect(await dispatcher.tick()).toBe(0)
    await dispatcher.drain()
    expect(calls).toEqual(['k1', 'k2'])
  })

  test('an event no subscriber takes is left for the dispatcher, as before', async () => {
    const created = { keyId: 'k', name: 'k', prefix: 'ek_x', scopes: [], actor: SYSTEM }
    await sqliteStore(db).unit(() =>
      outbox.publish({ type: 'key.created', workspaceId: 'ws_a', payload: created } as never),
    )
    expect(await outbox.pending()).toHaveLength(1)
  })

  test('a change that rolls back takes its event and the work with it', async () => {
    await expect(emit('ws_a', 'k1', true)).rejects.toThrow('the change fails after its event')
    expect(tally()).toBe(0)
    expect(rows('SELECT count(*) AS n FROM domain_events')).toBe(0)
  })

  test('a failing inline subscriber fails the change: nothing is written', async () => {
    dispatcher.subscribe({
      name: 'broken',
      types: ['key.revoked'],
      transactional: true,
      inline: true,
      handle: () => {
        throw new Error('broken counter')
      },
    })
    await expect(emit('ws_a', 'k1')).rejects.toThrow('broken counter')
    expect(tally()).toBe(0)
    expect(rows('SELECT count(*) AS n FROM domain_events')).toBe(0)
  })

  test('beside another subscriber: applied once at emit, recorded, and the other takes it from the dispatcher', async () => {
    const later: string[] = []
    dispatcher.subscribe({
      name: 'later',
      types: ['key.revoked'],
      handle: (e) => void later.push(e.payload.keyId),
    })
    await emit('ws_a', 'k1')
    expect(tally()).toBe(1)
    expect(await outbox.pending()).toHaveLength(1)
    expect(rows("SELECT count(*) AS n FROM event_deliveries WHERE subscriber = 'tally'")).toBe(1)
    await dispatcher.drain()
    expect(later).toEqual(['k1'])
    expect(calls).toEqual(['k1'])
    expect(tally()).toBe(1)
    expect(await outbox.pending()).toEqual([])
  })
})
