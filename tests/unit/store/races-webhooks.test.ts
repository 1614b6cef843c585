import { afterEach, describe, expect, test } from 'bun:test'
import { Deliveries } from '../../../src/features/webhooks/webhooks.deliveries'
import type { Destinations, WebhooksConfig } from '../../../src/features/webhooks/webhooks.destinations'
import { WebhooksRepo } from '../../../src/features/webhooks/webhooks.repo'
import type { Sender } from '../../../src/features/webhooks/webhooks.sender'
import { MAX_ENDPOINTS, WebhooksService } from '../../../src/features/webhooks/webhooks.service'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import { Sealer } from '../../../src/platform/crypto/sealed'
import type { Store } from '../../../src/platform/db/store'
import { Outbox } from '../../../src/platform/events/outbox'
import { JobQueue } from '../../../src/platform/jobs/queue'
import { memoryLogger } from '../../../src/platform/log/log'
import { engines, type OpenStore, outcomeCode, seedTenants, sessionAdmin } from '../../helpers/stores'

// A workspace's webhook endpoints are capped (MAX_ENDPOINTS) on SQLite and on a real PostgreSQL,
// however many creations race at the cap from two processes: the count and the insert run with the
// workspace's endpoints held, so of creations made at once with one place left, one takes it.

const opened: OpenStore[] = []
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close()
})

const T0 = 1_764_400_000_123 // ms: past what a 32-bit integer holds
const CONFIG: WebhooksConfig = {
  allow_http: false,
  allow_private_networks: false,
  allow_loopback: false,
  timeout_ms: 1000,
  disable_after_failures: 2,
  disable_after_hours: 0,
}
const CALLER = { ip: '2001:db8::1', requestId: 'req_1' }

/** The webhooks service as a process has it on `store`; nothing is sent (no delivery runs here). */
function serviceOn(store: Store, seed: number): WebhooksService {
  const clock = new ManualClock(new Date(T0))
  const random = seededRandom(seed)
  const base = {
    store,
    clock,
    random,
    events: new Outbox(store.db, clock, random, store),
    queue: new JobQueue(store.db, clock, random, store),
    repo: new WebhooksRepo(store),
    sealer: new Sealer('a test secret', 'engram/webhooks/signing-secret'),
    config: CONFIG,
  }
  const sender = { send: async () => ({ statusCode: 200, ok: true, error: null, durationMs: 1 }) }
  const deliveries = new Deliveries({
    ...base,
    log: memoryLogger(),
    sender: sender as unknown as Sender,
    unit: () => 0.5,
  })
  const destinations = { check: async () => ['203.0.113.7'] } as unknown as Destinations
  return new WebhooksService({ ...base, destinations, deliveries })
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`the webhook endpoint cap racing on ${engine.name}`, () => {
    test('of four creations at once with one place left, from two processes, one takes it', async () => {
      const o = await engine.open()
      opened.push(o)
      await seedTenants(o.store, { workspaces: ['ws_1'], at: T0 })
      const a = serviceOn(o.store, 1)
      // On SQLite a process's units take turns (one store); on PostgreSQL a second pool is a second process.
      const b = serviceOn(engine.name === 'postgres' ? (await o.another()).store : o.store, 2)
      const create = (s: WebhooksService, i: number) =>
        s.create(
          sessionAdmin(),
          { url: `https://hooks.example.com/${i}`, events: ['document.ready'] },
          CALLER,
        )
      for (let i = 0; i < MAX_ENDPOINTS - 1; i++) await create(a, i)
      const codes = await Promise.all([
        outcomeCode(create(a, 100)),
        outcomeCode(create(b, 101)),
        outcomeCode(create(a, 102)),
        outcomeCode(create(b, 103)),
      ])
      expect([...codes].sort()).toEqual([
        'ok',
        'webhook_limit_reached',
        'webhook_limit_reached',
        'webhook_limit_reached',
      ])
      expect(await new WebhooksRepo(o.store).countEndpoints('ws_1')).toBe(MAX_ENDPOINTS)
      const created = (
        await new Outbox(o.store.db, new ManualClock(new Date(T0)), seededRandom(3), o.store).pending()
      ).filter((e) => e.type === 'webhook.created')
      expect(created.length).toBe(MAX_ENDPOINTS)
    })
  })
}
