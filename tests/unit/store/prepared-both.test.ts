import { afterEach, describe, expect, test } from 'bun:test'
import { and, eq, sql } from 'drizzle-orm'
import { LegalRepo } from '../../../src/features/legal/legal.repo'
import { legalAcceptances } from '../../../src/features/legal/legal.tables'
import type { Db } from '../../../src/platform/db/db'
import { isUniqueViolation } from '../../../src/platform/db/failures'
import { inList, Prepared, RowsInsert } from '../../../src/platform/db/prepared'
import type { Store } from '../../../src/platform/db/store'
import { engines, type OpenStore, seedTenants } from '../../helpers/stores'

// A prepared query on the store, on SQLite and a real PostgreSQL: the rows a built query gives, on
// the handle of the moment (a unit's own writes inside it, only committed rows outside).

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123

function acceptance(id: string, version: string) {
  return {
    id,
    workspaceId: 'ws_1',
    document: 'terms',
    version,
    title: 'Terms',
    sha256: 'cd'.repeat(32),
    actorType: 'user',
    actorId: 'usr_1',
    address: '127.0.0.1',
    acceptedAt: T0,
  }
}

/** The query of an acceptance by workspace and version, built on a handle. */
function versionQuery(store: Store) {
  return (db: Db) => {
    const t = store.table(legalAcceptances)
    return db
      .select()
      .from(t)
      .where(and(eq(t.workspaceId, sql.placeholder('ws')), eq(t.version, sql.placeholder('version'))))
      .limit(1)
      .prepare()
  }
}

function byVersion(store: Store) {
  return new Prepared(store, versionQuery(store))
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`prepared queries on ${engine.name}`, () => {
    test('give what the built query gives, and read a unit’s own writes only inside it', async () => {
      const o = await engine.open()
      opened.push(o)
      const { store } = o
      await seedTenants(store, { workspaces: ['ws_1'], at: T0 })
      const repo = new LegalRepo(store)
      await store.unit(() => repo.insert(acceptance('lga_1', '1')))
      const find = byVersion(store)
      const one = await find.execute({ ws: 'ws_1', version: '1' })
      expect(one).toEqual([acceptance('lga_1', '1')])
      expect(one[0]).toEqual((await repo.find('ws_1', 'terms', '1'))!)
      expect(await find.execute({ ws: 'ws_1', version: '2' })).toEqual([])
      await expect(
        store.unit(async () => {
          await repo.insert(acceptance('lga_2', '2'))
          expect(await find.execute({ ws: 'ws_1', version: '2' })).toEqual([acceptance('lga_2', '2')])
          throw new Error('rolled back')
        }),
      ).rejects.toThrow('rolled back')
      expect(await find.execute({ ws: 'ws_1', version: '2' })).toEqual([])
      for (let i = 0; i < 3; i++) expect(await find.execute({ ws: 'ws_1', version: '1' })).toHaveLength(1)
    })

    test('is built once (once a connection on SQLite) whatever the units it runs in, and reads each unit’s and savepoint’s own writes', async () => {
      const o = await engine.open()
      opened.push(o)
      const { store } = o
      await seedTenants(store, { workspaces: ['ws_1'], at: T0 })
      const repo = new LegalRepo(store)
      let builds = 0
      const build = versionQuery(store)
      const find = new Prepared(store, (db) => {
        builds++
        return build(db)
      })
      for (let i = 1; i <= 5; i++) {
        await store.unit(async () => {
          await repo.insert(acceptance(`lga_${i}`, String(i)))
          expect(await find.execute({ ws: 'ws_1', version: String(i) })).toEqual([
            acceptance(`lga_${i}`, String(i)),
          ])
          // A savepoint's write is read inside it, and gone once it is rolled back.
          await store
            .unit(async () => {
              await repo.insert(acceptance(`lga_${i}b`, `${i}b`))
              expect(await find.execute({ ws: 'ws_1', version: `${i}b` })).toHaveLength(1)
              throw new Error('rolled back')
            })
            .catch(() => {})
          expect(await find.execute({ ws: 'ws_1', version: `${i}b` })).toEqual([])
        })
        expect(await find.execute({ ws: 'ws_1', version: String(i) })).toHaveLength(1)
      }
      // SQLite: the unit's writing connection and the read-only one; PostgreSQL: the first handle only.
      expect(builds).toBe(engine.name === 'postgres' ? 1 : 2)
    })

    test('a prepared write that breaks a unique rule rejects (never throws at the call) with the engine’s error', async () => {
      const o = await engine.open()
      opened.push(o)
      const { store } = o
      await seedTenants(store, { workspaces: ['ws_1'], at: T0 })
      const insert = new Prepared(store, (db) =>
        db
          .insert(store.table(legalAcceptances))
          .values({ ...acceptance('lga_1', '1'), id: sql.placeholder('id') as never })
          .prepare(),
      )
      await store.unit(() => insert.execute({ id: 'lga_1' }))
      let pending: Promise<unknown> | null = null
      const refused = await store
        .unit(async () => {
          pending = insert.execute({ id: 'lga_1' })
          await pending
        })
        .catch((e: unknown) => e)
      expect(pending).toBeInstanceOf(Promise)
      expect(isUniqueViolation(refused)).toBe(true)
      expect(await byVersion(store).execute({ ws: 'ws_1', version: '1' })).toHaveLength(1)
    })

    test('a list placeholder reads the rows of any number of ids through one statement', async () => {
      const o = await engine.open()
      opened.push(o)
      const { store } = o
      await seedTenants(store, { workspaces: ['ws_1'], at: T0 })
      const repo = new LegalRepo(store)
      await store.unit(async () => {
        for (let i = 0; i < 5; i++) await repo.insert(acceptance(`lga_${i}`, String(i)))
      })
      let builds = 0
      const byIds = new Prepared(store, (db) => {
        builds++
        const t = store.table(legalAcceptances)
        return db
          .select({ id: t.id })
          .from(t)
          .where(inList(store, t.id, 'ids'))
          .prepare()
      })
      const read = async (ids: string[]) =>
        (await byIds.execute({ ids: JSON.stringify(ids) })).map((r) => r.id).sort()
      expect(await read([])).toEqual([])
      expect(await read(['lga_3'])).toEqual(['lga_3'])
      expect(await read(['lga_4', 'lga_0', 'lga_9', 'lga_0'])).toEqual(['lga_0', 'lga_4'])
      expect(await read(Array.from({ length: 5000 }, (_, i) => `lga_${i}`))).toEqual([
        'lga_0',
        'lga_1',
        'lga_2',
        'lga_3',
        'lga_4',
      ])
      // Quotes and backslashes are the list's, never the statement's.
      expect(await read([`lga_1' OR '1'='1`, 'lga_"2\\'])).toEqual([])
      expect(builds).toBe(1)
    })

    test('a multi-row insert writes every row of any count, and prepares at most one statement a power of two up to its most', async () => {
      const o = await engine.open()
      opened.push(o)
      const { store } = o
      await seedTenants(store, { workspaces: ['ws_1'], at: T0 })
      const counts: number[] = []
      const inserts = new RowsInsert(
        store,
        8,
        { id: (r: { id: string; version: string }) => r.id, version: (r) => r.version },
        (p) => ({ ...acceptance('', ''), ...p }),
        (db, rows) => {
          counts.push(rows.length)
          return db.insert(store.table(legalAcceptances)).values(rows).prepare()
        },
      )
      let n = 0
      for (const size of [0, 1, 8, 13, 3, 21, 7, 16]) {
        const rows = Array.from({ length: size }, (_, i) => ({ id: `lga_${n + i}`, version: String(n + i) }))
        n += size
        await store.unit(() => inserts.run(rows))
      }
      const find = byVersion(store)
      for (let i = 0; i < n; i++)
        expect(await find.execute({ ws: 'ws_1', version: String(i) })).toEqual([
          acceptance(`lga_${i}`, String(i)),
        ])
      expect(await find.execute({ ws: 'ws_1', version: String(n) })).toEqual([])
      // 8, 4, 2 and 1 rows a statement: one build each (per connection it ran on, SQLite's writing one).
      expect(counts.toSorted((a, b) => a - b)).toEqual([1, 2, 4, 8])
      // A refused row takes the whole call's rows with it in the caller's unit.
      await expect(
        store.unit(() =>
          inserts.run([
            { id: 'lga_x', version: 'x' },
            { id: 'lga_0', version: 'dup' },
          ]),
        ),
      ).rejects.toThrow()
      expect(await find.execute({ ws: 'ws_1', version: 'x' })).toEqual([])
    })
  })
}
