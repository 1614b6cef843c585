import { afterEach, describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { usageDaily } from '../../../src/features/usage/usage.tables'
import { workspaces } from '../../../src/features/workspaces/workspaces.tables'
import type { Store } from '../../../src/platform/db/store'
import type { NotifiedCommits } from '../../../src/platform/db/store.postgres'
import { StoreMemo } from '../../../src/platform/db/store-memo'
import { engines, type OpenStore, seedTenants } from '../../helpers/stores'

// A quiet unit (what a question writes: its event and its counter) commits like any unit but leaves
// the memos as they are, and tells no other process; anything else in it, or any other commit,
// still empties them, so a revocation is seen on the very next request.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

async function open(engine: { open(): Promise<OpenStore> }) {
  const o = await engine.open()
  opened.push(o)
  await seedTenants(o.store, { workspaces: ['ws_1'], at: 1 })
  const reads: string[] = []
  const ws = o.store.table(workspaces)
  const memo = new StoreMemo(o.store, async (id) => {
    reads.push(id)
    return (await o.store.db.select({ name: ws.name }).from(ws).where(eq(ws.id, id)))[0]?.name
  })
  return { ...o, memo, reads }
}

/** A counter no memo reads: one question's count. */
async function count(store: Store): Promise<void> {
  const u = store.table(usageDaily)
  await store.db
    .insert(u)
    .values({ workspaceId: 'ws_1', corpusId: 'cor_1', day: '2026-11-29', queries: 1 })
    .onConflictDoUpdate({
      target: [u.workspaceId, u.corpusId, u.day],
      set: { queries: sql`${u.queries} + 1` },
    })
}

async function counted(store: Store): Promise<number> {
  const u = store.table(usageDaily)
  return (await store.db.select({ n: u.queries }).from(u))[0]?.n ?? 0
}

async function rename(store: Store, name: string): Promise<void> {
  const ws = store.table(workspaces)
  await store.db.update(ws).set({ name }).where(eq(ws.id, 'ws_1'))
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`quiet units on ${engine.name}`, () => {
    test('a quiet unit commits and the memo keeps its row; an ordinary unit empties it', async () => {
      const { store, memo, reads } = await open(engine)
      expect(await memo.get('ws_1')).toBe('ws_1')
      for (let i = 0; i < 5; i++) {
        await store.unit(() => count(store), { quiet: true })
        expect(await memo.get('ws_1')).toBe('ws_1')
      }
      expect(reads).toHaveLength(1)
      expect(await counted(store)).toBe(5)
      await store.unit(() => rename(store, 'renamed'))
      expect(await memo.get('ws_1')).toBe('renamed')
      expect(reads).toHaveLength(2)
    })

    test('an ordinary unit inside a quiet one makes the whole unit ordinary', async () => {
      const { store, memo, reads } = await open(engine)
      expect(await memo.get('ws_1')).toBe('ws_1')
      await store.unit(
        async () => {
          await count(store)
          await store.unit(() => rename(store, 'inside'))
        },
        { quiet: true },
      )
      expect(await memo.get('ws_1')).toBe('inside')
      expect(reads).toHaveLength(2)
      // A quiet unit inside an ordinary one changes nothing: the outer unit is told as ever.
      await store.unit(async () => {
        await rename(store, 'outer')
        await store.unit(() => count(store), { quiet: true })
      })
      expect(await memo.get('ws_1')).toBe('outer')
      expect(await counted(store)).toBe(2)
    })

    test('a quiet unit that fails writes nothing and the memo still answers', async () => {
      const { store, memo, reads } = await open(engine)
      expect(await memo.get('ws_1')).toBe('ws_1')
      await expect(
        store.unit(
          async () => {
            await count(store)
            throw new Error('refused')
          },
          { quiet: true },
        ),
      ).rejects.toThrow('refused')
      expect(await counted(store)).toBe(0)
      expect(await memo.get('ws_1')).toBe('ws_1')
      expect(reads.length).toBeLessThanOrEqual(2)
    })

    test("another process's commit around a quiet unit is still seen", async () => {
      const { store, memo, reads, another } = await open(engine)
      expect(await memo.get('ws_1')).toBe('ws_1')
      const other = await another()
      const told = engine.name === 'postgres' ? (store.commits as NotifiedCommits).next() : Promise.resolve()
      await other.store.unit(() => rename(other.store, 'elsewhere'))
      await told
      // This process's quiet commit comes after the other's: the memo must not take it as its only change.
      await store.unit(() => count(store), { quiet: true })
      expect(await memo.get('ws_1')).toBe('elsewhere')
      expect(reads).toHaveLength(2)
    })

    test('another process is not told of a quiet unit, and is told of an ordinary one', async () => {
      const { store, another } = await open(engine)
      const other = await another()
      const before = other.store.commits.version()
      if (engine.name === 'postgres') {
        const watch = other.store.commits as NotifiedCommits
        const told = watch.next()
        await store.unit(() => count(store), { quiet: true })
        await store.unit(() => rename(store, 'told'))
        await told
        // Notifications arrive in commit order: had the quiet unit been told, it would have come first.
        expect(watch.version()).toBe(before + 1)
      } else {
        // On SQLite another connection learns of commits from the file's header: both move it there
        // (its memo reads again, which is safe); only the connection that made the quiet commit keeps its memos.
        await store.unit(() => count(store), { quiet: true })
        expect(other.store.commits.version()).not.toBe(before)
      }
    })
  })
}
