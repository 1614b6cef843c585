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
import type { DomainEvent } from '../../../src/platform/events/events'
import { Outbox } from '../../../src/platform/events/outbox'
import { RUN_EVENTS } from '../../../src/platform/events/outbox.repo'
import { memoryLogger } from '../../../src/platform/log/log'

// The outbox and its dispatcher on a real SQLite database, stepped by hand with a manual clock.

const SYSTEM = { type: 'system', id: null } as const

let dir = ''
let db: Db
let clock: ManualClock
let outbox: Outbox
let dispatcher: Dispatcher

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'engram-events-'))
  db = openDatabase(join(dir, 'engram.db'))
  migrate(db, migrations)
  clock = new ManualClock()
  outbox = new Outbox(db, clock, seededRandom(7))
  dispatcher = new Dispatcher({
    outbox,
    clock,
    log: memoryLogger(),
    owner: 'proc_1_ev',
    leaseMs: 60_000,
    pollMs: 1000,
  })
})
afterEach(() => {
  db.$client.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Publishes a `key.revoked` for `keyId` in workspace `ws` in its own committed unit. */
function emit(ws: string, keyId: string): Promise<string> {
  return sqliteStore(db).unit(() =>
    outbox.publish({
      type: 'key.revoked',
      workspaceId: ws,
      payload: { keyId, name: 'k', prefix: 'ek_x', actor: SYSTEM },
    }),
  )
}

/** A subscriber that records what it saw, as `workspace:key`. */
function recorder(name: string) {
  const seen: string[] = []
  dispatcher.subscribe({
    name,
    types: ['key.revoked'],
    handle: (e) => {
      seen.push(`${e.workspaceId}:${e.payload.keyId}`)
    },
  })
  return seen
}

type Revoked = DomainEvent<'key.revoked'>

/**
 * A subscriber `flaky` that throws for the first `failures` events `failsOn` picks (every one by
 * default) and records the others it takes, as `label` names them (their key by default).
 */
function flakyRecorder(
  failures: number,
  failsOn: (e: Revoked) => boolean = () => true,
  label: (e: Revoked) => string = (e) => e.payload.keyId,
) {
  const seen: string[] = []
  dispatcher.subscribe({
    name: 'flaky',
    types: ['key.revoked'],
    handle: (e) => {
      if (failsOn(e) && failures-- > 0) throw new Error('peer down')
      seen.push(label(e))
    },
  })
  return seen
}

describe('domain events', () => {
  test('publish refuses to write outside a unit of work', async () => {
    await expect(
      outbox.publish({
        type: 'key.revoked',
        workspaceId: 'ws_a',
        payload: { keyId: 'k', name: 'k', prefix: 'ek_x', actor: SYSTEM },
      }),
    ).rejects.toThrow(/outside a unit of work/)
    expect(await outbox.pending()).toEqual([])
  })

  test('an event published in a rolled-back unit is never delivered', async () => {
    const seen = recorder('a')
    await expect(
      sqliteStore(db).unit(async () => {
        await outbox.publish({
          type: 'key.revoked',
          workspaceId: 'ws_a',
          payload: { keyId: 'k1', name: 'k', prefix: 'ek_x', actor: SYSTEM },
        })
        throw new Error('the change failed')
      }),
    ).rejects.toThrow('the change failed')
    await dispatcher.drain()
    expect(seen).toEqual([])
    expect(await outbox.pending()).toEqual([])
  })

  test('a committed event is delivered once to each subscriber of its type, with its id', async () => {
    const ids: string[] = []
    const a = recorder('a')
    const b = recorder('b')
    const other: DomainEvent[] = []
    dispatcher.subscribe({ name: 'docs', types: ['document.created'], handle: (e) => void other.push(e) })
    dispatcher.subscribe({ name: 'ids', types: ['key.revoked'], handle: (e) => void ids.push(e.id) })
    const id = await emit('ws_a', 'k1')
    await dispatcher.drain()
    await dispatcher.drain()
    expect(a).toEqual(['ws_a:k1'])
    expect(b).toEqual(['ws_a:k1'])
    expect(other).toEqual([])
    expect(ids).toEqual([id])
    expect(await outbox.pending()).toEqual([])
  })

  test("a workspace's events arrive in order while another workspace proceeds", async () => {
    const seen: string[] = []
    const gates = new Map<string, () => void>()
    dispatcher.subscribe({
      name: 'slow',
      types: ['key.revoked'],
      handle: (e) => {
        seen.push(`${e.workspaceId}:${e.payload.keyId}`)
        // Workspace A's first event hangs until released; B's go straight through.
        if (e.payload.keyId === 'a1') return new Promise<void>((r) => gates.set('a1', r))
      },
    })
    await emit('ws_a', 'a1')
    await emit('ws_a', 'a2')
    await emit('ws_b', 'b1')
    await emit('ws_b', 'b2')
    await dispatcher.tick()
    await Promise.resolve()
    // B's head was delivered while A's is in flight; A's second waits.
    for (let i = 0; i < 3 && !seen.includes('ws_b:b2'); i++) {
      await dispatcher.tick()
      await new Promise((r) => setImmediate(r))
    }
    expect(seen).toEqual(['ws_a:a1', 'ws_b:b1', 'ws_b:b2'])
    gates.get('a1')!()
    await dispatcher.drain()
    expect(seen).toEqual(['ws_a:a1', 'ws_b:b1', 'ws_b:b2', 'ws_a:a2'])
  })

  test('a failing subscriber is retried with backoff, is not repeated for others, and holds only its workspace', async () => {
    const good = recorder('good')
    const flaky = flakyRecorder(
      2,
      (e) => e.workspaceId === 'ws_a',
      (e) => `${e.workspaceId}:${e.payload.keyId}`,
    )
    await emit('ws_a', 'a1')
    await emit('ws_a', 'a2')
    await emit('ws_b', 'b1')
    await dispatcher.drain()
    // A's head failed once and waits for its backoff; B went through.
    expect(flaky).toEqual(['ws_b:b1'])
    expect(good).toEqual(['ws_a:a1', 'ws_b:b1'])
    clock.advance(999)
    await dispatcher.drain()
    expect(flaky).toEqual(['ws_b:b1'])
    clock.advance(1) // first retry after 1 s
    await dispatcher.drain()
    expect(flaky).toEqual(['ws_b:b1'])
    clock.advance(2000) // second after 2 s more
    await dispatcher.drain()
    expect(flaky).toEqual(['ws_b:b1', 'ws_a:a1', 'ws_a:a2'])
    // The subscriber that succeeded the first time was not called again for a1.
    expect(good).toEqual(['ws_a:a1', 'ws_b:b1', 'ws_a:a2'])
    expect(await outbox.pending()).toEqual([])
  })

  test("a failure part way through a workspace's run: those before are not repeated, the rest wait for the one that failed", async () => {
    const good = recorder('good')
    const flaky = flakyRecorder(1, (e) => e.payload.keyId === 'a3')
    for (const k of ['a1', 'a2', 'a3', 'a4', 'a5']) await emit('ws_a', k)
    await dispatcher.drain()
    expect(flaky).toEqual(['a1', 'a2'])
    expect(good).toEqual(['ws_a:a1', 'ws_a:a2', 'ws_a:a3'])
    expect((await outbox.pending()).map((e) => (e.payload as { keyId: string }).keyId)).toEqual([
      'a3',
      'a4',
      'a5',
    ])
    clock.advance(1000)
    await dispatcher.drain()
    expect(flaky).toEqual(['a1', 'a2', 'a3', 'a4', 'a5'])
    expect(good).toEqual(['ws_a', 'ws_a', 'ws_a', 'ws_a', 'ws_a'].map((w, i) => `${w}:a${i + 1}`))
    expect(await outbox.pending()).toEqual([])
  })

  test("an event's last subscriber is recorded with the retry when one before it failed, and not at all once the event is delivered", async () => {
    const flaky = flakyRecorder(1)
    const last = recorder('last')
    const a1 = await emit('ws_a', 'a1')
    const a2 = await emit('ws_a', 'a2')
    const records = () =>
      db.$client
        .query<{ event_id: string; subscriber: string }, []>(
          'SELECT event_id, subscriber FROM event_deliveries ORDER BY subscriber',
        )
        .all()
    await dispatcher.drain()
    expect(flaky).toEqual([])
    expect(last).toEqual(['ws_a:a1'])
    expect(records()).toEqual([{ event_id: a1, subscriber: 'last' }])
    clock.advance(1000)
    await dispatcher.drain()
    // The retry calls only the subscriber that failed.
    expect(flaky).toEqual(['a1', 'a2'])
    expect(last).toEqual(['ws_a:a1', 'ws_a:a2'])
    // a2's first subscriber is recorded as it takes it (another follows); its last is not: a2 is delivered.
    expect(records()).toEqual([
      { event_id: a2, subscriber: 'flaky' },
      { event_id: a1, subscriber: 'last' },
    ])
    expect(await outbox.pending()).toEqual([])
  })

  test("a workspace's events are claimed in runs of RUN_EVENTS, delivered in order", async () => {
    const seen = recorder('a')
    const claims: number[] = []
    const claimRuns = outbox.claimRuns.bind(outbox)
    outbox.claimRuns = async (...args) => {
      const runs = await claimRuns(...args)
      if (runs.length > 0) claims.push(runs[0]!.length)
      return runs
    }
    const keys = Array.from({ length: RUN_EVENTS * 2 + 5 }, (_, i) => `k${i}`)
    for (const k of keys) await emit('ws_a', k)
    await dispatcher.drain()
    expect(seen).toEqual(keys.map((k) => `ws_a:${k}`))
    expect(claims).toEqual([RUN_EVENTS, RUN_EVENTS, 5])
  })

  test('delivered events are pruned after their keep time', async () => {
    recorder('a')
    await emit('ws_a', 'k1')
    await dispatcher.drain()
    const count = () =>
      db.$client.query<{ n: number }, []>('SELECT count(*) AS n FROM domain_events').get()!.n
    expect(count()).toBe(1)
    clock.advance(8 * 86_400_000)
    await dispatcher.tick()
    expect(count()).toBe(0)
  })

  test('a transactional subscriber commits its work with its delivery record, or neither', async () => {
    // A counter kept in the same database: each event adds one, in the delivery's transaction.
    db.$client.exec('CREATE TABLE tally (ws TEXT PRIMARY KEY, n INTEGER NOT NULL)')
    const add = db.$client.query(
      'INSERT INTO tally (ws, n) VALUES (?, 1) ON CONFLICT (ws) DO UPDATE SET n = n + 1',
    )
    let failNext = true
    dispatcher.subscribe({
      name: 'tally',
      types: ['key.revoked'],
      transactional: true,
      handle: (e) => {
        add.run(e.workspaceId)
        // Fails after writing: the write must roll back with the missing delivery record.
        if (failNext) {
          failNext = false
          throw new Error('after the write')
        }
      },
    })
    const tally = () =>
      db.$client.query<{ n: number }, []>("SELECT n FROM tally WHERE ws = 'ws_a'").get()?.n ?? 0
    await emit('ws_a', 'k1')
    await emit('ws_a', 'k2')
    await dispatcher.drain()
    expect(tally()).toBe(0)
    clock.advance(1000)
    await dispatcher.drain()
    expect(tally()).toBe(2)
    expect(await outbox.pending()).toEqual([])
  })

  test('a subscriber that takes no part in an event is not handed it, in no unit and with no record; asked again on a retry', async () => {
    const asked: string[] = []
    const handled: string[] = []
    dispatcher.subscribe({
      name: 'picky',
      types: ['key.revoked'],
      transactional: true,
      takes: (e) => {
        asked.push(e.payload.keyId)
        return e.payload.keyId !== 'k1'
      },
      handle: (e) => {
        handled.push(e.payload.keyId)
      },
    })
    // Fails once on k1 after picky passed on it: k1 is delivered again.
    const flaky = flakyRecorder(1, (e) => e.payload.keyId === 'k1')
    const k1 = await emit('ws_a', 'k1')
    const k2 = await emit('ws_a', 'k2')
    await dispatcher.drain()
    expect(handled).toEqual([])
    expect(asked).toEqual(['k1'])
    clock.advance(1000)
    await dispatcher.drain()
    expect(asked).toEqual(['k1', 'k1', 'k2'])
    expect(handled).toEqual(['k2'])
    expect(flaky).toEqual(['k1', 'k2'])
    const records = db.$client
      .query<{ event_id: string }, [string]>('SELECT event_id FROM event_deliveries WHERE subscriber = ?')
      .all('picky')
    expect(records.map((r) => r.event_id)).toEqual([k2])
    expect(records.map((r) => r.event_id)).not.toContain(k1)
    expect(await outbox.pending()).toEqual([])
  })

  test('an event that no subscriber takes as it is published is written delivered; one that any takes, or that one without takes gets, waits', async () => {
    const handled: string[] = []
    dispatcher.subscribe({
      name: 'picky',
      types: ['key.revoked'],
      takes: (e) => e.payload.keyId !== 'k1',
      handle: (e) => {
        handled.push(e.payload.keyId)
      },
    })
    const k1 = await emit('ws_a', 'k1')
    const k2 = await emit('ws_a', 'k2')
    const written = () =>
      db.$client
        .query<{ id: string; delivered_at: number | null }, []>(
          'SELECT id, delivered_at FROM domain_events ORDER BY seq',
        )
        .all()
    expect(written().map((r) => [r.id, r.delivered_at !== null])).toEqual([
      [k1, true],
      [k2, false],
    ])
    await dispatcher.drain()
    expect(handled).toEqual(['k2'])
    // A second subscriber of the type without `takes`: every event waits for the dispatcher again.
    recorder('all')
    const k3 = await emit('ws_a', 'k1')
    expect(written().find((r) => r.id === k3)!.delivered_at).toBeNull()
    await dispatcher.drain()
    expect(handled).toEqual(['k2'])
    expect(await outbox.pending()).toEqual([])
  })

  test('a transactional subscriber may await the database, but one that awaits anything else is rolled back and its event waits', async () => {
    db.$client.exec('CREATE TABLE tally (ws TEXT PRIMARY KEY, n INTEGER NOT NULL)')
    const add = db.$client.query(
      'INSERT INTO tally (ws, n) VALUES (?, 1) ON CONFLICT (ws) DO UPDATE SET n = n + 1',
    )
    let waitOnATimer = true
    dispatcher.subscribe({
      name: 'async',
      types: ['key.revoked'],
      transactional: true,
      handle: async (e) => {
        add.run(e.workspaceId)
        await outbox.pending()
        if (waitOnATimer) await new Promise((r) => setTimeout(r, 0))
      },
    })
    const tally = () => db.$client.query<{ n: number }, []>('SELECT n FROM tally').get()?.n ?? 0
    await emit('ws_a', 'k1')
    await dispatcher.drain()
    expect(tally()).toBe(0)
    expect(await outbox.pending()).toHaveLength(1)
    const row = db.$client.query<{ e: string }, []>('SELECT last_error AS e FROM domain_events').get()!
    expect(row.e).toMatch(/awaited something other than the database/)
    waitOnATimer = false
    clock.advance(1000)
    await dispatcher.drain()
    expect(tally()).toBe(1)
    expect(await outbox.pending()).toEqual([])
  })
})
