import { afterEach, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { AllowlistRepo, type AllowlistRow } from '../../../src/features/allowlist/allowlist.repo'
import { AllowlistService } from '../../../src/features/allowlist/allowlist.service'
import { WorkspacesService } from '../../../src/features/workspaces/workspaces.service'
import type { Principal } from '../../../src/platform/auth/principal'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import type { Store } from '../../../src/platform/db/store'
import { domainEvents } from '../../../src/platform/events/events.tables'
import { Outbox } from '../../../src/platform/events/outbox'
import { memoryLogger } from '../../../src/platform/log/log'
import { engines, type OpenStore, seedTenants, sessionAdmin } from '../../helpers/stores'

// The IP allowlist on SQLite and on a real PostgreSQL: a list reads back as saved (the request
// check's prepared read too), a unit that fails saves nothing, a save is audited in its unit, the
// request check refuses an unlisted address from the very next request and records the refusal
// once a minute, and the operator's switch-off keeps the entries.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123

const admin: Principal = sessionAdmin()

const row = (over: Partial<AllowlistRow> = {}): AllowlistRow => ({
  workspaceId: 'ws_1',
  enabled: true,
  cidrs: '["10.0.0.0/8"]',
  updatedBy: 'usr_1',
  updatedAt: T0,
  ...over,
})

async function eventsOf(store: Store, type: string) {
  const t = store.table(domainEvents)
  const rows = await store.db.select().from(t).where(eq(t.type, type))
  return rows.map((r) => JSON.parse(r.payload).details)
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`the IP allowlist on ${engine.name}`, () => {
    async function open(): Promise<Store> {
      const o = await engine.open()
      opened.push(o)
      await seedTenants(o.store, { workspaces: ['ws_1', 'ws_2'], at: T0 })
      return o.store
    }
    const service = (store: Store) => {
      const clock = new ManualClock(new Date(T0))
      const events = new Outbox(store.db, clock, seededRandom(1), store)
      const workspaces = new WorkspacesService(store, clock, seededRandom(1))
      return {
        clock,
        allowlist: new AllowlistService({ store, clock, log: memoryLogger(), events, workspaces }),
      }
    }

    test('a list reads back as saved, and a save replaces it', async () => {
      const store = await open()
      const repo = new AllowlistRepo(store)
      expect(await repo.get('ws_1')).toBeUndefined()
      expect(await repo.enforced('ws_1')).toBeUndefined()
      await store.unit(() => repo.save(row()))
      expect(await repo.get('ws_1')).toEqual(row())
      await store.unit(() =>
        repo.save(row({ enabled: false, cidrs: '[]', updatedBy: null, updatedAt: T0 + 1 })),
      )
      expect(await repo.get('ws_1')).toEqual(
        row({ enabled: false, cidrs: '[]', updatedBy: null, updatedAt: T0 + 1 }),
      )
      expect(await repo.enforced('ws_1')).toEqual({ enabled: false, cidrs: '[]' })
      expect(await repo.get('ws_2')).toBeUndefined()
    })

    test('a unit that fails saves no list', async () => {
      const store = await open()
      const repo = new AllowlistRepo(store)
      await expect(
        store.unit(async () => {
          await repo.save(row())
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      expect(await repo.get('ws_1')).toBeUndefined()
    })

    test('a saved list is audited and refuses other addresses from the next request, recorded once a minute', async () => {
      const store = await open()
      const { clock, allowlist } = service(store)
      const caller = (ip: string) => ({ ip, requestId: 'req_1', route: 'GET /v1/corpora' })
      await allowlist.admit(admin, caller('192.0.2.1'))
      const view = await allowlist.put(
        admin,
        { enabled: true, cidrs: ['10.0.0.0/8'] },
        { ip: '10.1.2.3', requestId: 'r' },
      )
      expect(view).toMatchObject({ enabled: true, cidrs: ['10.0.0.0/8'], yourAddressListed: true })
      expect(await eventsOf(store, 'ip_allowlist.updated')).toEqual([
        {
          enabled: true,
          was_enabled: false,
          cidrs: ['10.0.0.0/8'],
          added: ['10.0.0.0/8'],
          removed: [],
          confirmed_lockout: false,
        },
      ])
      await allowlist.admit(admin, caller('10.9.9.9'))
      for (let i = 0; i < 3; i++) {
        await expect(allowlist.admit(admin, caller('192.0.2.1'))).rejects.toMatchObject({
          code: 'ip_not_allowed',
        })
      }
      expect(await eventsOf(store, 'ip_allowlist.refused')).toEqual([
        { address: '192.0.2.1', route: 'GET /v1/corpora', unrecorded_before: 0 },
      ])
      clock.advance(60_000)
      await expect(allowlist.admit(admin, caller('192.0.2.1'))).rejects.toMatchObject({
        code: 'ip_not_allowed',
      })
      expect((await eventsOf(store, 'ip_allowlist.refused')).map((d) => d.unrecorded_before)).toEqual([0, 2])
      // Another workspace is not held to it.
      await allowlist.admit({ ...admin, workspaceId: 'ws_2' }, caller('192.0.2.1'))
    })

    test("the operator's switch-off keeps the entries and lets every address in", async () => {
      const store = await open()
      const { allowlist } = service(store)
      expect(await allowlist.switchOff('ws_1', { type: 'system', id: null })).toBeUndefined()
      await allowlist.put(admin, { enabled: true, cidrs: ['10.0.0.0/8'] }, { ip: '10.1.2.3', requestId: 'r' })
      const caller = { ip: '192.0.2.1', requestId: 'req_1', route: null }
      await expect(allowlist.admit(admin, caller)).rejects.toMatchObject({ code: 'ip_not_allowed' })
      const before = await allowlist.switchOff('ws_1', { type: 'system', id: null })
      expect(before).toMatchObject({ enabled: true, cidrs: '["10.0.0.0/8"]' })
      expect(await allowlist.saved('ws_1')).toMatchObject({
        enabled: false,
        cidrs: '["10.0.0.0/8"]',
        updatedBy: null,
      })
      await allowlist.admit(admin, caller)
      expect((await eventsOf(store, 'ip_allowlist.updated')).at(-1)).toMatchObject({
        enabled: false,
        was_enabled: true,
        via: 'engram allowlist --off',
      })
    })
  })
}
