import { type Static, Type } from '@sinclair/typebox'
import { iso } from '../../platform/clock/clock'
import { namedObject } from '../../platform/http/schema'
import { TextString } from '../../platform/http/text-formats'
import { TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from './webhooks.events'
import type { AttemptRow, DeliveryRow, EndpointRow } from './webhooks.repo'

/** Longest endpoint URL accepted. */
export const MAX_URL_CHARS = 2048

export const WebhookIdParams = Type.Object({ webhook_id: Type.String({ maxLength: 64 }) })
export const DeliveryIdParams = Type.Object({
  webhook_id: Type.String({ maxLength: 64 }),
  delivery_id: Type.String({ maxLength: 64 }),
})

const EventType = Type.Union(
  WEBHOOK_EVENT_TYPES.map((t) => Type.Literal(t)),
  { description: 'A webhook event type.' },
)

export const WebhookCreateReq = namedObject('WebhookCreateReq', {
  url: Type.String({
    minLength: 1,
    maxLength: MAX_URL_CHARS,
    description:
      'Where deliveries are POSTed: https (http only when the operator allows it), no user name or password, no fragment. Checked against the outbound rules now and at every delivery.',
  }),
  events: Type.Array(EventType, {
    minItems: 1,
    maxItems: WEBHOOK_EVENT_TYPES.length,
    description: 'The event types delivered to it; at least one, each once.',
  }),
  description: Type.Optional(TextString({ maxLength: 500 })),
})

const Time = Type.String({ format: 'date-time' })

export const LastDelivery = namedObject('WebhookLastDelivery', {
  at: Time,
  event_type: Type.String(),
  attempt: Type.Integer({
    minimum: 1,
    description: 'Which attempt of its delivery it was (1 is the first).',
  }),
  status_code: Type.Union([Type.Integer(), Type.Null()], {
    description: "The receiver's HTTP status; null when none came (a timeout, a refused address).",
  }),
  ok: Type.Boolean({ description: 'A 2xx answer.' }),
})

const endpointFields = {
  id: Type.String(),
  url: Type.String(),
  description: Type.String(),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  disabled_reason: Type.Union([Type.Literal('failures'), Type.Null()], {
    description: '`failures`: disabled after a run of failed deliveries; null while enabled.',
  }),
  disabled_at: Type.Union([Time, Type.Null()]),
  consecutive_failures: Type.Integer({ minimum: 0 }),
  previous_secret_expires_at: Type.Union([Time, Type.Null()], {
    description:
      'After a rotation, until when deliveries are also signed with the secret it replaced; null when none is.',
  }),
  last_delivery: Type.Union([LastDelivery, Type.Null()], {
    description: 'The last attempt made to the endpoint, of any delivery; null before the first.',
  }),
  created_at: Time,
}

/** An endpoint as listed; the secret is never part of it. */
export const WebhookResp = namedObject('WebhookResp', endpointFields)

/** The create response: the endpoint plus its signing secret, shown this once. */
export const WebhookCreatedResp = namedObject('WebhookCreatedResp', {
  ...endpointFields,
  secret: Type.String({
    description:
      'The signing secret (`whsec_` + base64), for verifying `webhook-signature` per Standard Webhooks. Shown only here; kept encrypted.',
  }),
})

export const WebhookAttemptResp = namedObject('WebhookAttemptResp', {
  attempt: Type.Integer({ minimum: 1 }),
  at: Time,
  status_code: Type.Union([Type.Integer(), Type.Null()]),
  ok: Type.Boolean(),
  error: Type.Union([Type.String(), Type.Null()]),
  duration_ms: Type.Integer({ minimum: 0 }),
})

export const WebhookDeliveryResp = namedObject('WebhookDeliveryResp', {
  id: Type.String({ description: 'The `webhook-id` header: the same on every attempt.' }),
  event_type: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
  attempts: Type.Array(WebhookAttemptResp),
  next_attempt_at: Type.Union([Time, Type.Null()], { description: 'When a pending delivery is tried next.' }),
  created_at: Time,
})

/** What a test send answers: the delivery queued (follow it in the endpoint's deliveries). */
export const WebhookTestResp = namedObject('WebhookTestResp', {
  delivery_id: Type.String(),
  event_type: Type.Literal(TEST_EVENT_TYPE),
  status: Type.Literal('pending'),
})

const t = (ms: number | null) => (ms === null ? null : iso(new Date(ms)))

/** The wire form of an endpoint (never its secret). */
export function webhookResp(e: EndpointRow): Static<typeof WebhookResp> {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    events: JSON.parse(e.events) as string[],
    enabled: e.enabled,
    disabled_reason: e.disabledReason === 'failures' ? 'failures' : null,
    disabled_at: t(e.disabledAt),
    consecutive_failures: e.consecutiveFailures,
    previous_secret_expires_at:
      e.previousSecretSealed && e.previousSecretExpiresAt !== null
        ? iso(new Date(e.previousSecretExpiresAt))
        : null,
    last_delivery:
      e.lastAt === null
        ? null
        : {
            at: iso(new Date(e.lastAt)),
            event_type: e.lastEventType ?? '',
            attempt: e.lastAttempt ?? 1,
            status_code: e.lastStatusCode,
            ok: e.lastOk === true,
          },
    created_at: iso(new Date(e.createdAt)),
  }
}

/** The wire form of a delivery with its attempts. */
export function deliveryResp(r: DeliveryRow, attempts: AttemptRow[]): Static<typeof WebhookDeliveryResp> {
  return {
    id: r.id,
    event_type: r.eventType,
    status: r.status,
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      at: iso(new Date(a.at)),
      status_code: a.statusCode,
      ok: a.ok,
      error: a.error,
      duration_ms: a.durationMs,
    })),
    next_attempt_at: t(r.nextAttemptAt),
    created_at: iso(new Date(r.createdAt)),
  }
}
