import type { Feature } from '../../platform/feature/feature'
import type { IngestService } from '../ingest/ingest.service'
import { platformInfoRoutes } from './platform-info.routes'
import { type PlatformInfoConfig, PlatformInfoService } from './platform-info.service'

/** The public description of this server: storage, region, egress, accepted file types. */
export function platformInfoFeature(d: {
  config: PlatformInfoConfig
  version: string
  ingest: IngestService
}): Feature<PlatformInfoService> {
  const service = new PlatformInfoService(d.config, d.version, d.ingest)
  return { name: 'platform-info', service, routes: platformInfoRoutes(service) }
}
