import { afterEach, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import Stripe from 'stripe'
import { BillingEvents } from '../../../src/features/billing/billing.events'
import { BillingRepo } from '../../../src/features/billing/billing.repo'
import { BillingService } from '../../../src/features/billing/billing.service'
import { type StripeEvent, StripeGateway } from '../../../src/features/billing/billing.stripe'
import { DEFAULT_PLANS } from '../../../src/features/plans/plans.defaults'
import { PlansService } from '../../../src/features/plans/plans.service'
import type { WorkspacesService } from '../../../src/features/workspaces/workspaces.service'
import { workspaces } from '../../../src/features/workspaces/workspaces.tables'
import { ManualClock } from '../../../src/platform/clock/clock'
import { cryptoRandom, seededRandom } from '../../../src/platform/crypto/random'
import type { Store } from '../../../src/platform/db/store'
import { ApiError } from '../../../src/platform/errors/errors'
import { Outbox } from '../../../src/platform/events/outbox'
import { SERIAL_WAIT_MS } from '../../../src/platform/leases/leased-queue'
import { NamedLeases } from '../../../src/platform/leases/leases.repo'
import { memoryLogger } from '../../../src/platform/log/log'
import { engines, type OpenStore, outcomeCode, seedTenants } from '../../helpers/stores'
import { type StripeStandin, startStripeStandin } from '../../helpers/stripe-standin'

// Billing's one-at-a-time across processes, on SQLite and on a real PostgreSQL, against the Stripe
// stand-in: two processes' billing (two stores of one database; one store on SQLite) serialize a
// customer's work under the named lease billing.customer:<id> (the second waits for the first);
// a webhook event whose customer another process holds past the wait is answered 409
// `billing_in_progress` with nothing recorded, and applied when Stripe sends it again; work renews
// the lease between steps, and work that lost it writes no mirror; a checkout
// whose workspace another process is checking out is refused the same way before any Stripe call.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
  await stripe?.close()
})

const T0 = Date.parse('2026-03-01T12:00:00Z')
let stripe: StripeStandin | undefined
let clock: ManualClock

/** A Stripe stand-in of the test's own (its customers' idempotency keys are per workspace). */
async function freshStripe(): Promise<StripeStandin> {
  clock = new ManualClock(new Date(T0))
  const seconds = () => Math.floor(clock.now().getTime() / 1000)
  stripe = await startStripeStandin({ now: seconds(), signedAt: seconds })
  stripe.autoDeliver = false
  return stripe
}

/** Workspaces as billing and plans read them, straight from the table (the test's own). */
function workspacesOf(store: Store): WorkspacesService {
  const w = () => store.table(workspaces)
  return {
    get: async (id: string) => (await store.db.select().from(w()).where(eq(w().id, id)))[0],
    setPlan: async (id: string, plan: string) => {
      await store.db.update(w()).set({ plan, updatedAt: T0 }).where(eq(w().id, id))
    },
  } as unknown as WorkspacesService
}

/** One process's billing on `store`; `sleep` is how it waits between tries of a held lease. */
function billingOn(stripe: StripeStandin, store: Store, sleep: (ms: number) => Promise<void>) {
  const gateway = new StripeGateway({
    secretKey: stripe.secretKey,
    webhookSecret: stripe.webhookSecret,
    apiBase: stripe.url,
  })
  const ws = workspacesOf(store)
  const outbox = new Outbox(store.db, clock, seededRandom(1), store)
  const plans = new PlansService({ store, events: outbox, workspaces: ws }, DEFAULT_PLANS, 'free')
  const repo = new BillingRepo(store)
  const base = { store, clock, random: cryptoRandom, repo, plans, gateway, sleep }
  const events = new BillingEvents({ ...base, defaultPlan: 'free' })
  const service = new BillingService({
    ...base,
    log: memoryLogger(),
    legal: { firstUnaccepted: async () => null } as never,
    workspaces: ws,
    events,
    baseUrl: 'https://engram.example.com',
  })
  return { store, gateway, repo, events, service }
}

/** A deferred promise: a gate a test opens. */
function gate() {
  let open = () => {}
  const opened = new Promise<void>((r) => {
    open = r
  })
  return { opened, open }
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`billing across processes on ${engine.name}`, () => {
    /** Two processes' billing; waits in `a` step the clock unless `aSleep` is given. */
    async function open(aSleep?: (ms: number) => Promise<void>) {
      const stripe = await freshStripe()
      const o = await engine.open()
      opened.push(o)
      await seedTenants(o.store, { workspaces: ['ws_1'], plan: 'free', at: T0 })
      // On SQLite one process writes (two connections of one event loop would wait on each other).
      const other = engine.name === 'postgres' ? (await o.another()).store : o.store
      const stepClock = async (ms: number) => void clock.advance(ms)
      const a = billingOn(stripe, o.store, aSleep ?? stepClock)
      const b = billingOn(stripe, other, stepClock)
      return { stripe, a, b, leases: new NamedLeases(other, clock) }
    }

    /** A customer linked to ws_1 with a subscription to team, and the signed event of its creation. */
    async function subscribed(stripe: StripeStandin, a: ReturnType<typeof billingOn>) {
      const customer = await a.gateway.createCustomer('ws_1', 'ws_1')
      await a.store.unit(() => a.repo.link('ws_1', customer, T0))
      const priceId = await a.gateway.priceOf(DEFAULT_PLANS.find((p) => p.id === 'team')!, 'month')
      const session = await a.gateway.checkout({
        customerId: customer,
        workspaceId: 'ws_1',
        priceId,
        tier: 'team',
        term: 'month',
        successUrl: 'https://engram.example.com/ok',
        cancelUrl: 'https://engram.example.com/no',
      })
      const sub = await stripe.completeCheckout(session.id)
      const created = stripe.events.findLast(
        (e) => e.type === 'customer.subscription.created' && e.payload.includes(sub.id),
      )!
      const signature = await Stripe.webhooks.generateTestHeaderStringAsync({
        payload: created.payload,
        secret: stripe.webhookSecret,
        timestamp: Math.floor(clock.now().getTime() / 1000),
      })
      return { customer, sub, payload: created.payload, signature }
    }

    test("a customer's work on one process waits for the other's, then runs", async () => {
      let polls = 0
      const polled = gate()
      const { stripe, a, b } = await open(async () => {
        // A waits without the clock moving: only the other's release lets it go on.
        if (++polls === 3) polled.open()
        await new Promise((r) => setImmediate(r))
      })
      const { customer, payload } = await subscribed(stripe, a)
      const event = JSON.parse(payload) as StripeEvent
      const order: string[] = []
      const holding = gate()
      const release = gate()
      const first = b.events.serial(customer, async () => {
        order.push('b starts')
        holding.open()
        await release.opened
        order.push('b ends')
      })
      await holding.opened
      const applying = a.events.apply(event).then((r) => {
        order.push('a applied')
        return r
      })
      // A tries the held lease again and again; without the lease it would apply at once.
      expect(await Promise.race([polled.opened.then(() => 'waiting'), applying.then(() => 'applied')])).toBe(
        'waiting',
      )
      expect((await a.repo.byWorkspace('ws_1'))?.status).toBeNull()
      release.open()
      await first
      expect(await applying).toEqual({ outcome: 'applied', workspaceId: 'ws_1' })
      expect(order).toEqual(['b starts', 'b ends', 'a applied'])
      expect((await a.repo.byWorkspace('ws_1'))?.status).toBe('active')
    })

    test('an event whose customer another process holds past the wait is 409, unrecorded, then applied when sent again', async () => {
      const { stripe, a, leases } = await open()
      const { customer, sub, payload, signature } = await subscribed(stripe, a)
      const eventId = (JSON.parse(payload) as StripeEvent).id
      expect(await leases.take(`billing.customer:${customer}`, 'proc_other', 60_000)).toBe(true)
      const started = clock.now().getTime()
      const refused = await a.service.receive(new TextEncoder().encode(payload), signature).catch((e) => e)
      expect(refused).toBeInstanceOf(ApiError)
      expect((refused as ApiError).code).toBe('billing_in_progress')
      expect((refused as ApiError).headers).toEqual({ 'retry-after': '1' })
      // It waited the bound on the clock, not longer.
      expect(clock.now().getTime() - started).toBe(SERIAL_WAIT_MS)
      expect(await a.repo.event(eventId)).toBeUndefined()
      expect((await a.repo.byWorkspace('ws_1'))?.subscriptionId).toBeNull()
      await leases.release(`billing.customer:${customer}`, 'proc_other')
      expect(await a.service.receive(new TextEncoder().encode(payload), signature)).toEqual({
        outcome: 'applied',
      })
      expect((await a.repo.event(eventId))?.outcome).toBe('applied')
      expect((await a.repo.byWorkspace('ws_1'))?.subscriptionId).toBe(sub.id)
      // Released after the work: the other process takes the customer at once.
      expect(await leases.take(`billing.customer:${customer}`, 'proc_other', 60_000)).toBe(true)
    })

    test('work renews its lease between steps; one that lost it to another process writes nothing', async () => {
      const { stripe, a, leases } = await open()
      const { customer, sub } = await subscribed(stripe, a)
      const name = `billing.customer:${customer}`
      const account = (await a.repo.byWorkspace('ws_1'))!
      // A slow step (21 s, past a third of the lease): the next one renews it to a minute from now.
      await a.events.serial(customer, async (lease) => {
        clock.advance(21_000)
        await lease.keep()
        expect((await leases.holder(name))?.until).toBe(clock.now().getTime() + 60_000)
      })
      expect(await leases.holder(name)).toBeNull()
      // A step past the whole lease: another process took the customer; the mirror is not written.
      const lost = await a.events
        .serial(customer, async (lease) => {
          clock.advance(60_000)
          expect(await leases.take(name, 'proc_other', 60_000)).toBe(true)
          return a.events.mirror(account, await a.gateway.subscription(sub.id), null, lease)
        })
        .catch((e: Error) => e.name)
      expect(lost).toBe('LeaseLostError')
      expect((await a.repo.byWorkspace('ws_1'))?.subscriptionId).toBeNull()
      // Its release left the other's lease alone.
      expect((await leases.holder(name))?.owner).toBe('proc_other')
    })

    test('a checkout while another process checks the workspace out is 409 before any Stripe call', async () => {
      const { stripe, a, leases } = await open()
      expect(await leases.take('billing.checkout:ws_1', 'proc_other', 60_000)).toBe(true)
      const before = stripe.requests.length
      expect(await outcomeCode(a.service.checkout('ws_1', 'team', 'month', null))).toBe('billing_in_progress')
      expect(stripe.requests.length).toBe(before)
      expect(await a.repo.byWorkspace('ws_1')).toBeUndefined()
      await leases.release('billing.checkout:ws_1', 'proc_other')
      const opened = await a.service.checkout('ws_1', 'team', 'month', null)
      expect(opened.session_id).toMatch(/^cs_/)
      expect((await a.repo.byWorkspace('ws_1'))?.openCheckoutId).toBe(opened.session_id)
    })
  })
}
