import type { Config } from '../../platform/config/config.load'
import type { Feature, Platform } from '../../platform/feature/feature'
import type { CorporaService } from '../corpora/corpora.service'
import type { PlansService } from '../plans/plans.service'
import { ingestRoutes } from './ingest.routes'
import { IngestService } from './ingest.service'

export interface IngestFeatureDeps {
  config: Config['ingest']
  corpora: CorporaService
  /** Documents and storage are held to the workspace's plan. */
  plans: PlansService
}

/**
 * Upload, the push protocol and document extraction (a durable job per document). Deleted
 * documents' raw objects, sidecars and pending extraction jobs go before the delete answers (its
 * purger, added to corpora's). Once the server runs jobs, objects a crash left without a row are
 * swept in the background (objects of requests in flight are spared, so serving need not wait).
 */
export function ingestFeature(p: Platform, d: IngestFeatureDeps): Feature<IngestService> {
  const service = new IngestService({ ...p, ...d })
  d.corpora.addPurger(service.purger)
  return {
    name: 'ingest',
    service,
    routes: ingestRoutes(service, {
      maxRequestBytes: d.config.max_request_bytes,
      maxJsonBytes: d.config.max_json_bytes,
    }),
    jobs: [service.extraction],
    start: ({ jobs }) => {
      if (!jobs) return
      void service.sweepOrphans().then(
        (r) => p.log.info('orphan sweep', { removed_objects: r.removed, expired_uploads: r.uploadsExpired }),
        (e) => p.log.error('orphan sweep failed', { error: (e as Error).message }),
      )
    },
  }
}
