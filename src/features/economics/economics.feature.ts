import type { Config } from '../../platform/config/config.load'
import type { Feature, Platform } from '../../platform/feature/feature'
import type { AnswersService } from '../answers/answers.service'
import type { CorporaService } from '../corpora/corpora.service'
import type { Engine } from '../engine/engine.service'
import type { OnboardingService } from '../onboarding/onboarding.service'
import { economicsRoutes } from './economics.routes'
import { cartridgeFootprint, EconomicsService } from './economics.service'

export interface EconomicsFeatureDeps {
  rates: Config['rates']
  corpora: CorporaService
  answers: AnswersService
  onboarding: OnboardingService
  engine: Engine
}

/** Cost per query, the side-by-side compare of the two strategies, and break-even. */
export function economicsFeature(p: Platform, d: EconomicsFeatureDeps): Feature<EconomicsService> {
  const service = new EconomicsService({
    ...p,
    ...d,
    footprint: (baseId) =>
      cartridgeFootprint(d.engine, async (key) => (await p.objects.head(key))?.size ?? null, baseId),
  })
  return { name: 'economics', service, routes: economicsRoutes(service) }
}
