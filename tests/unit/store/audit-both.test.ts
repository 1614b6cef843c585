import { afterEach, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { rowHash } from '../../../src/features/audit/audit.chain'
import { AuditRepo } from '../../../src/features/audit/audit.repo'
import { AuditService } from '../../../src/features/audit/audit.service'
import { auditSubscriber } from '../../../src/features/audit/audit.subscribers'
import { auditEvents } from '../../../src/features/audit/audit.tables'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import type { Store } from '../../../src/platform/db/store'
import { Outbox } from '../../../src/platform/events/outbox'
import { engines, type OpenStore } from '../../helpers/stores'
import { testDispatcher } from '../../helpers/test-dispatcher'

// The audit log on the store, on SQLite and on a real PostgreSQL: a row reads back as written, with
// its place and hash; a unit that fails leaves no row; events delivered through the outbox become one
// chained row each; and writers racing for a workspace's next place still leave one unbroken chain.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123 // ms: past what a 32-bit integer holds
const ACTOR = { type: 'user' as const, id: 'usr_1', ip: '2001:db8::1', requestId: 'req_1' }

function rig(store: Store) {
  const clock = new ManualClock(new Date(T0))
  const outbox = new Outbox(store.db, clock, seededRandom(1), store)
  return { clock, outbox, audit: new AuditService(store, outbox) }
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`the audit log on ${engine.name}`, () => {
    async function open(): Promise<Store> {
      const o = await engine.open()
      opened.push(o)
      return o.store
    }

    test('the log is append-only: a chained row is never updated, no row is ever deleted', async () => {
      const store = await open()
      const { audit } = rig(store)
      await audit.append('aud_1', T0, { workspaceId: 'ws_1', actor: ACTOR, action: 'auth.sign_in' })
      const t = store.table(auditEvents)
      await expect(
        store.unit(async () => {
          await store.db.update(t).set({ action: 'auth.sign_out' }).where(eq(t.id, 'aud_1'))
        }),
      ).rejects.toThrow()
      await expect(
        store.unit(async () => {
          await store.db.delete(t).where(eq(t.id, 'aud_1'))
        }),
      ).rejects.toThrow()
      const rows = await store.db.select({ action: t.action }).from(t)
      expect(rows).toEqual([{ action: 'auth.sign_in' }])
    })

    test('a row reads back as written, with its place in the chain and its hash', async () => {
      const store = await open()
      const { audit } = rig(store)
      const entry = {
        workspaceId: 'ws_1',
        actor: ACTOR,
        action: 'api_key.revoked',
        target: { type: 'api_key', id: 'key_1' },
        details: { name: 'laptop', prefix: 'ek_1' },
      }
      await audit.append('aud_1', T0, entry)
      await audit.append('aud_1', T0 + 5, entry) // the same id again: nothing
      await audit.append('aud_2', T0 + 1, { workspaceId: 'ws_1', actor: ACTOR, action: 'auth.sign_in' })
      const t = store.table(auditEvents)
      const [first] = await store.db.select().from(t).where(eq(t.id, 'aud_1'))
      const unhashed = {
        id: 'aud_1',
        workspaceId: 'ws_1',
        actorType: 'user',
        actorId: 'usr_1',
        action: 'api_key.revoked',
        targetType: 'api_key',
        targetId: 'key_1',
        details: JSON.stringify({ name: 'laptop', prefix: 'ek_1' }),
        ip: '2001:db8::1',
        requestId: 'req_1',
        createdAt: T0,
        seq: 1,
        prevHash: null,
      }
      expect(first).toEqual({ ...unhashed, hash: rowHash(unhashed) })
      const page = await audit.list('ws_1', {}, null)
      expect(page.items.map((r) => [r.id, r.seq, r.prev_hash])).toEqual([
        ['aud_2', 2, first!.hash],
        ['aud_1', 1, null],
      ])
      expect(page.total).toBe(2)
      expect(await audit.verify('ws_1')).toMatchObject({ ok: true, checked: 2, first_broken: null })
      // A family of actions by its prefix, compared whole on both engines.
      expect((await audit.list('ws_1', { action: 'api_key.*' }, null)).items.map((r) => r.id)).toEqual([
        'aud_1',
      ])
    })

    test("a unit that fails after appending leaves no row, and the chain's next place is free", async () => {
      const store = await open()
      const { audit } = rig(store)
      await expect(
        store.unit(async () => {
          await audit.append('aud_1', T0, { workspaceId: 'ws_1', actor: ACTOR, action: 'auth.sign_in' })
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      expect((await audit.list('ws_1', {}, null)).items).toEqual([])
      await audit.append('aud_2', T0, { workspaceId: 'ws_1', actor: ACTOR, action: 'auth.sign_in' })
      expect((await audit.list('ws_1', {}, null)).items.map((r) => [r.id, r.seq])).toEqual([['aud_2', 1]])
    })

    test('events delivered through the outbox become one chained row each, the export its own', async () => {
      const store = await open()
      const { clock, outbox, audit } = rig(store)
      const dispatcher = testDispatcher(outbox, clock)
      dispatcher.subscribe(auditSubscriber(audit))
      await store.unit(async () => {
        await outbox.publish({
          type: 'key.revoked',
          workspaceId: 'ws_1',
          payload: { keyId: 'key_1', name: 'laptop', prefix: 'ek_1', actor: ACTOR },
        })
      })
      await audit.exported('audit.exported', 'ws_1', ACTOR, { format: 'jsonl' })
      await dispatcher.drain()
      await dispatcher.drain()
      const rows = (await audit.list('ws_1', {}, null)).items
      expect(rows.map((r) => [r.action, r.seq])).toEqual([
        ['audit.exported', 2],
        ['api_key.revoked', 1],
      ])
      expect(await audit.verify('ws_1')).toMatchObject({ ok: true, checked: 2 })
    })

    test('writers racing for the same place leave one unbroken chain', async () => {
      const store = await open()
      const { audit } = rig(store)
      await Promise.all(
        [1, 2, 3, 4].map((i) =>
          audit.append(`aud_${i}`, T0 + i, { workspaceId: 'ws_1', actor: ACTOR, action: 'auth.sign_in' }),
        ),
      )
      const rows = (await audit.list('ws_1', {}, null)).items
      expect(rows.map((r) => r.seq)).toEqual([4, 3, 2, 1])
      expect(rows.map((r) => r.id).sort()).toEqual(['aud_1', 'aud_2', 'aud_3', 'aud_4'])
      expect(await audit.verify('ws_1')).toMatchObject({ ok: true, checked: 4, first_broken: null })
    })

    test("two processes' appends to one chain wait for each other: none is refused, none forks it", async () => {
      const o = await engine.open()
      opened.push(o)
      const stores = [o.store, (await o.another()).store]
      // The repo's append, without the service's retry: the unit holds the chain (holdInUnit), so the
      // second process reads the end only once the first has committed. On PostgreSQL the two run at
      // once; SQLite's units wait on a lock that blocks this thread, so there they take turns.
      const append = (p: number, i: number) => {
        const store = stores[p]!
        const repo = new AuditRepo(store)
        return store.unit(() =>
          repo.append({
            id: `aud_${p}_${i}`,
            workspaceId: 'ws_1',
            actorType: 'system',
            action: 'x',
            createdAt: i,
          }),
        )
      }
      const run = async (p: number) => {
        for (let i = 0; i < 20; i++) await append(p, i)
      }
      if (engine.name === 'postgres') await Promise.all([run(0), run(1)])
      else for (let i = 0; i < 20; i++) for (const p of [0, 1]) await append(p, i)
      const { audit } = rig(o.store)
      expect(await audit.verify('ws_1')).toMatchObject({ ok: true, checked: 40, first_broken: null })
    })
  })
}
