import type { Config } from '../../platform/config/config.load'
import type { Feature, Platform } from '../../platform/feature/feature'
import type { AnswersService } from '../answers/answers.service'
import type { CorporaService } from '../corpora/corpora.service'
import type { EconomicsService } from '../economics/economics.service'
import { scaleRoutes } from './scale.routes'
import { ScaleService } from './scale.service'

export interface ScaleFeatureDeps extends Platform {
  config: Config['scale_test']
  corpora: CorporaService
  answers: AnswersService
  economics: EconomicsService
  /** This server's own address once it listens: the load then goes over real HTTP. */
  selfUrl: () => string | null
}

/** The scale test (load at rising concurrency, streamed) and its saved runs. */
export function scaleFeature(d: ScaleFeatureDeps): Feature<ScaleService> {
  const service = new ScaleService({
    ...d,
    limits: {
      maxSeconds: d.config.max_seconds,
      maxRequestsPerLevel: d.config.max_requests_per_level,
      maxPerHour: d.config.max_per_hour,
    },
  })
  return { service, routes: scaleRoutes(service) }
}
