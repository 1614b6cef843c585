import { afterEach, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { openDatabase } from '../../../src/platform/db/db'
import { SqliteStore, UnitYieldedError } from '../../../src/platform/db/store'
import { tempDatabases } from '../../helpers/temp-databases'

const notes = sqliteTable('notes', { id: text('id').primaryKey(), n: integer('n').notNull() })

const temp = tempDatabases('engram-units-')
const stores: SqliteStore[] = []
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close()
})

/** A store over a WAL database file, as the app opens it (`memory`: over an in-memory one). */
function store(memory = false): SqliteStore {
  const db = memory ? openDatabase(':memory:') : temp.wal().db
  db.$client.exec('CREATE TABLE notes (id TEXT PRIMARY KEY, n INTEGER NOT NULL)')
  const s = new SqliteStore(db)
  stores.push(s)
  return s
}

async function ids(s: SqliteStore): Promise<string[]> {
  return (await s.db.select({ id: notes.id }).from(notes).orderBy(notes.id)).map((r) => r.id)
}

describe('SQLite units of work', () => {
  test('a unit writes together, and a failure writes nothing', async () => {
    const s = store()
    await s.unit(async () => {
      await s.db.insert(notes).values({ id: 'a', n: 1 })
      await s.db.insert(notes).values({ id: 'b', n: 2 })
    })
    await expect(
      s.unit(async () => {
        await s.db.insert(notes).values({ id: 'c', n: 3 })
        throw new Error('refused')
      }),
    ).rejects.toThrow('refused')
    expect(await ids(s)).toEqual(['a', 'b'])
    expect(s.db.$client.inTransaction).toBe(false)
  })

  test('a nested unit is a savepoint: its failure undoes its writes only', async () => {
    const s = store()
    const seen: boolean[] = []
    await s.unit(async () => {
      await s.db.insert(notes).values({ id: 'outer', n: 1 })
      await s
        .unit(async () => {
          seen.push(s.inUnit())
          await s.db.insert(notes).values({ id: 'inner', n: 2 })
          throw new Error('inner refused')
        })
        .catch(() => {})
      await s.unit(async () => {
        await s.db.insert(notes).values({ id: 'kept', n: 3 })
      })
    })
    expect(seen).toEqual([true])
    expect(await ids(s)).toEqual(['kept', 'outer'])
  })

  test('nested units one after another, and inside each other, each undo only their own writes', async () => {
    const s = store()
    await s.unit(async () => {
      for (let i = 0; i < 60; i++) {
        // Each takes the savepoint the one before gave back; every seventh fails, and every fifth
        // nests one more inside it (a second name while the first is open), whose failure is its own.
        await s
          .unit(async () => {
            await s.db.insert(notes).values({ id: `n${i}`, n: i })
            if (i % 5 === 0)
              await s
                .unit(async () => {
                  await s.db.insert(notes).values({ id: `deep${i}`, n: i })
                  if (i % 10 === 0) throw new Error('deep refused')
                })
                .catch(() => {})
            if (i % 7 === 0) throw new Error('refused')
          })
          .catch(() => {})
      }
    })
    const expected = Array.from({ length: 60 }, (_, i) => i)
      .filter((i) => i % 7 !== 0)
      .flatMap((i) => (i % 5 === 0 && i % 10 !== 0 ? [`n${i}`, `deep${i}`] : [`n${i}`]))
    expect(await ids(s)).toEqual(expected.sort())
    expect(s.db.$client.inTransaction).toBe(false)
  })

  test('a unit that awaits anything but the database is rolled back', async () => {
    const s = store()
    const timer = () => new Promise((resolve) => setTimeout(resolve, 0))
    await expect(
      s.unit(async () => {
        await s.db.insert(notes).values({ id: 'a', n: 1 })
        await timer()
        await s.db.insert(notes).values({ id: 'b', n: 2 })
      }),
    ).rejects.toBeInstanceOf(UnitYieldedError)
    expect(await ids(s)).toEqual([])
    // The connection is usable again at once.
    await s.unit(async () => {
      await s.db.insert(notes).values({ id: 'c', n: 3 })
    })
    expect(await ids(s)).toEqual(['c'])
  })

  test("one check at the next turn serves a turn's units: one that yields after another's commit is still rolled back", async () => {
    const s = store()
    const timer = () => new Promise((resolve) => setTimeout(resolve, 0))
    // The first unit schedules the check; the second begins in the same turn, before it runs.
    await s.unit(async () => {
      await s.db.insert(notes).values({ id: 'a', n: 1 })
    })
    await expect(
      s.unit(async () => {
        await s.db.insert(notes).values({ id: 'b', n: 2 })
        await timer()
      }),
    ).rejects.toBeInstanceOf(UnitYieldedError)
    // Units that await only the database commit, in this turn and the next ones.
    for (const id of ['c', 'd']) {
      await s.unit(async () => {
        await s.db.insert(notes).values({ id, n: 3 })
      })
      await new Promise((resolve) => setImmediate(resolve))
    }
    await expect(
      s.unit(async () => {
        await timer()
        await s.db.insert(notes).values({ id: 'e', n: 4 })
      }),
    ).rejects.toBeInstanceOf(UnitYieldedError)
    expect(await ids(s)).toEqual(['a', 'c', 'd'])
  })

  test('a unit begun by a callback that runs before the turn check, in the same turn, is not refused', async () => {
    const s = store()
    // Queued before the check: it runs first at the next turn and begins a unit of many queries.
    const early = new Promise<unknown>((resolve) =>
      setImmediate(() => {
        s.unit(async () => {
          for (let i = 0; i < 50; i++) await s.db.insert(notes).values({ id: `e${i}`, n: i })
        }).then(resolve, resolve)
      }),
    )
    // This unit schedules the check, after the callback above.
    await s.unit(async () => {
      await s.db.insert(notes).values({ id: 'a', n: 1 })
    })
    expect(await early).toBeUndefined()
    expect(await ids(s)).toHaveLength(51)
  })

  test("other requests' code never runs inside a unit, however many queries it awaits", async () => {
    const s = store()
    const observed: number[] = []
    // Queued before the unit starts: it runs at the event loop's next turn.
    setImmediate(() => {
      observed.push(s.db.$client.query<{ k: number }, []>('SELECT count(*) AS k FROM notes').get()!.k)
    })
    await s.unit(async () => {
      for (let i = 0; i < 200; i++) await s.db.insert(notes).values({ id: `n${i}`, n: i })
      await s.db.update(notes).set({ n: sql`${notes.n} + 1` })
    })
    await new Promise((resolve) => setImmediate(resolve))
    expect(observed).toEqual([200])
  })

  test("synchronous writes of another flow wait in exclusive for a unit to end, and a unit's rollback cannot take them", async () => {
    const s = store()
    // The writing connection, as synchronous code holds it (store.db is the read-only one outside a unit).
    const writer = await s.unit(async () => s.db.$client)
    const log: string[] = []
    let release!: () => void
    const opened = new Promise<void>((resolve) => {
      release = resolve
    })
    const unit = s
      .unit(async () => {
        await s.db.insert(notes).values({ id: 'unit', n: 1 })
        release()
        // Another flow's microtasks run between these awaits; its write must not land in here.
        for (let i = 0; i < 5; i++) await s.db.select().from(notes)
        log.push('unit ends')
        throw new Error('rolled back')
      })
      .catch(() => {})
    await opened
    const other = s.exclusive(() => {
      log.push(`exclusive inside a transaction: ${writer.inTransaction}`)
      writer.query("INSERT INTO notes (id, n) VALUES ('engine', 2)").run()
    })
    await Promise.all([unit, other])
    expect(log).toEqual(['unit ends', 'exclusive inside a transaction: false'])
    expect(await ids(s)).toEqual(['engine'])
    // Inside a unit of its own flow it runs at once, in that unit.
    await s.unit(async () => {
      await s.exclusive(() => writer.query("INSERT INTO notes (id, n) VALUES ('inner', 3)").run())
    })
    expect(await ids(s)).toEqual(['engine', 'inner'])
  })

  test('after-commit work runs once the outermost unit commits, never after a rollback', async () => {
    const s = store()
    const ran: string[] = []
    s.afterCommit(() => ran.push('outside'))
    await s.unit(async () => {
      s.afterCommit(() => ran.push('outer'))
      await s.unit(async () => {
        s.afterCommit(() => ran.push('inner'))
      })
      await s
        .unit(async () => {
          s.afterCommit(() => ran.push('inner, rolled back'))
          throw new Error('no')
        })
        .catch(() => {})
      expect(ran).toEqual(['outside'])
    })
    await s
      .unit(async () => {
        s.afterCommit(() => ran.push('rolled back'))
        throw new Error('no')
      })
      .catch(() => {})
    expect(ran).toEqual(['outside', 'outer', 'inner'])
    expect(s.inUnit()).toBe(false)
  })

  test('a unit cannot begin inside a synchronous transaction on the same connection', async () => {
    const s = store(true)
    let started: Promise<void> | null = null
    s.db.$client.transaction(() => {
      started = s.unit(async () => {
        await s.db.insert(notes).values({ id: 'a', n: 1 })
      })
    })()
    await expect(started!).rejects.toThrow('another transaction was open')
    expect(await ids(s)).toEqual([])
  })

  test("units of flows running at once take turns, and reads outside them never see a unit's writes in progress", async () => {
    const s = store()
    const seen: number[] = []
    const count = async () => (await s.db.select({ id: notes.id }).from(notes)).length
    const flow = (name: string) =>
      s.unit(async () => {
        for (let i = 0; i < 5; i++) {
          await s.db.insert(notes).values({ id: `${name}${i}`, n: i })
        }
      })
    // Another flow reading all along: its continuations run between the units' awaits.
    const reads = (async () => {
      for (let i = 0; i < 20; i++) seen.push(await count())
    })()
    await Promise.all([flow('a'), flow('b'), reads])
    expect(await count()).toBe(10)
    // Reads outside the units saw 0, 5 or 10 rows: never a unit half written.
    expect(seen.every((n) => n === 0 || n === 5 || n === 10)).toBe(true)
    expect(seen).toContain(0)
  })

  test('a write outside a unit fails at once, and writes nothing', async () => {
    const s = store()
    await expect(Promise.resolve().then(() => s.db.insert(notes).values({ id: 'a', n: 1 }))).rejects.toThrow(
      /readonly/,
    )
    expect(await ids(s)).toEqual([])
  })
})
