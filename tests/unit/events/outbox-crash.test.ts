import { afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { migrations } from '../../../migrations/index'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import { type Db, openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { Dispatcher } from '../../../src/platform/events/dispatcher'
import { Outbox } from '../../../src/platform/events/outbox'
import { OwnerLocks } from '../../../src/platform/jobs/owner-locks'
import { memoryLogger } from '../../../src/platform/log/log'

// Issue 20: a process killed with kill -9 between the commit of an event and its delivery; a new
// dispatcher on the same database delivers it, exactly once in effect to each subscriber.

const SCRIPT = resolve(import.meta.dir, '../../helpers/emit-and-die.ts')

let dir = ''
let db: Db | null = null
afterEach(() => {
  db?.$client.close()
  db = null
  rmSync(dir, { recursive: true, force: true })
})

/** Runs the helper in `mode` until it has committed its event, kills it with SIGKILL; the event id. */
async function emitAndDie(mode: 'no-dispatch' | 'block'): Promise<string> {
  const proc = Bun.spawn([process.execPath, SCRIPT, dir, mode], { stdout: 'pipe', stderr: 'inherit' })
  const reader = proc.stdout.getReader()
  let out = ''
  while (!out.includes('\n')) {
    const { value, done } = await reader.read()
    if (done) break
    out += new TextDecoder().decode(value)
  }
  proc.kill('SIGKILL')
  await proc.exited
  const m = /^ready (\S+)/.exec(out)
  if (!m) throw new Error(`helper did not get ready: ${out}`)
  return m[1]!
}

/** A fresh dispatcher on the data dir with subscribers `a` and `b` writing a row per event id. */
function restart() {
  db = openDatabase(join(dir, 'engram.db'))
  migrate(db, migrations)
  const clock = new ManualClock(new Date())
  const outbox = new Outbox(db, clock, seededRandom(3))
  const dispatcher = new Dispatcher({
    outbox,
    clock,
    log: memoryLogger(),
    owner: 'proc_new_events',
    leaseMs: 3_600_000,
    pollMs: 1000,
    owners: new OwnerLocks(join(dir, 'run')),
  })
  const record = db.$client.query('INSERT INTO seen (event_id, subscriber) VALUES (?, ?)')
  for (const name of ['a', 'b']) {
    dispatcher.subscribe({ name, types: ['key.revoked'], handle: (e) => void record.run(e.id, name) })
  }
  const seen = () =>
    db!.$client
      .query<{ event_id: string; subscriber: string; n: number }, []>(
        'SELECT event_id, subscriber, count(*) AS n FROM seen GROUP BY event_id, subscriber ORDER BY subscriber',
      )
      .all()
  return { dispatcher, outbox, seen }
}

/** The data dir with the subscribers' table; the subscriber writes one row per call. */
function setUp() {
  dir = mkdtempSync(join(tmpdir(), 'engram-outbox-crash-'))
  const first = openDatabase(join(dir, 'engram.db'))
  migrate(first, migrations)
  first.$client.exec('CREATE TABLE seen (event_id TEXT NOT NULL, subscriber TEXT NOT NULL)')
  first.$client.close()
}

describe('outbox crash', () => {
  test('an event committed by a process killed before dispatch is delivered after restart', async () => {
    setUp()
    const id = await emitAndDie('no-dispatch')
    const { dispatcher, outbox, seen } = restart()
    expect((await outbox.pending()).map((e) => e.id)).toEqual([id])
    await dispatcher.drain()
    await dispatcher.drain()
    expect(seen()).toEqual([
      { event_id: id, subscriber: 'a', n: 1 },
      { event_id: id, subscriber: 'b', n: 1 },
    ])
    expect(await outbox.pending()).toEqual([])
  })

  test('killed inside a subscriber: the lease is taken over at once and only the unreached subscriber is called', async () => {
    setUp()
    const id = await emitAndDie('block')
    const { dispatcher, outbox, seen } = restart()
    // The dead process still holds the lease for an hour; its lock tells it is gone.
    expect(await outbox.otherOwners('proc_new_events')).toHaveLength(1)
    // Subscriber a took the event before the kill, and its delivery was recorded.
    expect(seen()).toEqual([{ event_id: id, subscriber: 'a', n: 1 }])
    await dispatcher.drain()
    await dispatcher.drain()
    expect(seen()).toEqual([
      { event_id: id, subscriber: 'a', n: 1 },
      { event_id: id, subscriber: 'b', n: 1 },
    ])
    expect(await outbox.pending()).toEqual([])
  })
})
