import { defineRoute, type RouteDef, reply } from '../../platform/http/route'
import {
  DeliveryIdParams,
  WebhookCreatedResp,
  WebhookCreateReq,
  WebhookDeliveryResp,
  WebhookIdParams,
  WebhookResp,
  WebhookTestResp,
} from './webhooks.schemas'
import type { WebhooksService } from './webhooks.service'

const TAGS = ['webhooks']

/** `/v1/webhooks` (spec, Webhooks): a workspace admin's; an API key needs the `admin` scope. */
export function webhooksRoutes(webhooks: WebhooksService): RouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/webhooks',
      mount: 'v1',
      // The answer carries the signing secret, which is never stored in the clear: a key runs once.
      idempotent: 'once',
      auth: 'admin',
      scope: 'admin',
      status: 201,
      summary: 'Subscribe an endpoint to webhook events (the signing secret is shown once)',
      description:
        'The URL must be https (http only when the operator sets `webhooks.allow_http`) and may not reach link-local, cloud metadata, loopback or private addresses unless the operator allows them (422 `egress_denied`); it is judged again at every delivery. Deliveries are signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`). At most 20 endpoints a workspace (409 `webhook_limit_reached`).',
      tags: TAGS,
      body: WebhookCreateReq,
      response: WebhookCreatedResp,
      errors: ['egress_denied', 'webhook_limit_reached'],
      handler: async ({ principal, body, ip, requestId }) =>
        reply(201, await webhooks.create(principal, body, { ip, requestId })),
    }),
    defineRoute({
      method: 'GET',
      path: '/webhooks',
      mount: 'v1',
      auth: 'admin',
      scope: 'admin',
      summary: "The workspace's webhook endpoints, newest first, each with its last delivery",
      tags: TAGS,
      list: true,
      response: WebhookResp,
      handler: ({ principal, page }) => webhooks.list(principal.workspaceId, page),
    }),
    defineRoute({
      method: 'GET',
      path: '/webhooks/:webhook_id',
      mount: 'v1',
      auth: 'admin',
      scope: 'admin',
      summary: 'One webhook endpoint (never its secret)',
      tags: TAGS,
      params: WebhookIdParams,
      response: WebhookResp,
      handler: ({ principal, params }) => webhooks.get(principal.workspaceId, params.webhook_id),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/webhooks/:webhook_id',
      mount: 'v1',
      auth: 'admin',
      scope: 'admin',
      status: 204,
      summary: 'Delete a webhook endpoint, with its deliveries; queued deliveries are not sent',
      tags: TAGS,
      params: WebhookIdParams,
      handler: async ({ principal, params, ip, requestId }) => {
        await webhooks.remove(principal, params.webhook_id, { ip, requestId })
        return reply(204)
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/webhooks/:webhook_id/enable',
      mount: 'v1',
      auth: 'admin',
      scope: 'admin',
      summary: 'Enable an endpoint disabled after failing deliveries (idempotent)',
      description:
        'Its run of failures is forgotten and new events are delivered again; deliveries ended when it was disabled are not sent.',
      tags: TAGS,
      params: WebhookIdParams,
      response: WebhookResp,
      handler: ({ principal, params, ip, requestId }) =>
        webhooks.enable(principal, params.webhook_id, { ip, requestId }),
    }),
    defineRoute({
      method: 'POST',
      path: '/webhooks/:webhook_id/rotate-secret',
      mount: 'v1',
      // The answer carries the new secret, which is never stored in the clear: a key runs once.
      idempotent: 'once',
      auth: 'admin',
      scope: 'admin',
      summary: 'Replace the signing secret (the new one is shown once)',
      description:
        'For 24 hours deliveries carry two signatures, one with each secret (Standard Webhooks allows several, space-separated), so the receiver can switch to the new secret in its own time; `previous_secret_expires_at` says until when. Rotating again within that time drops the oldest secret at once.',
      tags: TAGS,
      params: WebhookIdParams,
      response: WebhookCreatedResp,
      handler: ({ principal, params, ip, requestId }) =>
        webhooks.rotateSecret(principal, params.webhook_id, { ip, requestId }),
    }),
    defineRoute({
      method: 'POST',
      path: '/webhooks/:webhook_id/test',
      mount: 'v1',
      // Each call is another test message.
      idempotent: false,
      auth: 'admin',
      scope: 'admin',
      status: 202,
      summary: 'Queue a `webhook.test` event to the endpoint, whatever it subscribes to',
      description:
        "Sent and retried like any delivery; follow it in the endpoint's deliveries. 409 `webhook_disabled` while the endpoint is disabled.",
      tags: TAGS,
      params: WebhookIdParams,
      response: WebhookTestResp,
      errors: ['webhook_disabled'],
      handler: async ({ principal, params }) =>
        reply(202, await webhooks.sendTest(principal.workspaceId, params.webhook_id)),
    }),
    defineRoute({
      method: 'GET',
      path: '/webhooks/:webhook_id/deliveries',
      mount: 'v1',
      auth: 'admin',
      scope: 'admin',
      summary: "An endpoint's deliveries, newest first, each with its attempts",
      description: 'Only the status of each answer is kept, never its body.',
      tags: TAGS,
      list: true,
      params: WebhookIdParams,
      response: WebhookDeliveryResp,
      handler: ({ principal, params, page }) =>
        webhooks.deliveries(principal.workspaceId, params.webhook_id, page),
    }),
    defineRoute({
      method: 'POST',
      path: '/webhooks/:webhook_id/deliveries/:delivery_id/retry',
      mount: 'v1',
      // Each call is another send.
      idempotent: false,
      auth: 'admin',
      scope: 'admin',
      status: 202,
      summary: 'Send an ended delivery again, with the same webhook-id and body',
      description:
        "For a delivery that failed (its retries spent, or ended when the endpoint was disabled) once the receiver is mended. Its attempts go on from its count: the schedule's remaining retries, or one attempt when it had used them all. 409 `conflict` while it is still pending, 409 `webhook_disabled` while the endpoint is disabled.",
      tags: TAGS,
      params: DeliveryIdParams,
      response: WebhookDeliveryResp,
      errors: ['conflict', 'webhook_disabled'],
      handler: async ({ principal, params }) =>
        reply(
          202,
          await webhooks.retryDelivery(principal.workspaceId, params.webhook_id, params.delivery_id),
        ),
    }),
  ]
}
