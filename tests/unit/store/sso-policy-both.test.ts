import { afterEach, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { users } from '../../../src/features/accounts/accounts.tables'
import { SsoEnforcement } from '../../../src/features/sso/sso.policy'
import { recoveryCodeHash } from '../../../src/features/sso/sso.recovery'
import { type SsoConfigRow, SsoRepo } from '../../../src/features/sso/sso.repo'
import { ssoConfigs } from '../../../src/features/sso/sso.tables'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import type { Store } from '../../../src/platform/db/store'
import type { NotifiedCommits } from '../../../src/platform/db/store.postgres'
import { domainEvents } from '../../../src/platform/events/events.tables'
import { Outbox } from '../../../src/platform/events/outbox'
import { engines, type OpenStore, seedTenants } from '../../helpers/stores'

// SSO enforcement (what accounts asks on every signed-in request and at password sign-in) on SQLite
// and on a real PostgreSQL: enforcement and the session cutoff are read through a memo that sees
// every commit, another process's too; a recovery code is spent once, also by two sign-ins at once,
// with its audit event, and a unit that fails spends none.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123 // ms: past what a 32-bit integer holds
const CALLER = { ip: '203.0.113.5', requestId: 'req_1' }

function config(workspaceId: string, enforce: boolean): SsoConfigRow {
  return {
    workspaceId,
    issuer: 'https://login.example.com',
    clientId: 'engram',
    clientSecret: 'sealed:abc',
    enforce,
    defaultRole: 'member',
    seatCap: null,
    createdAt: T0,
    updatedAt: T0,
  }
}

function policyOn(store: Store): SsoEnforcement {
  const clock = new ManualClock(new Date(T0))
  return new SsoEnforcement({ store, clock, events: new Outbox(store.db, clock, seededRandom(1), store) })
}

async function usedEvents(store: Store): Promise<number> {
  const e = store.table(domainEvents)
  return (await store.db.select({ id: e.id }).from(e).where(eq(e.type, 'auth.recovery_code_used'))).length
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`SSO enforcement on ${engine.name}`, () => {
    async function open(): Promise<{ o: OpenStore; store: Store; repo: SsoRepo }> {
      const o = await engine.open()
      opened.push(o)
      await seedTenants(o.store, { workspaces: ['ws_1', 'ws_2'], plan: 'enterprise', at: T0 })
      await o.store.unit(async () => {
        for (const [id, ws] of [
          ['usr_a', 'ws_1'],
          ['usr_b', 'ws_2'],
          ['usr_c', 'ws_1'],
        ] as const) {
          await o.store.db.insert(o.store.table(users)).values({
            id,
            workspaceId: ws,
            email: `${id}@example.com`,
            name: id,
            role: 'admin',
            createdAt: T0,
            updatedAt: T0,
          })
        }
      })
      return { o, store: o.store, repo: new SsoRepo(o.store) }
    }

    test("enforcement and the cutoff are read until a commit, this process's or another's", async () => {
      const { o, store, repo } = await open()
      const policy = policyOn(store)
      expect(await policy.available()).toBe(false)
      expect(await policy.enforces('ws_1')).toBe(false)
      expect(await policy.sessionEnded('ws_1', 'password', T0 / 1000)).toBe(false)
      await store.unit(async () => {
        await repo.saveConfig(config('ws_1', true))
        await repo.setCutoff('ws_1', T0)
      })
      expect(await policy.available()).toBe(true)
      expect(await policy.enforces('ws_1')).toBe(true)
      expect(await policy.enforces('ws_2')).toBe(false)
      expect(await policy.sessionEnded('ws_1', 'password', T0 / 1000 + 10)).toBe(true)
      expect(await policy.sessionEnded('ws_1', 'sso', 0)).toBe(false)
      expect(await policy.sessionEnded('ws_1', 'recovery_code', 0)).toBe(false)
      // Another process turns enforcement off: sessions signed in before the cutoff stay ended.
      const other = await o.another()
      const told = engine.name === 'postgres' ? (store.commits as NotifiedCommits).next() : Promise.resolve()
      const c = other.store.table(ssoConfigs)
      await other.store.unit(async () => {
        await other.store.db.update(c).set({ enforce: false }).where(eq(c.workspaceId, 'ws_1'))
      })
      await told
      expect(await policy.enforces('ws_1')).toBe(false)
      expect(await policy.sessionEnded('ws_1', 'password', Math.floor(T0 / 1000) - 1)).toBe(true)
      expect(await policy.sessionEnded('ws_1', 'password', Math.ceil(T0 / 1000) + 1)).toBe(false)
    })

    test('a recovery code is spent once, with its event; a unit that fails spends none', async () => {
      const { store, repo } = await open()
      const policy = policyOn(store)
      await store.unit(async () => {
        await repo.saveConfig(config('ws_1', false))
        await repo.replaceRecoveryCodes('ws_1', [
          {
            id: 'rc_1',
            workspaceId: 'ws_1',
            codeHash: recoveryCodeHash('aaaa-bbbb'),
            createdAt: T0,
            usedAt: null,
            usedBy: null,
          },
          {
            id: 'rc_2',
            workspaceId: 'ws_1',
            codeHash: recoveryCodeHash('cccc-dddd'),
            createdAt: T0,
            usedAt: null,
            usedBy: null,
          },
        ])
      })
      expect(await policy.spendRecoveryCode('ws_2', 'usr_b', 'aaaa-bbbb', CALLER)).toBe(false)
      await expect(
        store.unit(async () => {
          expect(await policy.spendRecoveryCode('ws_1', 'usr_a', 'aaaa-bbbb', CALLER)).toBe(true)
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      expect(await usedEvents(store)).toBe(0)
      expect(await policy.spendRecoveryCode('ws_1', 'usr_a', 'AAAA BBBB', CALLER)).toBe(true)
      expect(await policy.spendRecoveryCode('ws_1', 'usr_a', 'aaaa-bbbb', CALLER)).toBe(false)
      expect(await usedEvents(store)).toBe(1)
      expect(await repo.recoveryCodesLeft('ws_1')).toBe(1)
    })

    test('two sign-ins bringing the same code at once (two processes): one is let in', async () => {
      const { o, store, repo } = await open()
      await store.unit(async () => {
        await repo.saveConfig(config('ws_1', false))
        await repo.replaceRecoveryCodes('ws_1', [
          {
            id: 'rc_1',
            workspaceId: 'ws_1',
            codeHash: recoveryCodeHash('aaaa-bbbb'),
            createdAt: T0,
            usedAt: null,
            usedBy: null,
          },
        ])
      })
      // On SQLite a process's units take turns (one store); on PostgreSQL a second pool is a second process.
      const second = engine.name === 'postgres' ? (await o.another()).store : store
      const results = await Promise.all([
        policyOn(store).spendRecoveryCode('ws_1', 'usr_a', 'aaaa-bbbb', CALLER),
        policyOn(second).spendRecoveryCode('ws_1', 'usr_c', 'aaaa-bbbb', CALLER),
      ])
      expect(results.filter(Boolean)).toHaveLength(1)
      expect(await usedEvents(store)).toBe(1)
    })
  })
}
