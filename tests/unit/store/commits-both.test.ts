import { afterEach, describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { workspaces } from '../../../src/features/workspaces/workspaces.tables'
import { rawRows } from '../../../src/platform/db/raw'
import type { Store } from '../../../src/platform/db/store'
import type { NotifiedCommits } from '../../../src/platform/db/store.postgres'
import { StoreMemo } from '../../../src/platform/db/store-memo'
import { engines, type OpenStore } from '../../helpers/stores'

// A memo over the store answers what a fresh read would: it reads again after any commit, this
// process's at once, another process's (another connection here) once the engine tells of it.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

function nameMemo(store: Store, reads: string[]) {
  const ws = store.table(workspaces)
  return new StoreMemo(store, async (id) => {
    reads.push(id)
    return (await store.db.select({ name: ws.name }).from(ws).where(eq(ws.id, id)))[0]?.name
  })
}

async function rename(store: Store, name: string): Promise<void> {
  const ws = store.table(workspaces)
  await store.unit(async () => {
    await store.db.update(ws).set({ name }).where(eq(ws.id, 'ws_1'))
  })
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`memos over the store on ${engine.name}`, () => {
    test("a memo reuses a row until a commit, this process's or another's", async () => {
      const o = await engine.open()
      opened.push(o)
      const { store } = o
      const ws = store.table(workspaces)
      await store.unit(async () => {
        await store.db.insert(ws).values({ id: 'ws_1', name: 'a', plan: 'beta', createdAt: 1, updatedAt: 1 })
      })
      const reads: string[] = []
      const memo = nameMemo(store, reads)
      expect(await memo.get('ws_1')).toBe('a')
      expect(await memo.get('ws_1')).toBe('a')
      expect(reads).toHaveLength(1)
      // This process's commit: seen at once.
      await rename(store, 'b')
      expect(await memo.get('ws_1')).toBe('b')
      expect(reads).toHaveLength(2)
      // Another process's commit: seen once the engine has told of it.
      const other = await o.another()
      const told = engine.name === 'postgres' ? (store.commits as NotifiedCommits).next() : Promise.resolve()
      await rename(other.store, 'c')
      await told
      expect(await memo.get('ws_1')).toBe('c')
      expect(reads).toHaveLength(3)
      // Inside a unit the memo reads the unit's own writes.
      await store
        .unit(async () => {
          await store.db.update(ws).set({ name: 'd' }).where(eq(ws.id, 'ws_1'))
          expect(await memo.get('ws_1')).toBe('d')
          throw new Error('rolled back')
        })
        .catch(() => {})
      expect(await memo.get('ws_1')).toBe('c')
    })

    test.skipIf(engine.name !== 'postgres')(
      'a listening connection that drops is listened on again, and every memo then reads again',
      async () => {
        const o = await engine.open()
        opened.push(o)
        const { store } = o
        const ws = store.table(workspaces)
        await store.unit(async () => {
          await store.db
            .insert(ws)
            .values({ id: 'ws_1', name: 'a', plan: 'beta', createdAt: 1, updatedAt: 1 })
        })
        const reads: string[] = []
        const memo = nameMemo(store, reads)
        expect(await memo.get('ws_1')).toBe('a')
        expect(await memo.get('ws_1')).toBe('a')
        expect(reads).toHaveLength(1)
        // The listening connection ends (a restart, a network cut): what was told meanwhile is lost.
        const listens = () =>
          rawRows(
            store,
            sql`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`,
          )
        expect(await listens()).toHaveLength(1)
        const relistened = (store.commits as NotifiedCommits).next()
        const other = await o.another()
        await rawRows(
          other.store,
          sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`,
        )
        // Bun listens again on a new connection; from then the memo does not trust what it kept.
        await relistened
        expect(await memo.get('ws_1')).toBe('a')
        expect(reads).toHaveLength(2)
        expect(await memo.get('ws_1')).toBe('a')
        expect(reads).toHaveLength(2)
      },
    )

    test('a memo asked for several keys reads only those it does not keep, together, until a commit', async () => {
      const o = await engine.open()
      opened.push(o)
      const { store } = o
      const ws = store.table(workspaces)
      const row = (id: string, name: string) => ({ id, name, plan: 'beta', createdAt: 1, updatedAt: 1 })
      await store.unit(async () => {
        await store.db.insert(ws).values([row('ws_1', 'a'), row('ws_2', 'b'), row('ws_3', 'c')])
      })
      const memo = nameMemo(store, [])
      const batches: string[][] = []
      const readMany = async (ids: string[]) => {
        batches.push(ids)
        const rows = await store.db.select({ id: ws.id, name: ws.name }).from(ws)
        return new Map(rows.filter((r) => ids.includes(r.id)).map((r) => [r.id, r.name]))
      }
      const names = async (ids: string[]) => Object.fromEntries(await memo.getMany(ids, readMany))
      expect(await names(['ws_1', 'ws_2'])).toEqual({ ws_1: 'a', ws_2: 'b' })
      // Kept rows are not read again; a key with no row is read every time (only rows are kept).
      expect(await names(['ws_2', 'ws_3', 'ws_9'])).toEqual({ ws_2: 'b', ws_3: 'c' })
      expect(await names(['ws_1', 'ws_3', 'ws_9'])).toEqual({ ws_1: 'a', ws_3: 'c' })
      expect(batches).toEqual([['ws_1', 'ws_2'], ['ws_3', 'ws_9'], ['ws_9']])
      // A commit empties the memo: every key is read again.
      await rename(store, 'z')
      expect(await names(['ws_1', 'ws_2'])).toEqual({ ws_1: 'z', ws_2: 'b' })
      expect(batches.at(-1)).toEqual(['ws_1', 'ws_2'])
      // Inside a unit it reads every key, and sees the unit's own writes.
      await store.unit(async () => {
        await store.db.update(ws).set({ name: 'y' }).where(eq(ws.id, 'ws_2'))
        expect(await names(['ws_1', 'ws_2'])).toEqual({ ws_1: 'z', ws_2: 'y' })
      })
      expect(batches.at(-1)).toEqual(['ws_1', 'ws_2'])
      expect(batches).toHaveLength(5)
    })
  })
}
