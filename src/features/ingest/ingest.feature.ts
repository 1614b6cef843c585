import type { Config } from '../../platform/config/config.load'
import type { Feature, Platform } from '../../platform/feature/feature'
import type { CorporaService, DocumentPurger } from '../corpora/corpora.service'
import { ingestRoutes } from './ingest.routes'
import { IngestService } from './ingest.service'

export interface IngestFeatureDeps extends Platform {
  config: Config['ingest']
  corpora: CorporaService
}

/** Upload, the push protocol and document extraction (a durable job per document). */
export function ingestFeature(d: IngestFeatureDeps): Feature<IngestService> & { purger: DocumentPurger } {
  const service = new IngestService(d)
  return {
    service,
    routes: ingestRoutes(service, {
      maxRequestBytes: d.config.max_request_bytes,
      maxJsonBytes: d.config.max_json_bytes,
    }),
    jobs: [service.extraction],
    // Deleted documents' raw objects, sidecars and pending extraction jobs go before the delete answers.
    purger: service.purger,
  }
}
