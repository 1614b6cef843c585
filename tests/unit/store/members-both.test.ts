import { afterEach, describe, expect, test } from 'bun:test'
import { type InviteRow, MembersRepo } from '../../../src/features/members/members.repo'
import type { Store } from '../../../src/platform/db/store'
import { engines, type OpenStore, seedTenants } from '../../helpers/stores'

// Members' repository (invitations) on SQLite and on a real PostgreSQL: an invitation reads back as
// written, a unit that fails writes none, an invitation is accepted once and only while live, and
// the seats open invitations hold are counted as the cap check needs.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123 // ms: past what a 32-bit integer holds
const DAY = 86_400_000

function invite(id: string, email: string, over: Partial<InviteRow> = {}): InviteRow {
  return {
    id,
    workspaceId: 'ws_1',
    email,
    role: 'member',
    tokenHash: `hash_${id}`,
    invitedBy: 'usr_admin',
    sentAt: T0,
    expiresAt: T0 + 7 * DAY,
    acceptedAt: null,
    createdAt: T0,
    ...over,
  }
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`members' repository on ${engine.name}`, () => {
    async function open(): Promise<{ store: Store; repo: MembersRepo }> {
      const o = await engine.open()
      opened.push(o)
      const store = o.store
      await seedTenants(store, { workspaces: ['ws_1', 'ws_2'], plan: 'free', at: T0 })
      return { store, repo: new MembersRepo(store) }
    }

    test('invitations read back as written, oldest first, and a reissue replaces the secret', async () => {
      const { store, repo } = await open()
      const a = invite('inv_a', 'a@example.com', { role: 'admin', invitedBy: null })
      const b = invite('inv_b', 'b@example.com', { createdAt: T0 + 1 })
      await store.unit(async () => {
        await repo.insert(b)
        await repo.insert(a)
      })
      expect(await repo.listOpen('ws_1')).toEqual([a, b])
      expect(await repo.findOpen('ws_1', 'b@example.com')).toEqual(b)
      const set = {
        role: 'admin' as const,
        tokenHash: 'hash_new',
        sentAt: T0 + 5,
        expiresAt: T0 + 9 * DAY,
        invitedBy: 'key_1',
      }
      await store.unit(() => repo.reissue('inv_b', set))
      expect(await repo.findLive('hash_inv_b', T0 + 6)).toBeUndefined()
      expect(await repo.findLive('hash_new', T0 + 6)).toEqual({ ...b, ...set })
      expect(await repo.listOpen('ws_2')).toEqual([])
    })

    test('a unit that fails writes no invitation', async () => {
      const { store, repo } = await open()
      await expect(
        store.unit(async () => {
          await repo.insert(invite('inv_a', 'a@example.com'))
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      expect(await repo.listOpen('ws_1')).toEqual([])
    })

    test('an invitation is accepted once, only while live; open ones hold seats, the address itself aside', async () => {
      const { store, repo } = await open()
      await store.unit(async () => {
        await repo.insert(invite('inv_a', 'a@example.com'))
        await repo.insert(invite('inv_b', 'b@example.com', { expiresAt: T0 + 10 }))
        await repo.insert(invite('inv_c', 'c@example.com'))
        await repo.insert(invite('inv_d', 'd@example.com', { workspaceId: 'ws_2' }))
      })
      expect(await repo.countLive('ws_1', T0 + 20, 'c@example.com')).toBe(1)
      const accepted = await store.unit(() => repo.accept('hash_inv_a', T0 + 20))
      expect(accepted).toEqual(invite('inv_a', 'a@example.com', { acceptedAt: T0 + 20 }))
      expect(await store.unit(() => repo.accept('hash_inv_a', T0 + 21))).toBeUndefined()
      expect(await store.unit(() => repo.accept('hash_inv_b', T0 + 20))).toBeUndefined()
      expect(await repo.countLive('ws_1', T0 + 20, 'nobody@example.com')).toBe(1)
      // Another workspace's invitation is not deleted by this one's id; an accepted one is no longer open.
      expect(await store.unit(() => repo.delete('ws_1', 'inv_d'))).toBe(false)
      expect(await store.unit(() => repo.delete('ws_1', 'inv_a'))).toBe(false)
      expect(await store.unit(() => repo.delete('ws_1', 'inv_c'))).toBe(true)
      expect((await repo.listOpen('ws_1')).map((i) => i.id)).toEqual(['inv_b'])
    })
  })
}
