import type { Config } from '../../platform/config/config.load'
import { Sealer } from '../../platform/crypto/sealed'
import type { Feature, Platform } from '../../platform/feature/feature'
import { Deliveries } from './webhooks.deliveries'
import { Destinations } from './webhooks.destinations'
import { WebhooksRepo } from './webhooks.repo'
import { webhooksRoutes } from './webhooks.routes'
import { Sender } from './webhooks.sender'
import { WebhooksService } from './webhooks.service'
import { webhooksSubscriber } from './webhooks.subscribers'

export interface WebhooksFeatureDeps {
  config: Config['webhooks']
  /** The instance secret: signing secrets are sealed under a key derived from it. */
  secret: string
  version: string
}

/** Outbound webhooks: endpoints, deliveries from the outbox as durable jobs, signed per Standard Webhooks. */
export function webhooksFeature(p: Platform, d: WebhooksFeatureDeps): Feature<WebhooksService> {
  const repo = new WebhooksRepo(p.store)
  const sealer = new Sealer(d.secret, 'engram/webhooks/signing-secret')
  const destinations = new Destinations(d.config)
  const deliveries = new Deliveries({
    ...p,
    repo,
    sealer,
    sender: new Sender(d.config, destinations, d.version),
    config: d.config,
    unit: () => new DataView(p.random.bytes(4).buffer).getUint32(0) / 2 ** 32,
  })
  const service = new WebhooksService({ ...p, repo, sealer, destinations, deliveries, config: d.config })
  return {
    name: 'webhooks',
    service,
    routes: webhooksRoutes(service),
    jobs: [deliveries.job()],
    subscribers: [webhooksSubscriber(repo, service)],
  }
}
