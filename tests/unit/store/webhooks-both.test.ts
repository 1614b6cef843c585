import { afterEach, describe, expect, test } from 'bun:test'
import { Deliveries } from '../../../src/features/webhooks/webhooks.deliveries'
import type { Destinations, WebhooksConfig } from '../../../src/features/webhooks/webhooks.destinations'
import { type EndpointRow, WebhooksRepo } from '../../../src/features/webhooks/webhooks.repo'
import type { Outcome, Sender } from '../../../src/features/webhooks/webhooks.sender'
import { WebhooksService } from '../../../src/features/webhooks/webhooks.service'
import { webhooksSubscriber } from '../../../src/features/webhooks/webhooks.subscribers'
import type { Principal } from '../../../src/platform/auth/principal'
import { ManualClock } from '../../../src/platform/clock/clock'
import { seededRandom } from '../../../src/platform/crypto/random'
import { Sealer } from '../../../src/platform/crypto/sealed'
import type { Store } from '../../../src/platform/db/store'
import type { DomainEvent } from '../../../src/platform/events/events'
import { Outbox } from '../../../src/platform/events/outbox'
import type { JobContext } from '../../../src/platform/jobs/handler'
import { JobQueue } from '../../../src/platform/jobs/queue'
import { memoryLogger } from '../../../src/platform/log/log'
import { engines, type OpenStore, seedTenants, sessionAdmin } from '../../helpers/stores'

// Webhooks on the store, on SQLite and on a real PostgreSQL: endpoints, deliveries and attempts read
// back as written; a unit that fails leaves none of them; an event delivered twice is queued once to
// each endpoint that subscribes to it; and an endpoint failing long enough is disabled with its
// pending deliveries ended and `webhook.disabled` published; the delivery jobs are queued and
// cancelled with them, on the same store.

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
const ADMIN: Principal = sessionAdmin()
const CALLER = { ip: '2001:db8::1', requestId: 'req_1' }

function endpoint(id: string, events: string[], over: Partial<EndpointRow> = {}): EndpointRow {
  return {
    id,
    workspaceId: 'ws_1',
    url: `https://hooks.example.com/${id}`,
    description: '',
    events: JSON.stringify(events),
    secretSealed: 'v1.sealed',
    previousSecretSealed: null,
    previousSecretExpiresAt: null,
    enabled: true,
    disabledReason: null,
    disabledAt: null,
    consecutiveFailures: 0,
    failingSince: null,
    lastAt: null,
    lastEventType: null,
    lastAttempt: null,
    lastStatusCode: null,
    lastOk: null,
    createdBy: 'usr_1',
    createdAt: T0,
    ...over,
  }
}

function rig(store: Store, answer: Outcome) {
  const clock = new ManualClock(new Date(T0))
  const random = seededRandom(1)
  const outbox = new Outbox(store.db, clock, random, store)
  const queue = new JobQueue(store.db, clock, random, store)
  const repo = new WebhooksRepo(store)
  const sealer = new Sealer('a test secret', 'engram/webhooks/signing-secret')
  const sent: string[] = []
  const sender = {
    send: async (url: string) => {
      // Outside any unit: the send is never inside one (a unit awaits only the database).
      sent.push(`${url} in unit: ${store.inUnit()}`)
      return answer
    },
  } as unknown as Sender
  const base = { store, clock, random, events: outbox, queue, repo, sealer, config: CONFIG }
  const deliveries = new Deliveries({ ...base, log: memoryLogger(), sender, unit: () => 0.5 })
  const destinations = { check: async () => ['203.0.113.7'] } as unknown as Destinations
  const service = new WebhooksService({ ...base, destinations, deliveries })
  /** The delivery jobs of an endpoint: status and delivery, oldest first. */
  const jobsOf = async (endpointId: string) =>
    (await queue.repo.listBySubject('ws_1', endpointId))
      .reverse()
      .map((j) => [j.kind, j.status, j.payload.deliveryId])
  return { clock, outbox, jobsOf, repo, deliveries, service, sent }
}

/** The job context a scheduler would give a `webhook.deliver` job. */
function jobFor(deliveryId: string): JobContext {
  return { job: { payload: { deliveryId } }, signal: new AbortController().signal } as unknown as JobContext
}

for (const engine of await engines()) {
  describe.skipIf(engine.skip !== null)(`webhooks on ${engine.name}`, () => {
    async function open(): Promise<Store> {
      const o = await engine.open()
      opened.push(o)
      await seedTenants(o.store, { workspaces: ['ws_1'], at: T0 })
      return o.store
    }

    test('endpoints, deliveries and attempts read back as written', async () => {
      const store = await open()
      const { repo } = rig(store, { statusCode: 200, ok: true, error: null, durationMs: 3 })
      const e = endpoint('wh_1', ['document.ready'], { previousSecretExpiresAt: T0 + 1, lastOk: false })
      const d = {
        id: 'msg_1',
        workspaceId: 'ws_1',
        endpointId: 'wh_1',
        eventId: 'evt_1',
        eventType: 'document.ready',
        body: '{"type":"document.ready"}',
        status: 'pending' as const,
        attempts: 0,
        nextAttemptAt: T0,
        lastStatusCode: null,
        lastError: null,
        createdAt: T0,
        updatedAt: T0,
      }
      const a = {
        deliveryId: 'msg_1',
        attempt: 1,
        at: T0 + 2,
        statusCode: 503,
        ok: false,
        error: 'HTTP 503',
        durationMs: 12,
      }
      await store.unit(async () => {
        await repo.insertEndpoint(e)
        expect(await repo.insertDelivery(d)).toBe(true)
        expect(await repo.insertDelivery({ ...d, id: 'msg_2' })).toBe(false) // same event and endpoint
        await repo.recordAttempt(a, { attempts: 1, lastStatusCode: 503, lastError: 'HTTP 503' })
      })
      expect(await repo.findEndpoint('ws_1', 'wh_1')).toEqual(e)
      expect(await repo.findEndpoint('ws_2', 'wh_1')).toBeUndefined()
      expect(await repo.delivery('msg_1')).toEqual({
        delivery: { ...d, attempts: 1, lastStatusCode: 503, lastError: 'HTTP 503' },
        endpoint: e,
      })
      expect(await repo.attemptsOf(['msg_1'])).toEqual([a])
      expect(await repo.countDeliveries('wh_1')).toBe(1)
      expect(await repo.enabledEndpoints('ws_1')).toEqual([e])
      // Oldest first, then by id, whatever order they were written in.
      await store.unit(async () => {
        await repo.insertEndpoint(endpoint('wh_4', ['document.ready'], { createdAt: T0 + 5 }))
        await repo.insertEndpoint(endpoint('wh_3', ['document.ready'], { createdAt: T0 + 5 }))
        await repo.insertEndpoint(endpoint('wh_2', ['document.ready'], { createdAt: T0 - 1 }))
      })
      expect((await repo.enabledEndpoints('ws_1')).map((r) => r.id)).toEqual(['wh_2', 'wh_1', 'wh_3', 'wh_4'])
    })

    test('a unit that fails leaves no endpoint, delivery, job or event; a delete cancels its jobs', async () => {
      const store = await open()
      const { service, outbox, repo, jobsOf } = rig(store, {
        statusCode: 200,
        ok: true,
        error: null,
        durationMs: 3,
      })
      const body = { url: 'https://hooks.example.com/a', events: ['document.ready' as const] }
      let lost = ''
      await expect(
        store.unit(async () => {
          lost = (await service.create(ADMIN, body, CALLER)).id
          await service.sendTest('ws_1', lost)
          throw new Error('refused')
        }),
      ).rejects.toThrow('refused')
      expect(await repo.countEndpoints('ws_1')).toBe(0)
      expect(await jobsOf(lost)).toEqual([])
      expect(await outbox.pending()).toEqual([])
      const made = await service.create(ADMIN, body, CALLER)
      expect((await service.list('ws_1', null)).items.map((r) => r.id)).toEqual([made.id])
      const { delivery_id: id } = await service.sendTest('ws_1', made.id)
      expect(await jobsOf(made.id)).toEqual([['webhook.deliver', 'pending', id]])
      await service.remove(ADMIN, made.id, CALLER)
      expect(await repo.countEndpoints('ws_1')).toBe(0)
      expect(await repo.hasDelivery(id)).toBe(false)
      expect(await jobsOf(made.id)).toEqual([['webhook.deliver', 'canceled', id]])
      expect((await outbox.pending()).map((e) => e.type)).toEqual(['webhook.created', 'webhook.deleted'])
    })

    test('an event delivered twice is queued once to each endpoint that subscribes to it', async () => {
      const store = await open()
      const { service, repo, jobsOf } = rig(store, { statusCode: 200, ok: true, error: null, durationMs: 3 })
      await store.unit(async () => {
        await repo.insertEndpoint(endpoint('wh_1', ['document.ready']))
        await repo.insertEndpoint(endpoint('wh_2', ['document.failed'], { createdAt: T0 + 1 }))
        await repo.insertEndpoint(endpoint('wh_3', ['document.ready'], { enabled: false, createdAt: T0 + 2 }))
      })
      const event: DomainEvent<'document.ready'> = {
        id: 'evt_1',
        type: 'document.ready',
        workspaceId: 'ws_1',
        occurredAt: T0,
        payload: { corpusId: 'cor_1', documentId: 'doc_1' },
      } as DomainEvent<'document.ready'>
      const sub = webhooksSubscriber(repo, service)
      // Asked first, outside a unit: it takes document.ready (wh_1), not document.deleted (wh_2 is
      // for document.failed, wh_3 disabled), nor an event of a workspace without an endpoint.
      expect(await sub.takes!(event)).toBe(true)
      expect(await sub.takes!({ ...event, type: 'document.deleted' } as never)).toBe(false)
      expect(await sub.takes!({ ...event, workspaceId: 'ws_2' })).toBe(false)
      // As the dispatcher runs a transactional subscriber: in a unit, once per delivery.
      await store.unit(async () => sub.handle(event))
      await store.unit(async () => sub.handle(event))
      const made = await repo.listDeliveries('wh_1', null, null)
      expect(made.map((d) => [d.eventId, d.status])).toEqual([['evt_1', 'pending']])
      expect(await jobsOf('wh_1')).toEqual([['webhook.deliver', 'pending', made[0]!.id]])
      expect(await repo.countDeliveries('wh_2')).toBe(0)
      expect(await repo.countDeliveries('wh_3')).toBe(0)
    })

    test('an endpoint failing long enough is disabled, its pending deliveries ended, and webhook.disabled told', async () => {
      const store = await open()
      const failing = { statusCode: 500, ok: false, error: 'HTTP 500', durationMs: 3 }
      const { clock, service, repo, deliveries, outbox, sent } = rig(store, failing)
      const url = 'https://hooks.example.com/wh'
      const made = await service.create(ADMIN, { url, events: ['document.ready'] }, CALLER)
      const { delivery_id: id } = await service.sendTest('ws_1', made.id)
      const run = deliveries.job().run
      await expect(run(jobFor(id))).rejects.toThrow('HTTP 500') // retried later
      clock.advance(5_000)
      expect(await run(jobFor(id))).toEqual({ status: 'failed', attempt: 2 })
      expect(sent).toEqual([`${url} in unit: false`, `${url} in unit: false`])
      const e = (await repo.findEndpoint('ws_1', made.id))!
      expect([
        e.enabled,
        e.disabledReason,
        e.consecutiveFailures,
        e.failingSince,
        e.lastStatusCode,
        e.lastOk,
      ]).toEqual([false, 'failures', 2, T0, 500, false])
      expect((await repo.findDelivery(made.id, id))?.status).toBe('failed')
      expect((await repo.attemptsOf([id])).map((a) => [a.attempt, a.ok])).toEqual([
        [1, false],
        [2, false],
      ])
      expect((await outbox.pending()).map((ev) => ev.type)).toEqual(['webhook.created', 'webhook.disabled'])
    })
  })
}
