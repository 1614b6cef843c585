import { afterEach, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { KeysService } from '../../../src/features/keys/keys.service'
import { apiKeys } from '../../../src/features/keys/keys.tables'
import { WorkspacesService } from '../../../src/features/workspaces/workspaces.service'
import { workspaces } from '../../../src/features/workspaces/workspaces.tables'
import type { Principal } from '../../../src/platform/auth/principal'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import { holdInUnit } from '../../../src/platform/db/hold'
import type { Store } from '../../../src/platform/db/store'
import type { NotifiedCommits } from '../../../src/platform/db/store.postgres'
import { StoreMemo } from '../../../src/platform/db/store-memo'
import { fail } from '../../../src/platform/errors/errors'
import { domainEvents } from '../../../src/platform/events/events.tables'
import { Outbox } from '../../../src/platform/events/outbox'
import { engines, type OpenStore, outcomeCode, seedTenants, sessionAdmin } from '../../helpers/stores'

// API keys on SQLite and on a real PostgreSQL: a key is minted, listed, found by its secret on every
// request through a memo that sees every commit (a revocation, this process's or another's, applies
// to the next request), revoked once (of two revocations at once one tells it), and a refused or
// failed creation writes neither the key nor its event.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123 // ms: past what a 32-bit integer holds
const CAP = 2
const CALLER = { ip: '203.0.113.5', requestId: 'req_1' }

function admin(workspaceId = 'ws_1'): Principal {
  return sessionAdmin(workspaceId, 'usr_admin')
}

/** The keys service on a store, with a plan of CAP keys and every base known. */
function keysOn(store: Store, seed = 1): KeysService {
  const clock = new ManualClock(new Date(T0))
  const random = seededRandom(seed)
  const events = new Outbox(store.db, clock, random, store)
  const plans = {
    ensureRoom: async (_ws: string, _cap: string, used: number) => {
      if (used + 1 > CAP) throw fail('plan_limit_reached')
    },
    // As plans holds a cap: an advisory lock in the unit on PostgreSQL, nothing on SQLite.
    holdCap: (ws: string, cap: string) => holdInUnit(store, `cap:${cap}:${ws}`),
  }
  const corpora = { exists: async () => true }
  const ws = new WorkspacesService(store, clock, random)
  return new KeysService(store, clock, random, events, corpora, plans, ws)
}

async function eventsOf(store: Store, type: string): Promise<number> {
  const e = store.table(domainEvents)
  return (await store.db.select({ id: e.id }).from(e).where(eq(e.type, type))).length
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`API keys on ${engine.name}`, () => {
    async function open(): Promise<OpenStore> {
      const o = await engine.open()
      opened.push(o)
      await seedTenants(o.store, { workspaces: ['ws_1', 'ws_2'], plan: 'free', at: T0 })
      return o
    }

    test('a key is minted, listed, authenticated and, once revoked, refused on the next request', async () => {
      const { store } = await open()
      const keys = keysOn(store)
      const made = await keys.create(admin(), { name: ' ci ', scopes: ['query', 'admin', 'query'] }, CALLER)
      expect(made.name).toBe('ci')
      expect(made.scopes).toEqual(['query', 'admin'])
      expect(await eventsOf(store, 'key.created')).toBe(1)
      // The use's stamp is a quiet unit: it leaves this process's memos (here a workspace's name) as they were.
      const reads: string[] = []
      const names = new StoreMemo(store, async (id) => {
        reads.push(id)
        const w = store.table(workspaces)
        return (await store.db.select({ name: w.name }).from(w).where(eq(w.id, id)))[0]?.name
      })
      expect(await names.get('ws_1')).toBe('ws_1')
      const p = await keys.authenticate(made.key)
      expect(await names.get('ws_1')).toBe('ws_1')
      expect(reads).toEqual(['ws_1'])
      expect(p).toEqual({
        kind: 'api_key',
        workspaceId: 'ws_1',
        userId: null,
        role: 'admin',
        scopes: ['query', 'admin'],
        keyId: made.id,
        corpusIds: null,
        securityRev: 0,
      })
      // The first use stamps last_used_at (a unit of its own).
      expect((await keys.get('ws_1', made.id)).last_used_at).not.toBeNull()
      const list = await keys.list('ws_1', null)
      expect(list.items.map((k) => k.id)).toEqual([made.id])
      expect(list.total).toBe(1)
      expect(await outcomeCode(keys.get('ws_2', made.id))).toBe('not_found')
      const revoked = await keys.revoke(admin(), made.id, CALLER)
      expect(revoked.revoked_at).not.toBeNull()
      expect(await outcomeCode(keys.authenticate(made.key))).toBe('unauthorized')
      // Revoked again: the key unchanged, no second event.
      expect(await keys.revoke(admin(), made.id, CALLER)).toEqual(revoked)
      expect(await eventsOf(store, 'key.revoked')).toBe(1)
      expect(await outcomeCode(keys.authenticate(`ek_${'x'.repeat(40)}`))).toBe('unauthorized')
    })

    test("another process's revocation and a suspension apply on the next request", async () => {
      const o = await open()
      const keys = keysOn(o.store)
      const a = await keys.create(admin(), { name: 'a', scopes: ['query'] }, CALLER)
      const b = await keys.create(admin(), { name: 'b', scopes: ['query'] }, CALLER)
      await keys.authenticate(a.key)
      await keys.authenticate(a.key)
      const other = await o.another()
      const told = () =>
        engine.name === 'postgres' ? (o.store.commits as NotifiedCommits).next() : Promise.resolve()
      let seen = told()
      await keysOn(other.store, 2).revoke(admin(), a.id, CALLER)
      await seen
      expect(await outcomeCode(keys.authenticate(a.key))).toBe('unauthorized')
      expect(await outcomeCode(keys.authenticate(b.key))).toBe('ok')
      seen = told()
      const w = other.store.table(workspaces)
      await other.store.unit(async () => {
        await other.store.db.update(w).set({ status: 'suspended' }).where(eq(w.id, 'ws_1'))
      })
      await seen
      expect(await outcomeCode(keys.authenticate(b.key))).toBe('workspace_suspended')
    })

    test("a creation past the plan's cap, or in a unit that fails, writes no key and no event", async () => {
      const { store } = await open()
      const keys = keysOn(store)
      await keys.create(admin(), { name: 'a', scopes: ['query'] }, CALLER)
      const b = await keys.create(admin(), { name: 'b', scopes: ['query'] }, CALLER)
      expect(await outcomeCode(keys.create(admin(), { name: 'c', scopes: ['query'] }, CALLER))).toBe(
        'plan_limit_reached',
      )
      // A revoked key no longer takes a place.
      await keys.revoke(admin(), b.id, CALLER)
      await keys.create(admin(), { name: 'c', scopes: ['query'] }, CALLER)
      await expect(
        store.unit(async () => {
          await keys.create(admin('ws_2'), { name: 'd', scopes: ['query'] }, CALLER)
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      const k = store.table(apiKeys)
      expect((await store.db.select({ name: k.name }).from(k)).map((r) => r.name).sort()).toEqual([
        'a',
        'b',
        'c',
      ])
      expect(await eventsOf(store, 'key.created')).toBe(3)
      expect(await keys.activeCount('ws_1')).toBe(2)
    })

    test('of two revocations at once (two processes), one revokes and tells it', async () => {
      const o = await open()
      const keys = keysOn(o.store)
      const made = await keys.create(admin(), { name: 'a', scopes: ['query'] }, CALLER)
      // On SQLite a process's units take turns (one store); on PostgreSQL a second pool is a second process.
      const other = keysOn(engine.name === 'postgres' ? (await o.another()).store : o.store, 2)
      const [x, y] = await Promise.all([
        keys.revoke(admin(), made.id, CALLER),
        other.revoke(admin(), made.id, CALLER),
      ])
      expect(x.revoked_at).not.toBeNull()
      expect(y.revoked_at).not.toBeNull()
      expect(await eventsOf(o.store, 'key.revoked')).toBe(1)
    })
  })
}
