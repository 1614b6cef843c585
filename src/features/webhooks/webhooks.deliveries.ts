// Deliveries as durable jobs: a delivery is a row and a `webhook.deliver` job made in one
// unit of work, so it survives a restart (a job a dead process held is resumed, its message sent
// again with the same webhook-id). A failed attempt is retried on a fixed schedule of about a day,
// each wait jittered; an endpoint failing for long enough is disabled. The HTTP send is never inside
// a unit: the delivery is read before it and the attempt recorded in a unit after it.
import type { Clock } from '../../platform/clock/clock'
import type { Sealer } from '../../platform/crypto/sealed'
import type { Store } from '../../platform/db/store'
import type { Outbox } from '../../platform/events/outbox'
import type { JobDefinition } from '../../platform/feature/feature'
import { type JobContext, TransientError } from '../../platform/jobs/handler'
import type { JobQueue } from '../../platform/jobs/queue'
import type { Logger } from '../../platform/log/log'
import type { WebhooksConfig } from './webhooks.destinations'
import type { AttemptRow, DeliveryRow, EndpointRow, WebhooksRepo } from './webhooks.repo'
import type { Sender } from './webhooks.sender'

export const DELIVER_KIND = 'webhook.deliver'

/**
 * The wait after each failed attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, so eight attempts
 * over about 27 hours (the schedule receivers of Standard Webhooks senders expect).
 */
export const RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1

/** Each wait is moved by up to this share either way, so failed deliveries do not retry in step. */
const JITTER = 0.1

export interface DeliveryDeps {
  store: Store
  clock: Clock
  log: Logger
  queue: JobQueue
  events: Outbox
  repo: WebhooksRepo
  sealer: Sealer
  sender: Sender
  config: WebhooksConfig
  /** A number in [0, 1) from the injected randomness (jitter). */
  unit: () => number
}

/** Makes deliveries and runs their attempts. */
export class Deliveries {
  constructor(private readonly d: DeliveryDeps) {}

  /**
   * Queues `body` to an endpoint; called inside the caller's unit. Returns false when the event was
   * already queued to it (a redelivered domain event).
   */
  async queue(
    e: EndpointRow,
    delivery: Omit<
      DeliveryRow,
      'status' | 'attempts' | 'nextAttemptAt' | 'lastStatusCode' | 'lastError' | 'updatedAt'
    >,
  ): Promise<boolean> {
    const now = this.d.clock.now().getTime()
    const row: DeliveryRow = {
      ...delivery,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      lastStatusCode: null,
      lastError: null,
      updatedAt: now,
    }
    if (!(await this.d.repo.insertDelivery(row))) return false
    await this.enqueue(e, row.id)
    return true
  }

  /**
   * Sends an ended delivery again (same webhook-id and body); called inside the caller's unit. Its
   * attempts go on from its count: the schedule's remaining retries, or a single
   * attempt when it had used them all. False when it is pending already.
   */
  async retry(e: EndpointRow, d: DeliveryRow): Promise<boolean> {
    if (!(await this.d.repo.reopen(d.id, this.now()))) return false
    await this.enqueue(e, d.id)
    return true
  }

  /** The delivery's job, in the caller's unit. */
  private async enqueue(e: EndpointRow, deliveryId: string): Promise<void> {
    await this.d.queue.add({
      workspaceId: e.workspaceId,
      kind: DELIVER_KIND,
      subjectId: e.id,
      payload: { deliveryId },
      // The delivery counts its own attempts; these leave room for leases lost to restarts.
      maxAttempts: MAX_ATTEMPTS * 2,
    })
  }

  /** The job kind: one attempt per run, a retry scheduled by throwing TransientError with its wait. */
  job(): JobDefinition {
    return { kind: DELIVER_KIND, run: (ctx) => this.run(ctx) }
  }

  private async run(ctx: JobContext): Promise<unknown> {
    const found = await this.d.repo.delivery(String(ctx.job.payload.deliveryId))
    // Its endpoint was deleted (the delivery with it), or it ended while this job waited.
    if (!found) return { skipped: 'deleted' }
    const { delivery, endpoint } = found
    if (delivery.status !== 'pending') return { skipped: delivery.status }
    if (!endpoint.enabled) {
      await this.d.store.unit(() =>
        this.d.repo.failPending(endpoint.id, 'The endpoint is disabled.', this.now()),
      )
      return { skipped: 'disabled' }
    }
    const at = this.d.clock.now()
    const outcome = await this.d.sender.send(
      endpoint.url,
      this.secretsOf(endpoint, at.getTime()),
      { id: delivery.id, at, body: delivery.body },
      ctx.signal,
    )
    const attempt: AttemptRow = {
      deliveryId: delivery.id,
      attempt: delivery.attempts + 1,
      at: at.getTime(),
      ...outcome,
    }
    const { status, wait, disabled } = await this.settle(endpoint, delivery, attempt)
    if (!outcome.ok) {
      this.d.log.info('webhook delivery attempt failed', {
        delivery_id: delivery.id,
        webhook_id: endpoint.id,
        attempt: attempt.attempt,
        status_code: outcome.statusCode,
        error: outcome.error,
        ...(disabled ? { endpoint_disabled: true } : {}),
      })
    }
    if (status === 'pending' && wait !== null) throw new TransientError(outcome.error ?? 'failed', wait)
    return { status, attempt: attempt.attempt }
  }

  /** The secrets a message is signed with now: the endpoint's, and the one it replaced while that still signs. */
  private secretsOf(e: EndpointRow, now: number): string[] {
    const secrets = [this.d.sealer.open(e.secretSealed, e.id)]
    if (e.previousSecretSealed && (e.previousSecretExpiresAt ?? 0) > now) {
      secrets.push(this.d.sealer.open(e.previousSecretSealed, e.id))
    }
    return secrets
  }

  /** Records an attempt, its delivery's new state and its endpoint's, in one unit. */
  private settle(e: EndpointRow, d: DeliveryRow, a: AttemptRow) {
    const last = a.attempt >= MAX_ATTEMPTS
    const wait = a.ok || last ? null : this.wait(a.attempt)
    const status = a.ok ? 'succeeded' : last ? 'failed' : 'pending'
    return this.d.store.unit(async () => {
      // The endpoint was deleted while the attempt was out: nothing is left to record it on.
      if (!(await this.d.repo.hasDelivery(d.id))) return { status: 'deleted', wait: null, disabled: false }
      await this.d.repo.recordAttempt(a, {
        attempts: a.attempt,
        status,
        nextAttemptAt: wait === null ? null : a.at + wait,
        lastStatusCode: a.statusCode,
        lastError: a.error,
        updatedAt: a.at,
      })
      const after = await this.d.repo.noteAttempt(e, d, a)
      const disabled = !a.ok && this.failingTooLong(after, a.at) && (await this.disable(after, a.at))
      return { status: disabled ? 'failed' : status, wait, disabled }
    })
  }

  /** The run of failures has reached the count, over the time, the operator set. */
  private failingTooLong(e: EndpointRow, now: number): boolean {
    const { disable_after_failures: count, disable_after_hours: hours } = this.d.config
    return e.consecutiveFailures >= count && now - (e.failingSince ?? now) >= hours * 3_600_000
  }

  /** Disables an endpoint for its failures, ends its pending deliveries, and tells the audit log. */
  private async disable(e: EndpointRow, now: number): Promise<boolean> {
    if (!(await this.d.repo.disable(e.id, 'failures', now))) return false
    await this.d.repo.failPending(e.id, 'The endpoint was disabled after failing deliveries.', now)
    await this.d.events.publish({
      type: 'webhook.disabled',
      workspaceId: e.workspaceId,
      payload: {
        actor: { type: 'system', id: null },
        target: { type: 'webhook', id: e.id },
        details: { url: e.url, reason: 'failures', consecutive_failures: e.consecutiveFailures },
      },
    })
    return true
  }

  /** The wait after failed attempt `n` (1-based), jittered. */
  private wait(n: number): number {
    const base = RETRY_SCHEDULE_MS[Math.min(n, RETRY_SCHEDULE_MS.length) - 1]!
    return Math.round(base * (1 - JITTER + 2 * JITTER * this.d.unit()))
  }

  private now(): number {
    return this.d.clock.now().getTime()
  }
}
