import type { Subscriber } from '../../platform/events/dispatcher'
import { TOLD_EVENTS, type Told, webhookEventOf } from './webhooks.events'
import type { WebhooksRepo } from './webhooks.repo'
import type { WebhooksService } from './webhooks.service'

/** How long an ended delivery and its attempts are kept (the deliveries listing shows them). */
export const KEEP_DELIVERIES_DAYS = 30

/**
 * Queues a delivery to every enabled endpoint of the event's workspace that subscribes to its
 * webhook type. Transactional: the deliveries, their jobs and the record that the event was taken
 * commit together (one unit), so each event is queued to each endpoint exactly once, crashes included.
 */
export function webhooksSubscriber(repo: WebhooksRepo, service: WebhooksService): Subscriber<Told> {
  return {
    name: 'webhooks',
    types: TOLD_EVENTS,
    transactional: true,
    // A workspace without an endpoint for the event's type (most of them) has nothing to queue: no
    // unit of work and no delivery record for each of its events (5,000 documents ready, 5,000 units).
    takes: async (e) => {
      const { type } = webhookEventOf(e)
      return (await repo.enabledEndpoints(e.workspaceId)).some((ep) => subscribes(ep.events, type))
    },
    handle: async (e) => {
      const { type, data } = webhookEventOf(e)
      for (const endpoint of await repo.enabledEndpoints(e.workspaceId)) {
        // Ended deliveries are kept KEEP_DELIVERIES_DAYS; the ones that aged out go as new ones come.
        await repo.pruneDeliveries(endpoint.id, e.occurredAt - KEEP_DELIVERIES_DAYS * 86_400_000)
        if (!subscribes(endpoint.events, type)) continue
        await service.send(endpoint, e.id, type, data, e.occurredAt)
      }
    },
  }
}

/** Whether an endpoint's events (its JSON list) include `type`. */
function subscribes(events: string, type: string): boolean {
  return (JSON.parse(events) as string[]).includes(type)
}
