import { afterEach, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { WorkspacesService } from '../../../src/features/workspaces/workspaces.service'
import { workspaces } from '../../../src/features/workspaces/workspaces.tables'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import type { Store } from '../../../src/platform/db/store'
import type { NotifiedCommits } from '../../../src/platform/db/store.postgres'
import { engines, type OpenStore } from '../../helpers/stores'

// Workspaces on SQLite and on a real PostgreSQL: created in a unit, read back, listed oldest first,
// renamed and moved to another plan; a unit that fails creates none; the status every request reads
// is kept until a commit, this process's at once and another's once the engine tells of it.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123 // ms: past what a 32-bit integer holds

function service(store: Store, clock = new ManualClock(new Date(T0))): WorkspacesService {
  return new WorkspacesService(store, clock, seededRandom(3))
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`workspaces on ${engine.name}`, () => {
    async function open(): Promise<OpenStore> {
      const o = await engine.open()
      opened.push(o)
      return o
    }

    test('a workspace is created, read, listed, renamed and moved to another plan', async () => {
      const { store } = await open()
      const clock = new ManualClock(new Date(T0))
      const ws = service(store, clock)
      expect(await ws.any()).toBe(false)
      const a = await store.unit(() => ws.create('Acme', 'free'))
      clock.advance(1)
      const b = await store.unit(() => ws.create('Beta', 'beta'))
      expect(await ws.get(a.id)).toEqual({ ...a, status: 'active', createdAt: T0, updatedAt: T0 })
      expect(await ws.any()).toBe(true)
      expect(await ws.list()).toEqual([
        { id: a.id, name: 'Acme' },
        { id: b.id, name: 'Beta' },
      ])
      clock.advance(1)
      await store.unit(async () => {
        await ws.rename(a.id, 'Acme Corp')
        await ws.setPlan(a.id, 'team')
      })
      expect(await ws.get(a.id)).toEqual({ ...a, name: 'Acme Corp', plan: 'team', updatedAt: T0 + 2 })
      expect(await ws.get('ws_missing')).toBeUndefined()
      expect(await ws.status('ws_missing')).toBeUndefined()
    })

    test('a unit that fails creates no workspace', async () => {
      const { store } = await open()
      const ws = service(store)
      await expect(
        store.unit(async () => {
          await ws.create('Acme', 'free')
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      expect(await ws.any()).toBe(false)
    })

    test("the status is kept until a commit, this process's or another's, and read inside a unit", async () => {
      const o = await open()
      const { store } = o
      const ws = service(store)
      const a = await store.unit(() => ws.create('Acme', 'free'))
      expect(await ws.status(a.id)).toBe('active')
      const w = store.table(workspaces)
      const suspend = (s: Store, status: 'active' | 'suspended') =>
        s.unit(async () => {
          await s.db.update(s.table(workspaces)).set({ status }).where(eq(w.id, a.id))
        })
      await suspend(store, 'suspended')
      expect(await ws.status(a.id)).toBe('suspended')
      const other = await o.another()
      const told = engine.name === 'postgres' ? (store.commits as NotifiedCommits).next() : Promise.resolve()
      await suspend(other.store, 'active')
      await told
      expect(await ws.status(a.id)).toBe('active')
      await store
        .unit(async () => {
          await store.db.update(w).set({ status: 'suspended' }).where(eq(w.id, a.id))
          expect(await ws.status(a.id)).toBe('suspended')
          throw new Error('rolled back')
        })
        .catch(() => {})
      expect(await ws.status(a.id)).toBe('active')
    })

    test("the security revision: moved on in a unit, read in a credential's own statement, seen until the next commit", async () => {
      const o = await open()
      const ws = service(o.store)
      const a = await o.store.unit(() => ws.create('Acme', 'free'))
      // A statement of another feature's takes the columns (here over the workspaces table itself).
      const w = o.store.table(workspaces)
      const read = async (id: string) =>
        (
          await o.store.db
            .select({ id: w.id, ...ws.accessColumns(w.id) })
            .from(w)
            .where(eq(w.id, id))
        )[0]
      expect(await read(a.id)).toEqual({ id: a.id, workspaceStatus: 'active', securityRev: 0 })
      await o.store.unit(async () => {
        await ws.bumpSecurityRev(a.id)
        await ws.bumpSecurityRev(a.id)
      })
      // A unit that fails moves nothing.
      await expect(
        o.store.unit(async () => {
          await ws.bumpSecurityRev(a.id)
          throw new Error('rolled back')
        }),
      ).rejects.toThrow('rolled back')
      expect(await read(a.id)).toEqual({ id: a.id, workspaceStatus: 'active', securityRev: 2 })
      // Another process's bump is read by the next statement, told or not.
      const other = await o.another()
      await other.store.unit(() => service(other.store).bumpSecurityRev(a.id))
      expect((await read(a.id))?.securityRev).toBe(3)
      // What an auth read noted is seen (the highest) until this process's next commit.
      ws.noteSecurityRev(a.id, 3)
      ws.noteSecurityRev(a.id, 2)
      expect(ws.securityRevSeen(a.id)).toBe(3)
      expect(ws.securityRevSeen('ws_other')).toBeUndefined()
      await o.store.unit(() => ws.rename(a.id, 'Acme Corp'))
      expect(ws.securityRevSeen(a.id)).toBeUndefined()
    })
  })
}
