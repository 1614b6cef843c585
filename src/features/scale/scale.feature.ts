import type { Config } from '../../platform/config/config.load'
import type { Feature, Platform } from '../../platform/feature/feature'
import type { AnswersService } from '../answers/answers.service'
import type { CorporaService } from '../corpora/corpora.service'
import type { EconomicsService } from '../economics/economics.service'
import { scaleRoutes } from './scale.routes'
import { ScaleService } from './scale.service'

export interface ScaleFeatureDeps {
  config: Config['scale_test']
  corpora: CorporaService
  answers: AnswersService
  economics: EconomicsService
}

/**
 * The scale test (load at rising concurrency, streamed) and its saved runs. Once started with the
 * server's own address, the load goes over real HTTP (from a worker thread), as clients see it.
 */
export function scaleFeature(p: Platform, d: ScaleFeatureDeps): Feature<ScaleService> {
  let selfUrl: string | null = null
  const service = new ScaleService({
    ...p,
    ...d,
    selfUrl: () => selfUrl,
    limits: {
      maxSeconds: d.config.max_seconds,
      maxRequestsPerLevel: d.config.max_requests_per_level,
      maxPerHour: d.config.max_per_hour,
    },
  })
  return {
    name: 'scale',
    service,
    routes: scaleRoutes(service),
    start: ({ url }) => {
      selfUrl = url?.replace(/\/+$/, '') ?? null
    },
    stop: () => {
      selfUrl = null
    },
  }
}
