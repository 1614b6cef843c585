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
 * swept in the background by one of the processes starting at once (a named lease), sparing
 * objects of requests in flight here and any written within the last hour (maybe in flight on
 * another replica), so serving need not wait. A push commit another process still held is ended
 * once its lease lapses, if it is not renewed by then.
 */
export function ingestFeature(p: Platform, d: IngestFeatureDeps): Feature<IngestService> {
  const service = new IngestService({ ...p, ...d })
  d.corpora.addPurger(service.purger)
  let retry: ReturnType<typeof setTimeout> | null = null
  /** Tries the held commits again just after their leases lapse (renewed ones are spared again). */
  const closeLater = (until: number | null | undefined) => {
    if (until === null || until === undefined) return
    const wait = Math.max(0, until - p.clock.now().getTime()) + 1000
    retry = setTimeout(() => {
      retry = null
      void service.closeInterruptedCommits().then(
        (r) => closeLater(r.heldUntil),
        (e) => p.log.error('closing interrupted push commits failed', { error: (e as Error).message }),
      )
    }, wait)
    retry.unref?.()
  }
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
        (r) => {
          if (r.skipped) p.log.info('orphan sweep left to the process holding its lease')
          else p.log.info('orphan sweep', { removed_objects: r.removed, expired_uploads: r.uploadsExpired })
          closeLater(r.commitsHeldUntil)
        },
        (e) => p.log.error('orphan sweep failed', { error: (e as Error).message }),
      )
    },
    stop: () => {
      if (retry) clearTimeout(retry)
      retry = null
    },
  }
}
