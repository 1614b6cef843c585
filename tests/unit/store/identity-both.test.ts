import { afterEach, describe, expect, test } from 'bun:test'
import { users } from '../../../src/features/accounts/accounts.tables'
import { IdentityRepo, type IdentityRow } from '../../../src/features/identity/identity.repo'
import { workspaces } from '../../../src/features/workspaces/workspaces.tables'
import { isUniqueViolation } from '../../../src/platform/db/failures'
import type { Store } from '../../../src/platform/db/store'
import { engines, type OpenStore } from '../../helpers/stores'

// Identity's repository on SQLite and on a real PostgreSQL: a linked identity reads back as written,
// a unit that fails links nothing, and a second link of one provider identity is refused by the
// unique rule in a way the feature recognises on both engines (it answers identity_linked_elsewhere).

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123 // ms: past what a 32-bit integer holds
const ISSUER = 'https://accounts.google.com'

function identity(id: string, userId: string, subject: string): IdentityRow {
  return {
    id,
    provider: 'google',
    issuer: ISSUER,
    subject,
    userId,
    workspaceId: 'ws_1',
    email: `${userId}@example.com`,
    createdAt: T0,
  }
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`identity's repository on ${engine.name}`, () => {
    async function open(): Promise<{ store: Store; repo: IdentityRepo }> {
      const o = await engine.open()
      opened.push(o)
      const store = o.store
      await store.unit(async () => {
        await store.db
          .insert(store.table(workspaces))
          .values({ id: 'ws_1', name: 'Acme', plan: 'free', createdAt: T0, updatedAt: T0 })
        for (const id of ['usr_1', 'usr_2']) {
          await store.db.insert(store.table(users)).values({
            id,
            workspaceId: 'ws_1',
            email: `${id}@example.com`,
            name: id,
            role: 'member',
            createdAt: T0,
            updatedAt: T0,
          })
        }
      })
      return { store, repo: new IdentityRepo(store) }
    }

    test('a linked identity reads back as written, by subject and by user, and is gone once deleted', async () => {
      const { store, repo } = await open()
      const row = identity('idn_1', 'usr_1', '1094')
      await store.unit(() => repo.insert(row))
      expect(await repo.find(ISSUER, '1094')).toEqual(row)
      expect(await repo.ofUserAt('usr_1', ISSUER)).toEqual(row)
      expect(await repo.ofUserAt('usr_1', 'https://login.example.com')).toBeUndefined()
      await store.unit(() => repo.delete('idn_1'))
      expect(await repo.find(ISSUER, '1094')).toBeUndefined()
    })

    test('a unit that fails after linking links nothing', async () => {
      const { store, repo } = await open()
      await expect(
        store.unit(async () => {
          await repo.insert(identity('idn_1', 'usr_1', '1094'))
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      expect(await repo.find(ISSUER, '1094')).toBeUndefined()
    })

    test('a second link of one identity is a unique violation the feature recognises, and its unit writes nothing', async () => {
      const { store, repo } = await open()
      await store.unit(() => repo.insert(identity('idn_1', 'usr_1', '1094')))
      const error = await store
        .unit(async () => {
          await repo.insert(identity('idn_2', 'usr_2', '2000'))
          await repo.insert(identity('idn_3', 'usr_2', '1094'))
        })
        .then(
          () => null,
          (e: unknown) => e,
        )
      expect(isUniqueViolation(error)).toBe(true)
      expect(isUniqueViolation(new Error('UNIQUE, said a message'))).toBe(false)
      expect(await repo.find(ISSUER, '2000')).toBeUndefined()
      expect((await repo.find(ISSUER, '1094'))?.userId).toBe('usr_1')
    })
  })
}
