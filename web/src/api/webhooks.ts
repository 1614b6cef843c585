/** The webhook routes the Webhooks page calls (admin): endpoints, their deliveries, a test send. */
import { http, listAll, ok } from './client'
import type { components } from './openapi.gen'

type Schemas = components['schemas']
/** An endpoint as listed: state, last delivery; never its secret. */
export type Webhook = Schemas['WebhookResp']
/** The create answer: the only time the signing secret is shown. */
export type WebhookCreated = Schemas['WebhookCreatedResp']
export type WebhookEvent = Schemas['WebhookCreateReq']['events'][number]
export type WebhookDelivery = Schemas['WebhookDeliveryResp']
export type WebhookAttempt = Schemas['WebhookAttemptResp']

/** The workspace's endpoints, newest first. */
export function listWebhooks(signal?: AbortSignal): Promise<Webhook[]> {
  return listAll((cursor) =>
    ok(http.GET('/v1/webhooks', { params: { query: { limit: 100, cursor } }, signal })),
  )
}

/** Subscribes an endpoint; the answer holds its secret, shown this once. */
export function createWebhook(body: {
  url: string
  events: WebhookEvent[]
  description?: string
}): Promise<WebhookCreated> {
  return ok(http.POST('/v1/webhooks', { body }))
}

/** Deletes an endpoint, its deliveries with it. */
export async function deleteWebhook(id: string): Promise<void> {
  await ok(http.DELETE('/v1/webhooks/{webhook_id}', { params: { path: { webhook_id: id } } }))
}

/** Enables an endpoint disabled after failures. */
export function enableWebhook(id: string): Promise<Webhook> {
  return ok(http.POST('/v1/webhooks/{webhook_id}/enable', { params: { path: { webhook_id: id } } }))
}

/** Queues a `webhook.test` delivery to the endpoint. */
export function testWebhook(id: string): Promise<Schemas['WebhookTestResp']> {
  return ok(http.POST('/v1/webhooks/{webhook_id}/test', { params: { path: { webhook_id: id } } }))
}

/** The endpoint's most recent deliveries, newest first, with their attempts. */
export async function listDeliveries(id: string, signal?: AbortSignal): Promise<WebhookDelivery[]> {
  const page = await ok(
    http.GET('/v1/webhooks/{webhook_id}/deliveries', {
      params: { path: { webhook_id: id }, query: { limit: 50 } },
      signal,
    }),
  )
  return page.items
}

/** Sends an ended (failed) delivery again, with the same id and body. */
export async function retryDelivery(id: string, deliveryId: string): Promise<void> {
  await ok(
    http.POST('/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/retry', {
      params: { path: { webhook_id: id, delivery_id: deliveryId } },
    }),
  )
}
