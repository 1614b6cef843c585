import { afterEach, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { LegalRepo } from '../../../src/features/legal/legal.repo'
import { workspaces } from '../../../src/features/workspaces/workspaces.tables'
import type { Store } from '../../../src/platform/db/store'
import { engines, type OpenStore } from '../../helpers/stores'

// The store's contract, held on both engines through a real feature's repository (legal's, the
// first on the store): units write together or not at all, nest as savepoints, run after-commit
// work only once committed, and the rows read back are the same values on SQLite and PostgreSQL.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123 // ms: past what a 32-bit integer holds

function acceptance(id: string, version: string, at: number) {
  return {
    id,
    workspaceId: 'ws_1',
    document: 'terms',
    version,
    title: 'Terms of service',
    sha256: 'ab'.repeat(32),
    actorType: 'user',
    actorId: 'usr_1',
    address: '2001:db8::1',
    acceptedAt: at,
  }
}

async function withWorkspace(store: Store): Promise<void> {
  await store.unit(async () => {
    await store.db
      .insert(store.table(workspaces))
      .values({ id: 'ws_1', name: 'Acme', plan: 'beta', createdAt: T0, updatedAt: T0 })
  })
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`units of work on ${engine.name}`, () => {
    async function open(): Promise<Store> {
      const o = await engine.open()
      opened.push(o)
      await withWorkspace(o.store)
      return o.store
    }

    test('a unit writes together, and a failure writes nothing', async () => {
      const store = await open()
      const repo = new LegalRepo(store)
      await store.unit(async () => {
        await repo.insert(acceptance('lga_1', '1', T0))
        await repo.insert(acceptance('lga_2', '2', T0 + 1))
      })
      await expect(
        store.unit(async () => {
          await repo.insert(acceptance('lga_3', '3', T0 + 2))
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      expect(await repo.find('ws_1', 'terms', '3')).toBeUndefined()
      expect((await repo.latest('ws_1', 'terms'))?.id).toBe('lga_2')
    })

    test('the rows read back are the values written', async () => {
      const store = await open()
      const repo = new LegalRepo(store)
      await store.unit(() => repo.insert(acceptance('lga_1', '1', T0)))
      expect(await repo.find('ws_1', 'terms', '1')).toEqual(acceptance('lga_1', '1', T0))
      const ws = await store.db
        .select()
        .from(store.table(workspaces))
        .where(eq(store.table(workspaces).id, 'ws_1'))
      expect(ws).toEqual([
        {
          id: 'ws_1',
          name: 'Acme',
          plan: 'beta',
          status: 'active',
          securityRev: 0,
          createdAt: T0,
          updatedAt: T0,
        },
      ])
    })

    test('a nested unit is a savepoint: its failure undoes its writes only, its after-commit work is dropped', async () => {
      const store = await open()
      const repo = new LegalRepo(store)
      const ran: string[] = []
      await store.unit(async () => {
        await repo.insert(acceptance('lga_1', '1', T0))
        store.afterCommit(() => ran.push('outer'))
        await store
          .unit(async () => {
            store.afterCommit(() => ran.push('inner, rolled back'))
            await repo.insert(acceptance('lga_2', '2', T0 + 1))
            throw new Error('inner refused')
          })
          .catch(() => {})
        await store.unit(async () => {
          store.afterCommit(() => ran.push('inner'))
          await repo.insert(acceptance('lga_3', '3', T0 + 2))
        })
        expect(ran).toEqual([])
        expect(store.inUnit()).toBe(true)
      })
      expect(ran).toEqual(['outer', 'inner'])
      expect(store.inUnit()).toBe(false)
      expect((await repo.find('ws_1', 'terms', '2')) === undefined).toBe(true)
      expect((await repo.latest('ws_1', 'terms'))?.id).toBe('lga_3')
    })

    test('a unique rule refuses the second of two writes, and the unit that broke it writes nothing', async () => {
      const store = await open()
      const repo = new LegalRepo(store)
      await store.unit(() => repo.insert(acceptance('lga_1', '1', T0)))
      await expect(
        store.unit(async () => {
          await repo.insert(acceptance('lga_2', '2', T0 + 1))
          await repo.insert(acceptance('lga_3', '1', T0 + 2))
        }),
      ).rejects.toThrow()
      expect(await repo.find('ws_1', 'terms', '2')).toBeUndefined()
    })
  })
}
