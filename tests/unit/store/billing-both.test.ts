import { afterEach, describe, expect, test } from 'bun:test'
import { BillingRepo, type SubscriptionMirror } from '../../../src/features/billing/billing.repo'
import type { Store } from '../../../src/platform/db/store'
import { engines, type OpenStore, seedTenants } from '../../helpers/stores'

// Billing's repository on SQLite and on a real PostgreSQL: a mirrored subscription reads back as
// written, a unit that fails links nothing, a workspace is linked to one customer only, and a
// webhook event redelivered after failing is one row that counts its attempts.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123 // ms: past what a 32-bit integer holds

const MIRROR: SubscriptionMirror = {
  subscriptionId: 'sub_1',
  status: 'trialing',
  tier: 'team',
  term: 'year',
  trialEndsAt: T0 + 14 * 86_400_000,
  renewsAt: T0 + 365 * 86_400_000,
  cancelAtPeriodEnd: true,
  pendingTier: 'starter',
  pendingTerm: 'month',
  pendingAt: T0 + 365 * 86_400_000,
  scheduleId: 'sub_sched_1',
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`billing's repository on ${engine.name}`, () => {
    async function open(): Promise<{ store: Store; repo: BillingRepo }> {
      const o = await engine.open()
      opened.push(o)
      const store = o.store
      await seedTenants(store, { workspaces: ['ws_1'], plan: 'free', at: T0 })
      return { store, repo: new BillingRepo(store) }
    }

    test('a linked account and its mirrored subscription read back as written', async () => {
      const { store, repo } = await open()
      await store.unit(() => repo.link('ws_1', 'cus_1', T0))
      await store.unit(async () => {
        await repo.mirror('ws_1', MIRROR, T0 + 5, 1_764_400_001)
        await repo.setOpenCheckout('ws_1', 'cs_1', T0 + 6)
      })
      const expected = {
        workspaceId: 'ws_1',
        customerId: 'cus_1',
        ...MIRROR,
        openCheckoutId: 'cs_1',
        syncedAt: T0 + 5,
        lastEventCreated: 1_764_400_001,
        createdAt: T0,
        updatedAt: T0 + 6,
      }
      expect(await repo.byWorkspace('ws_1')).toEqual(expected)
      expect(await repo.byCustomer('cus_1')).toEqual(expected)
      expect(await repo.byCustomer('cus_2')).toBeUndefined()
    })

    test('a unit that fails after linking leaves no account', async () => {
      const { store, repo } = await open()
      await expect(
        store.unit(async () => {
          await repo.link('ws_1', 'cus_1', T0)
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      expect(await repo.byWorkspace('ws_1')).toBeUndefined()
    })

    test('a workspace is linked to its first customer only; a second link answers the first', async () => {
      const { store, repo } = await open()
      const first = await store.unit(() => repo.link('ws_1', 'cus_1', T0))
      const second = await store.unit(() => repo.link('ws_1', 'cus_2', T0 + 1))
      expect(second).toEqual(first)
      expect(second.customerId).toBe('cus_1')
      expect(await repo.byCustomer('cus_2')).toBeUndefined()
    })

    test('an event redelivered after failing is one row: the last outcome, its attempts counted', async () => {
      const { store, repo } = await open()
      const base = { eventId: 'evt_1', type: 'customer.subscription.updated', receivedAt: T0 }
      await store.unit(() =>
        repo.recordEvent({ ...base, workspaceId: null, outcome: 'failed', error: 'boom' }),
      )
      expect(await repo.event('evt_1')).toEqual({
        ...base,
        workspaceId: null,
        outcome: 'failed',
        error: 'boom',
        attempts: 1,
      })
      await store.unit(() =>
        repo.recordEvent({
          ...base,
          receivedAt: T0 + 9,
          workspaceId: 'ws_1',
          outcome: 'applied',
          error: null,
        }),
      )
      expect(await repo.event('evt_1')).toEqual({
        ...base,
        receivedAt: T0 + 9,
        workspaceId: 'ws_1',
        outcome: 'applied',
        error: null,
        attempts: 2,
      })
      expect(await repo.event('evt_2')).toBeUndefined()
    })
  })
}
