import type { Static } from '@sinclair/typebox'
import type { Actor, Principal } from '../../platform/auth/principal'
import { actorOf } from '../../platform/auth/principal'
import { type Clock, iso } from '../../platform/clock/clock'
import { newId, type Random } from '../../platform/crypto/random'
import type { Sealer } from '../../platform/crypto/sealed'
import { holdInUnit } from '../../platform/db/hold'
import type { Store } from '../../platform/db/store'
import { fail, notFound, validationFailed } from '../../platform/errors/errors'
import type { Outbox } from '../../platform/events/outbox'
import type { JobQueue } from '../../platform/jobs/queue'
import { EgressDenied } from '../../platform/net/egress'
import { keysetPage, type ListResult, type PageRequest } from '../../platform/paging/paging'
import type { Deliveries } from './webhooks.deliveries'
import { type Destinations, urlProblem, type WebhooksConfig } from './webhooks.destinations'
import { TEST_EVENT_TYPE } from './webhooks.events'
import type { AttemptRow, DeliveryRow, EndpointRow, WebhooksRepo } from './webhooks.repo'
import {
  deliveryResp,
  type WebhookCreatedResp,
  type WebhookCreateReq,
  type WebhookDeliveryResp,
  type WebhookResp,
  type WebhookTestResp,
  webhookResp,
} from './webhooks.schemas'

type Resp = Static<typeof WebhookResp>

/** Endpoints one workspace may have. */
export const MAX_ENDPOINTS = 20
/** How long a rotated-out secret keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000
/** Random bytes of a signing secret (Standard Webhooks asks for 24 to 64). */
const SECRET_BYTES = 32

/** Where a request came from, for the audit trail. */
export interface Caller {
  ip: string
  requestId: string
}

export interface WebhooksServiceDeps {
  store: Store
  clock: Clock
  random: Random
  events: Outbox
  queue: JobQueue
  repo: WebhooksRepo
  sealer: Sealer
  destinations: Destinations
  deliveries: Deliveries
  config: WebhooksConfig
}

/** The endpoint changes told to the audit log (the system's `webhook.disabled` is told by deliveries). */
type EndpointChange = 'webhook.created' | 'webhook.deleted' | 'webhook.enabled' | 'webhook.secret_rotated'

/**
 * A workspace's webhook endpoints: subscribe (secret shown once), list, delete, enable, test. Each
 * change is one unit of work on the store with the event that tells of it and the jobs it queues
 * or cancels.
 */
export class WebhooksService {
  constructor(private readonly d: WebhooksServiceDeps) {}

  /** `POST /v1/webhooks`: the URL is judged now (and again at every delivery). */
  async create(
    p: Principal,
    body: Static<typeof WebhookCreateReq>,
    caller: Caller,
  ): Promise<Static<typeof WebhookCreatedResp>> {
    const problem = urlProblem(body.url.trim(), this.d.config.allow_http)
    if (problem) throw validationFailed([{ loc: ['body', 'url'], msg: problem, type: 'value_error' }])
    // Kept as the parser reads it (host in lower case and punycode, default port dropped): what is shown is what is reached.
    const url = new URL(body.url.trim()).href
    const twice = body.events.findIndex((x, i) => body.events.indexOf(x) !== i)
    if (twice >= 0) {
      const msg = `${body.events[twice]} is listed twice`
      throw validationFailed([{ loc: ['body', 'events', twice], msg, type: 'value_error' }])
    }
    try {
      await this.d.destinations.check(url)
    } catch (e) {
      if (e instanceof EgressDenied) throw fail('egress_denied', e.message)
      throw e
    }
    const id = newId(this.d.random, 'wh')
    const secret = this.newSecret()
    const row: EndpointRow = {
      id,
      workspaceId: p.workspaceId,
      url,
      description: (body.description ?? '').trim(),
      events: JSON.stringify(body.events),
      secretSealed: this.d.sealer.seal(secret, id),
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
      createdBy: p.userId ?? p.keyId,
      createdAt: this.now(),
    }
    // Counted and inserted in one unit holding the workspace's endpoints (an advisory lock on
    // PostgreSQL, where two creates at the limit would otherwise both count 19; SQLite's one writer).
    await this.d.store.unit(async () => {
      await holdInUnit(this.d.store, `webhooks:${p.workspaceId}`)
      if ((await this.d.repo.countEndpoints(p.workspaceId)) >= MAX_ENDPOINTS) {
        throw fail(
          'webhook_limit_reached',
          `A workspace may have at most ${MAX_ENDPOINTS} webhook endpoints.`,
        )
      }
      await this.d.repo.insertEndpoint(row)
      await this.told('webhook.created', row, actorOf(p, caller.ip, caller.requestId), {
        events: body.events,
      })
    })
    return { ...webhookResp(row), secret }
  }

  /** `GET /v1/webhooks`: newest first. */
  async list(workspaceId: string, page: PageRequest | null): Promise<ListResult<Resp>> {
    const total = await this.d.repo.countEndpoints(workspaceId)
    const rows = await this.d.repo.listEndpoints(
      workspaceId,
      page?.after ?? null,
      page ? page.limit + 1 : null,
    )
    return keysetPage(rows, page?.limit ?? rows.length, (r) => [r.createdAt, r.id], webhookResp, total)
  }

  /** One endpoint; another workspace's answers 404 like a missing one. */
  async get(workspaceId: string, id: string): Promise<Resp> {
    return webhookResp(await this.find(workspaceId, id))
  }

  /** Deletes an endpoint (the webhooks route's DELETE): the endpoint, its deliveries and their attempts; queued ones stop. */
  async remove(p: Principal, id: string, caller: Caller): Promise<void> {
    await this.d.store.unit(async () => {
      const e = await this.find(p.workspaceId, id)
      await this.d.repo.deleteEndpoint(p.workspaceId, id)
      await this.d.queue.repo.cancelSubject(p.workspaceId, id)
      await this.told('webhook.deleted', e, actorOf(p, caller.ip, caller.requestId))
    })
  }

  /** `POST /v1/webhooks/{id}/enable`: a disabled endpoint receives again (new events only). */
  enable(p: Principal, id: string, caller: Caller): Promise<Resp> {
    return this.d.store.unit(async () => {
      const e = await this.find(p.workspaceId, id)
      if (await this.d.repo.enable(e.id)) {
        await this.told('webhook.enabled', e, actorOf(p, caller.ip, caller.requestId))
      }
      return webhookResp(await this.find(p.workspaceId, id))
    })
  }

  /**
   * `POST /v1/webhooks/{id}/rotate-secret`: a new secret, shown this once. The one it replaces keeps
   * signing beside it for ROTATION_OVERLAP_MS, so the receiver can take the new one in its own time;
   * a secret replaced before that stops at once.
   */
  rotateSecret(p: Principal, id: string, caller: Caller): Promise<Static<typeof WebhookCreatedResp>> {
    const secret = this.newSecret()
    const until = this.now() + ROTATION_OVERLAP_MS
    return this.d.store.unit(async () => {
      const e = await this.find(p.workspaceId, id)
      await this.d.repo.rotate(e, this.d.sealer.seal(secret, e.id), until)
      const expires = { previous_secret_expires_at: iso(new Date(until)) }
      await this.told('webhook.secret_rotated', e, actorOf(p, caller.ip, caller.requestId), expires)
      return { ...webhookResp(await this.find(p.workspaceId, id)), secret }
    })
  }

  /** `POST /v1/webhooks/{id}/test`: queues a `webhook.test` delivery, whatever the endpoint subscribes to. */
  sendTest(workspaceId: string, id: string): Promise<Static<typeof WebhookTestResp>> {
    return this.d.store.unit(async () => {
      const e = await this.find(workspaceId, id)
      if (!e.enabled) throw fail('webhook_disabled')
      const deliveryId = await this.send(e, null, TEST_EVENT_TYPE, {
        webhook_id: e.id,
        message: 'A test event from Engram.',
      })
      return { delivery_id: deliveryId, event_type: TEST_EVENT_TYPE, status: 'pending' }
    })
  }

  /** Queues an event to an endpoint, in the caller's unit; returns the delivery id (the `webhook-id`). */
  async send(
    e: EndpointRow,
    eventId: string | null,
    type: string,
    data: object,
    at = this.now(),
  ): Promise<string> {
    const id = newId(this.d.random, 'msg')
    const body = JSON.stringify({ type, timestamp: iso(new Date(at)), data })
    const created = this.now()
    await this.d.deliveries.queue(e, {
      id,
      workspaceId: e.workspaceId,
      endpointId: e.id,
      eventId,
      eventType: type,
      body,
      createdAt: created,
    })
    return id
  }

  /**
   * `POST /v1/webhooks/{id}/deliveries/{delivery_id}/retry`: an ended delivery (failed, or one to
   * send again) is queued once more, with its webhook-id and body.
   */
  retryDelivery(
    workspaceId: string,
    id: string,
    deliveryId: string,
  ): Promise<Static<typeof WebhookDeliveryResp>> {
    return this.d.store.unit(async () => {
      const e = await this.find(workspaceId, id)
      const d = await this.d.repo.findDelivery(e.id, deliveryId)
      if (!d) throw notFound('Delivery')
      if (!e.enabled) throw fail('webhook_disabled')
      if (!(await this.d.deliveries.retry(e, d))) {
        throw fail('conflict', 'The delivery is still pending: it is retried by itself.')
      }
      const attempts = await this.d.repo.attemptsOf([d.id])
      return deliveryResp((await this.d.repo.findDelivery(e.id, deliveryId))!, attempts)
    })
  }

  /** `GET /v1/webhooks/{id}/deliveries`: newest first, each with its attempts. */
  async deliveries(
    workspaceId: string,
    id: string,
    page: PageRequest | null,
  ): Promise<ListResult<Static<typeof WebhookDeliveryResp>>> {
    const e = await this.find(workspaceId, id)
    const total = await this.d.repo.countDeliveries(e.id)
    const rows = await this.d.repo.listDeliveries(e.id, page?.after ?? null, page ? page.limit + 1 : null)
    const shown = page ? rows.slice(0, page.limit) : rows
    const attempts = new Map<string, AttemptRow[]>()
    for (const a of await this.d.repo.attemptsOf(shown.map((r) => r.id))) {
      attempts.set(a.deliveryId, [...(attempts.get(a.deliveryId) ?? []), a])
    }
    const resp = (r: DeliveryRow) => deliveryResp(r, attempts.get(r.id) ?? [])
    return keysetPage(rows, page?.limit ?? rows.length, (r) => [r.createdAt, r.id], resp, total)
  }

  /** `whsec_` + base64 of SECRET_BYTES random bytes, the form Standard Webhooks libraries take. */
  private newSecret(): string {
    return `whsec_${Buffer.from(this.d.random.bytes(SECRET_BYTES)).toString('base64')}`
  }

  private async find(workspaceId: string, id: string): Promise<EndpointRow> {
    const e = await this.d.repo.findEndpoint(workspaceId, id)
    if (!e) throw notFound('Webhook')
    return e
  }

  /** Publishes an endpoint change for the audit log, in the caller's unit. */
  private async told(
    type: EndpointChange,
    e: EndpointRow,
    actor: Actor,
    extra: Record<string, unknown> = {},
  ) {
    await this.d.events.publish({
      type,
      workspaceId: e.workspaceId,
      payload: { actor, target: { type: 'webhook', id: e.id }, details: { url: e.url, ...extra } },
    })
  }

  private now(): number {
    return this.d.clock.now().getTime()
  }
}
